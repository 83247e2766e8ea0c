// The build files packages write (torch/version.py, DeepSpeed's
// git_version_info_installed.py) are read as literals, never run; every
// variant seen in the wild, and text that is not literals at all.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "parse/python_env/bitsandbytes_build.h"
#include "parse/python_env/deepspeed_build.h"
#include "parse/python_env/python_literal.h"
#include "parse/python_env/torch_build.h"

using namespace ftdiag::parse;

TEST_CASE("python torch build: a 2.x wheel's annotated version.py") {
  const auto torch = parse_torch_version_py(
      "from typing import Optional\n\n"
      "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
      "__version__ = '2.11.0.dev20260104+cu128'\n"
      "debug = False\n"
      "cuda: Optional[str] = '12.8'\n"
      "git_version = 'c6bcb25d8bfe09da372676d68d3502d9e57fef7b'\n"
      "hip: Optional[str] = None\n"
      "rocm: Optional[str] = None\n"
      "xpu: Optional[str] = None\n");
  REQUIRE(torch);
  CHECK(torch->version == "2.11.0.dev20260104+cu128");
  CHECK(torch->build == std::map<std::string, std::string>{{"cuda", "12.8"},
                                                           {"git_version", "c6bcb25d8bfe09da372676d68d3502d9e57fef7b"},
                                                           {"local_tag", "cu128"}});
}

TEST_CASE("python torch build: Debian's 1.13 is a CPU build with no local tag") {
  const auto torch = parse_torch_version_py(
      "__version__ = '1.13.0a0'\ndebug = False\ncuda = None\ngit_version = 'Unknown'\nhip = None\n");
  REQUIRE(torch);
  CHECK(torch->version == "1.13.0a0");
  CHECK(torch->build == std::map<std::string, std::string>{{"cpu_only", "true"}, {"git_version", "Unknown"}});
}

TEST_CASE("python torch build: un-annotated CUDA 11, ROCm, XPU, CPU wheels and a debug build") {
  auto cu118 = parse_torch_version_py("__version__ = '2.0.1+cu118'\ncuda = '11.8'\nhip = None\n");
  REQUIRE(cu118);
  CHECK(cu118->build.at("cuda") == "11.8");
  CHECK(cu118->build.at("local_tag") == "cu118");
  CHECK(cu118->build.count("cpu_only") == 0);

  auto rocm = parse_torch_version_py(
      "__version__ = '2.7.0+rocm6.3'\ncuda: Optional[str] = None\nhip: Optional[str] = '6.3.42131-fa1d09cbd'\n");
  REQUIRE(rocm);
  CHECK(rocm->build.at("hip") == "6.3.42131-fa1d09cbd");
  CHECK(rocm->build.at("local_tag") == "rocm6.3");
  CHECK(rocm->build.count("cuda") == 0);
  CHECK(rocm->build.count("cpu_only") == 0);

  auto xpu = parse_torch_version_py("__version__ = \"2.7.0+xpu\"\ncuda = None\nhip = None\nxpu = '20250001'\n");
  REQUIRE(xpu);
  CHECK(xpu->build.at("xpu") == "20250001");
  CHECK(xpu->build.count("cpu_only") == 0);

  auto cpu = parse_torch_version_py("__version__ = '2.7.0+cpu'\ncuda = None  # no CUDA\nhip = None\ndebug = True\n");
  REQUIRE(cpu);
  CHECK(cpu->build.at("cpu_only") == "true");
  CHECK(cpu->build.at("local_tag") == "cpu");
  CHECK(cpu->build.at("debug") == "true");
}

TEST_CASE("python torch build: without a cuda line nothing is said about CUDA") {
  auto torch = parse_torch_version_py("__version__ = '2.3.0'\n");
  REQUIRE(torch);
  CHECK(torch->build.empty());
}

TEST_CASE("python torch build: no __version__ literal is unparseable") {
  CHECK_FALSE(parse_torch_version_py(""));
  CHECK_FALSE(parse_torch_version_py("__version__ = get_version()\ncuda = '12.1'\n"));
  CHECK_FALSE(parse_torch_version_py("    __version__ = '2.0.0'\n"));  // inside a block
  CHECK_FALSE(parse_torch_version_py("__version__ = None\n"));
  CHECK_FALSE(parse_torch_version_py(std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10)));
  CHECK(parse_torch_version_py("__version__ = get_version()\n__version__ = '2.0.0'\n")->version == "2.0.0");
}

