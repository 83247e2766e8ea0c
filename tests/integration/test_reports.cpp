// The reports of a real crash as people read them: the terminal at 80
// columns (the verdict, its proof and its fix within a screen), Markdown to
// paste into an issue, and one self-contained HTML file rendered in a real
// headless browser. The job is really OOM-killed by its memory cgroup while
// it saves, and its console carries a token that no report may show.
#include <signal.h>
#include <unistd.h>

#include <algorithm>

#include <filesystem>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "integration/oom_jobs.h"
#include "integration/report_checks.h"

namespace ftdiag::itest {
namespace {

const std::string kToken = "hf_" + std::string(20, 'Q') + "reportToken0042";

struct KilledJob {
  TempDir tmp;
  fs::path job = tmp / "job";
};

// The job, under ftdiag run, in a fresh memory cgroup; false when none could be made.
bool run_killed_while_saving(KilledJob& killed) {
  auto cgroup = any_memory_cgroup();
  if (!cgroup) return false;
  const std::string line = "Saving model checkpoint to out/checkpoint-500 (push token " + kToken + ")";
  Launch launch{ftdiag_run(killed.job, print_then_alloc(line, {std::to_string(kOomTestLimitMiB / 8), "20", "4096"}))};
  launch.cgroup_procs = cgroup->procs_file();
  auto outcome = run(launch, 60);
  REQUIRE_MESSAGE(outcome.killed_by(SIGKILL), outcome.describe());
  return true;
}

}  // namespace

TEST_CASE("reports: at 80 columns the verdict, its proof and its fix fit one screen, as Markdown and HTML too") {
  KilledJob killed;
  if (!run_killed_while_saving(killed)) return;
  const auto text = analyze_with(killed.job, {}).out;
  INFO(text);
  CHECK(text.find("ftdiag verdict: the job ran out of host memory while saving a checkpoint") == 0);
  CHECK(text.find("what to do:") < text.find("\n\n"));
  CHECK(text.find(kToken) == std::string::npos);
  CHECK(text.find("\x1b[") == std::string::npos);  // not a terminal: no colour
  // With a colour asked for, the headline is bold and red.
  CHECK(analyze_with(killed.job, {"--color", "always"}).out.find("\x1b[1;31m") != std::string::npos);
  check_every_report(killed.job, "host-oom-checkpoint-save", killed.tmp.path());
}

TEST_CASE("reports: Markdown to paste into an issue, redacted, and anonymized when asked") {
  KilledJob killed;
  if (!run_killed_while_saving(killed)) return;
  const auto markdown = analyze_with(killed.job, {"--format", "markdown"}).out;
  INFO(markdown);
  CHECK(markdown.find("### ftdiag: The job ran out of host memory while saving a checkpoint") == 0);
  CHECK(markdown.find("**Cause:** `host-oom-checkpoint-save` · scope `cgroup`") != std::string::npos);
  CHECK(markdown.find("| evidence | value | from |") != std::string::npos);
  CHECK(markdown.find("**What to do**") != std::string::npos);
  CHECK(markdown.find("**Memory timeline**\n\n```\nmemory ") != std::string::npos);
  CHECK(markdown.find("<details><summary>Processes that died abnormally") != std::string::npos);
  CHECK(markdown.find(kToken) == std::string::npos);
  CHECK(markdown.find("<redacted:") != std::string::npos);  // the console's line, quoted redacted

  const auto shared = analyze_with(killed.job, {"--format", "markdown", "--anonymize"}).out;
  CHECK(shared.find(killed.tmp.path().string()) == std::string::npos);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  if (std::string(host).size() >= 3) CHECK(shared.find(host) == std::string::npos);
  CHECK(shared.find("host-oom-checkpoint-save") != std::string::npos);
}

TEST_CASE("reports: one self-contained HTML file with the memory timeline, rendered by a headless browser") {
  KilledJob killed;
  if (!run_killed_while_saving(killed)) return;
  const auto html_file = killed.tmp / "report.html";
  analyze_with(killed.job, {"--format", "html", "--output", html_file.string()});
  CHECK(octal_mode(html_file) == "600");
  const auto html = read_text(html_file);
  // Self-contained: no script, no stylesheet or font fetched, no address but SVG's namespace.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  std::string addresses = html;
  for (std::size_t at; (at = addresses.find("xmlns=\"http://www.w3.org/2000/svg\"")) != std::string::npos;) addresses.erase(at, 34);
  CHECK(addresses.find("http://") == std::string::npos);
  CHECK(addresses.find("https://") == std::string::npos);
  CHECK(html.find(kToken) == std::string::npos);
  // The series a reader needs: the job's memory against its limit, the save, the death.
  for (const char* part : {"data-series=\"cgroup-usage\"", "data-series=\"job-rss\"", "data-series=\"cgroup-limit\"",
                           "data-phase=\"checkpoint-save\"", "class=\"death\"", "data-signal=\"9\"", "data-series=\"process-peak\"",
                           "data-cause=\"host-oom-checkpoint-save\""}) {
    CHECK_MESSAGE(html.find(part) != std::string::npos, part);
  }

  const auto shown = screenshot_of(html_file, killed.tmp.path());
  if (shown.is_null()) FTDIAG_SKIP("chromium is not installed (scripts/install-deps.sh --tests installs it)");
  INFO("screenshot: ", shown.dump());
  CHECK(shown["width"] == 1100);
  CHECK(shown["colours"].get<int>() > 50);                // text, lines and bands, not a blank page
  CHECK(shown["not_background"].get<double>() > 0.03);
}

}  // namespace ftdiag::itest
