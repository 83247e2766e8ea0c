// The job directory: private modes, one folder per run, refusal of planted
// symlinks, the exit codes of a job that cannot start, and console.log.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <set>
#include <sstream>

#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

// Every {"missing": ...} in the document, with where it is.
void collect_missing(const json& j, const std::string& where, std::vector<std::string>& without_detail) {
  if (j.is_object()) {
    if (j.size() == 1 && j.contains("missing")) {
      if (j["missing"].value("detail", "").empty()) without_detail.push_back(where + ": " + j.dump());
      return;
    }
    for (const auto& [key, value] : j.items()) collect_missing(value, where + "/" + key, without_detail);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) collect_missing(j[i], where + "/" + std::to_string(i), without_detail);
  }
}

}  // namespace

TEST_CASE("job_directory: --job-dir is created with missing parents, folders 0700, files 0600, whatever the umask") {
  TempDir tmp;
  const fs::path job_dir = tmp / "deep" / "er" / "job";
  Launch launch{ftdiag_run(job_dir, crasher_argv("die", {"exit", "0"}))};
  launch.umask = 0;
  auto outcome = run(launch);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK(octal_mode(tmp / "deep") == "700");
  CHECK(octal_mode(job_dir) == "700");
  auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  CHECK(octal_mode(folders[0]) == "700");
  CHECK(octal_mode(folders[0] / "journal.jsonl") == "600");
  CHECK(octal_mode(folders[0] / "console.log") == "600");
}

TEST_CASE("job_directory: runs sharing one --job-dir get a folder each, and analyze shows them all") {
  TempDir tmp;
  const fs::path job_dir = tmp / "job";
  SUBCASE("one after the other") {
    auto first = run(Launch{ftdiag_run(job_dir, crasher_argv("die", {"exit", "0"}))});
    auto second = run(Launch{ftdiag_run(job_dir, crasher_argv("die", {"exit", "3"}))});
    CHECK(first.exited_with(0));
    CHECK(second.exited_with(3));
    auto folders = run_folders(job_dir);
    REQUIRE(folders.size() == 2);
    for (const auto& folder : folders) {
      CHECK_MESSAGE(folder.filename().string().starts_with(host_name() + "-pid"), folder.string());
    }
    auto analysis = analyze(job_dir);
    REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
    REQUIRE(all_runs(analysis.document).size() == 2);
    std::multiset<int> codes;
    for (const auto& run : all_runs(analysis.document)) codes.insert(run["job_status"]["exit_code"].get<int>());
    CHECK(codes == std::multiset<int>{0, 3});
  }
  SUBCASE("two ranks at once") {
    Fifo go0(tmp / "go0"), go1(tmp / "go1");
    Launch rank0{ftdiag_run(job_dir, crasher_argv("die", {"await", go0.path().string(), "exit", "0"}))};
    rank0.env["RANK"] = "0";
    Launch rank1{ftdiag_run(job_dir, crasher_argv("die", {"await", go1.path().string(), "exit", "1"}))};
    rank1.env["RANK"] = "1";
    Process p0(rank0), p1(rank1);
    // Both jobs run at the same time before either is let go.
    REQUIRE(p0.wait_for_line("waiting pid="));
    REQUIRE(p1.wait_for_line("waiting pid="));
    REQUIRE(go0.write_line("go"));
    REQUIRE(go1.write_line("go"));
    auto s0 = p0.finish();
    auto s1 = p1.finish();
    CHECK((s0 && WIFEXITED(*s0) && WEXITSTATUS(*s0) == 0));
    CHECK((s1 && WIFEXITED(*s1) && WEXITSTATUS(*s1) == 1));
    auto folders = run_folders(job_dir);
    REQUIRE(folders.size() == 2);
    CHECK(folders[0].filename() == host_name() + "-rank0");
    CHECK(folders[1].filename() == host_name() + "-rank1");
    auto analysis = analyze(job_dir);
    REQUIRE(all_runs(analysis.document).size() == 2);
  }
}

TEST_CASE("job_directory: RANK names the run folder, a rerun of the same rank gets a suffix") {
  TempDir tmp;
  Launch launch{ftdiag_run(tmp / "job", crasher_argv("die", {"exit", "0"}))};
  launch.env["RANK"] = "3";
  REQUIRE(run(launch).exited_with(0));
  REQUIRE(run(launch).exited_with(0));
  auto folders = run_folders(tmp / "job");
  REQUIRE(folders.size() == 2);
  CHECK(folders[0].filename() == host_name() + "-rank3");
  CHECK(folders[1].filename() == host_name() + "-rank3-2");
  auto analysis = analyze(folders[0]);
  CHECK(only_run(analysis.document)["started"]["rank"] == 3);
}

