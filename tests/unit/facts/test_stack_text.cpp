// Stacks as one line of text: which Python files are torch's or the standard
// library's, and how their internals fold so the job's own code stays in view.
#include "facts/stack_text.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using ftdiag::facts::python_package;
using ftdiag::facts::python_stack_text;
using ftdiag::facts::stack_text;
using ftdiag::parse::PythonFrame;

namespace {

PythonFrame python_frame(std::string file, int line, std::string function) {
  PythonFrame f;
  f.file = std::move(file);
  f.line = line;
  f.function = std::move(function);
  return f;
}

const std::string kTorch = "/usr/lib/python3/dist-packages/torch/";
const std::string kPickle = "/usr/lib/python3.11/pickle.py";

}  // namespace

TEST_CASE("stack text: the package of a Python file") {
  CHECK(python_package(kTorch + "serialization.py") == "torch");
  CHECK(python_package("/venv/lib/python3.10/site-packages/transformers/trainer.py") == "transformers");
  CHECK(python_package("/venv/lib/python3.10/site-packages/six.py") == "six");
  CHECK(python_package(kPickle) == "python");
  CHECK(python_package("/root/.pyenv/versions/3.11.7/lib/python3.11/threading.py") == "python");
  CHECK(python_package("<frozen importlib._bootstrap>") == "python");
  CHECK(python_package("/home/me/train.py") == "");
  CHECK(python_package("train.py") == "");
  CHECK(python_package("/opt/lib/python-tools/run.py") == "");  // not a pythonX.Y folder
  CHECK(python_package("/opt/lib/python3.11") == "");           // no file under it
}

TEST_CASE("stack text: torch's internals fold, the call into torch and the job's code stay") {
  const std::vector<PythonFrame> frames = {
      python_frame(kTorch + "_tensor.py", 391, "_reduce_ex_internal"),
      python_frame(kTorch + "_tensor.py", 225, "__reduce_ex__"),
      python_frame(kTorch + "serialization.py", 635, "_save"),
      python_frame(kTorch + "serialization.py", 423, "save"),
      python_frame("/job/train.py", 40, "save_checkpoint"),
      python_frame("/job/train.py", 80, "main"),
  };
  CHECK(python_stack_text(frames, 8) ==
        "_reduce_ex_internal (_tensor.py:391) <- (2 torch frames) <- save (serialization.py:423) <- "
        "save_checkpoint (train.py:40) <- main (train.py:80)");
  // Unfolded, the job's code is past what a sentence shows.
  CHECK(stack_text(frames, 8).find("save_checkpoint") > 100);
  // Frames shown count; the rest is counted.
  CHECK(python_stack_text(frames, 3) ==
        "_reduce_ex_internal (_tensor.py:391) <- (2 torch frames) <- save (serialization.py:423) <- "
        "save_checkpoint (train.py:40) <- ... (1 more)");
  CHECK(python_stack_text(frames, 1) == "_reduce_ex_internal (_tensor.py:391) <- ... (5 more)");
  CHECK(python_stack_text(std::vector<PythonFrame>{}, 8).empty());
}

TEST_CASE("stack text: the standard library folds, other packages are shown frame by frame") {
  const std::vector<PythonFrame> frames = {
      python_frame(kPickle, 578, "save"),
      python_frame(kPickle, 560, "save_reduce"),
      python_frame(kPickle, 493, "dump"),
      python_frame("/venv/lib/python3.10/site-packages/transformers/trainer.py", 2402, "_save_checkpoint"),
      python_frame("/venv/lib/python3.10/site-packages/transformers/trainer.py", 1990, "_inner_training_loop"),
      python_frame(kPickle, 100, "lone"),
      python_frame("/job/train.py", 9, "<module>"),
  };
  CHECK(python_stack_text(frames, 8) ==
        "save (pickle.py:578) <- (1 standard-library frame) <- dump (pickle.py:493) <- _save_checkpoint (trainer.py:2402) <- "
        "_inner_training_loop (trainer.py:1990) <- lone (pickle.py:100) <- <module> (train.py:9)");
}