TEST_CASE("python literal: strings, escapes, dicts over lines, and statements that are not literals") {
  const auto values = parse_python_assignments(
      "a = 'it\\'s'\r\n"
      "b = r'C:\\path' \"-tail\"\n"
      "c = {'x': True,\n"
      "     'y': [1, 2, (3,)],  # a comment inside\n"
      "     'z': {'nested': 'deep'}}\n"
      "d = '''triple\nquoted'''\n"
      "e = os.path.join('a')\n"
      "f = 'unterminated\n"
      "g == 'comparison'\n"
      "h = 1.5e3\n"
      "i = -2\n"
      "j = 'x' if True else 'y'\n");
  CHECK(values.at("a").text == "it's");
  CHECK(values.at("b").text == "C:\\path-tail");
  REQUIRE(values.at("c").kind == PythonLiteral::Kind::dict);
  CHECK(values.at("c").find("x")->boolean);
  CHECK(values.at("c").find("y")->kind == PythonLiteral::Kind::sequence);
  CHECK(values.at("c").find("z")->find("nested")->text == "deep");
  CHECK(values.at("d").text == "triple\nquoted");
  CHECK(values.at("h").scalar_text() == "1.5e3");
  CHECK(values.at("i").scalar_text() == "-2");
  for (const char* name : {"e", "f", "g", "j"}) CHECK(values.count(name) == 0);
}

TEST_CASE("python literal: deep nesting and unclosed brackets end in time, without a value") {
  CHECK(parse_python_assignments("x = " + std::string(100000, '[')).empty());
  CHECK(parse_python_assignments("x = " + std::string(17, '{') + std::string(17, '}')).empty());
  std::string many_lines;
  for (int i = 0; i < 50000; ++i) many_lines += "x = {\n";
  CHECK(parse_python_assignments(many_lines).empty());
  CHECK(parse_python_assignments("x = " + std::string(16, '[') + std::string(16, ']')).count("x") == 1);
}

TEST_CASE("python deepspeed build: the torch and CUDA the ops were built for, and which are prebuilt") {
  const auto deepspeed = parse_deepspeed_build_info(
      "version='0.14.0'\n"
      "git_hash='ce78a632'\n"
      "git_branch='HEAD'\n"
      "installed_ops={'async_io': False, 'fused_adam': True, 'cpu_adam': True, 'transformer': False}\n"
      "compatible_ops={'async_io': False, 'fused_adam': True}\n"
      "accelerator_name='cuda'\n"
      "torch_info={'version': '2.1', 'bf16_support': False, 'cuda_version': '12.1', 'nccl_version': '2.18', "
      "'hip_version': '0.0'}\n");
  REQUIRE(deepspeed);
  CHECK(deepspeed->version == "0.14.0");
  CHECK(deepspeed->build == std::map<std::string, std::string>{{"accelerator", "cuda"},
                                                               {"cuda_version", "12.1"},
                                                               {"git_hash", "ce78a632"},
                                                               {"installed_ops", "cpu_adam,fused_adam"},
                                                               {"nccl_version", "2.18"},
                                                               {"torch_version", "2.1"}});
}

TEST_CASE("python deepspeed build: 1 for prebuilt, '0.0' for a build without torch, a trailing space") {
  const auto built = parse_deepspeed_build_info(
      "version='0.15.0'\ninstalled_ops={'async_io': False, 'fused_adam': 1, 'cpu_adam': 1}\n"
      "torch_info={'version': '2.3', 'cuda_version': '12.1', 'nccl_version': '0.0', 'hip_version': '0.0'}\n");
  REQUIRE(built);
  CHECK(built->build.at("installed_ops") == "cpu_adam,fused_adam");
  CHECK(built->build.count("nccl_version") == 0);

  const auto sdist = parse_deepspeed_build_info(
      "version='0.14.0 '\ninstalled_ops={'async_io': False, 'fused_adam': False}\n"
      "torch_info={'version': '0.0', 'bf16_support': False, 'cuda_version': '0.0', 'hip_version': '0.0'}\n");
  REQUIRE(sdist);
  CHECK(sdist->version == "0.14.0");
  CHECK(sdist->build == std::map<std::string, std::string>{{"installed_ops", ""}});
}

TEST_CASE("python deepspeed build: text without its literals is unparseable") {
  CHECK_FALSE(parse_deepspeed_build_info(""));
  CHECK_FALSE(parse_deepspeed_build_info("import os\nversion = os.environ['V']\n"));
  CHECK_FALSE(parse_deepspeed_build_info("installed_ops = dict.fromkeys(ALL_OPS, False)\n"));
}

TEST_CASE("python bitsandbytes build: the CUDA versions of its libraries, each once, in numeric order") {
  const std::vector<std::string> names = {"libbitsandbytes_cuda121_nocublaslt.so", "__init__.py",
                                          "libbitsandbytes_cuda118.so", "libbitsandbytes_cuda121.so",
                                          "libbitsandbytes_cpu.so", "libbitsandbytes_cuda.so",
                                          "libbitsandbytes_cuda99999999999999999999999.so",
                                          "libbitsandbytes_cuda124.so.bak"};
  CHECK(bitsandbytes_cuda_libraries(names) == "118,121");
  CHECK(bitsandbytes_cuda_libraries(std::vector<std::string>{"libbitsandbytes_cpu.so"}).empty());
}