TEST_CASE("job_directory: a symlink planted at the job directory is refused, its target untouched") {
  TempDir tmp;
  const fs::path target = tmp / "elsewhere";
  fs::create_directory(target);
  fs::create_directory_symlink(target, tmp / "job");
  const fs::path marker = tmp / "the-job-ran";
  auto outcome = run(Launch{ftdiag_run(tmp / "job", {"touch", marker.string()})});
  CHECK_MESSAGE(outcome.exited_with(125), outcome.describe());
  CHECK_MESSAGE(outcome.err.find("symlink") != std::string::npos, outcome.err);
  CHECK(fs::is_empty(target));
  CHECK(fs::is_symlink(tmp / "job"));
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("job_directory: a command that is missing exits 127, one that cannot be executed 126, and both are recorded") {
  TempDir tmp;
  SUBCASE("not found") {
    auto outcome = run(Launch{ftdiag_run(tmp / "job", {(tmp / "no-such-program").string()})});
    CHECK_MESSAGE(outcome.exited_with(127), outcome.describe());
    CHECK_MESSAGE(outcome.err.find("no-such-program") != std::string::npos, outcome.err);
    auto analysis = analyze(tmp / "job");
    REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
    CHECK(only_run(analysis.document)["job_status"]["exit_code"] == 127);
  }
  SUBCASE("not on PATH") {
    auto outcome = run(Launch{ftdiag_run(tmp / "job", {"ftdiag-no-such-command-anywhere"})});
    CHECK_MESSAGE(outcome.exited_with(127), outcome.describe());
  }
  SUBCASE("not executable") {
    const fs::path script = tmp / "not-executable";
    write_text(script, "#!/bin/sh\nexit 0\n");
    fs::permissions(script, fs::perms::owner_read | fs::perms::owner_write);
    auto outcome = run(Launch{ftdiag_run(tmp / "job", {script.string()})});
    CHECK_MESSAGE(outcome.exited_with(126), outcome.describe());
    CHECK_MESSAGE(outcome.err.find("not-executable") != std::string::npos, outcome.err);
    auto analysis = analyze(tmp / "job");
    CHECK(only_run(analysis.document)["job_status"]["exit_code"] == 126);
  }
}

TEST_CASE("job_directory: console.log stamps every line with a time and its stream, the evidence tail has them") {
  TempDir tmp;
  const double before = wall_now();
  auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"lines"}))});
  const double after = wall_now();
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto folders = run_folders(tmp / "job");
  REQUIRE(folders.size() == 1);

  const std::regex format(R"(^(\d+\.\d{6}) ([oe]) (.*)$)");
  std::istringstream console(read_text(folders[0] / "console.log"));
  std::vector<std::pair<char, std::string>> lines;
  std::string line;
  while (std::getline(console, line)) {
    std::smatch m;
    REQUIRE_MESSAGE(std::regex_match(line, m, format), "malformed console.log line: ", line);
    const double time = std::stod(m[1]);
    CHECK(time >= before - 1);
    CHECK(time <= after + 1);
    lines.emplace_back(m[2].str()[0], m[3]);
  }
  const std::vector<std::pair<char, std::string>> want_out = {
      {'o', "first line on stdout"}, {'o', "second line on stdout"}, {'o', "last line on stdout"}};
  const std::vector<std::pair<char, std::string>> want_err = {{'e', "first line on stderr"},
                                                              {'e', "second line on stderr"}};
  std::vector<std::pair<char, std::string>> got_out, got_err;
  for (const auto& l : lines) (l.first == 'o' ? got_out : got_err).push_back(l);
  CHECK(got_out == want_out);
  CHECK(got_err == want_err);

  auto analysis = analyze(tmp / "job");
  auto& run = only_run(analysis.document);
  CHECK(run["console"]["line_count"] == 5);
  std::set<std::string> tail;
  for (auto& l : run["console"]["tail"]) tail.insert(l["stream"].get<std::string>() + " " + l["text"].get<std::string>());
  CHECK(tail.count("o first line on stdout"));
  CHECK(tail.count("e second line on stderr"));
  CHECK(tail.count("o last line on stdout"));
}

TEST_CASE("job_directory: analyze's text report names the folder the record is in") {
  TempDir tmp;
  REQUIRE(run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"exit", "0"}))}).exited_with(0));
  const fs::path run_dir = run_folders(tmp / "job").at(0);
  for (const fs::path& given : {tmp / "job", run_dir}) {
    CAPTURE(given.string());
    auto outcome = run(Launch{{ftdiag_binary().string(), "analyze", given.string()}});
    REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
    auto at = outcome.out.find("record: ");
    REQUIRE_MESSAGE(at != std::string::npos, outcome.out);
    auto end = outcome.out.find_first_of(" \n", at + 8);
    const fs::path named = outcome.out.substr(at + 8, end - at - 8);
    std::error_code ec;
    CHECK_MESSAGE(fs::equivalent(named, run_dir, ec), "the report names ", named.string(), " for ", run_dir.string());
  }
}

TEST_CASE("job_directory: every missing fact in the evidence says why it is missing") {
  TempDir tmp;
  REQUIRE(run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"exit", "0"}))}).exited_with(0));
  auto analysis = analyze(tmp / "job");
  REQUIRE(analysis.document.is_object());
  std::vector<std::string> without_detail;
  collect_missing(analysis.document, "", without_detail);
  std::string listing;
  for (const auto& w : without_detail) listing += "\n  " + w;
  CHECK_MESSAGE(without_detail.empty(), without_detail.size(), " missing facts without a detail:", listing);
}

}  // namespace ftdiag::itest
