// Every report of a judged job as its readers get it: the terminal at 80
// columns (the verdict, its proof and its fix within a 24-row screen, no line
// wider than the terminal), Markdown, and the HTML file rendered by a
// headless Chromium (a screenshot that is not blank). Shared by the report
// tests and the real-torch scenarios, so each real crash is reported too.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "integration/harness.h"
#include "skip.h"

namespace ftdiag::itest {

// `ftdiag analyze JOB OPTIONS...` as on an 80-column UTF-8 terminal's pipe.
inline Outcome analyze_with(const fs::path& job, const std::vector<std::string>& options) {
  std::vector<std::string> argv = {ftdiag_binary().string(), "analyze", job.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  Launch launch{argv};
  launch.env = {{"COLUMNS", "80"}, {"LANG", "C.UTF-8"}, {"NO_COLOR", std::nullopt}};
  auto outcome = run(launch);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  return outcome;
}

inline std::vector<std::string> report_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Columns of a line of UTF-8 text.
inline std::size_t report_columns(const std::string& line) {
  std::size_t n = 0;
  for (const char c : line) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Chromium (Debian's `chromium`), or empty when it is not installed.
inline fs::path chromium_binary() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(candidate)) return candidate;
  }
  return {};
}

// What a screenshot of the HTML file shows (tests/tools/png_summary.py):
// {"width", "height", "colours", "not_background"}; null without Chromium.
inline json screenshot_of(const fs::path& html_file, const fs::path& scratch) {
  const auto browser = chromium_binary();
  if (browser.empty()) return nullptr;
  const auto png = scratch / "report.png";
  auto shot = run(Launch{{browser.string(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1100,1400",
                          "--user-data-dir=" + (scratch / "browser").string(), "--screenshot=" + png.string(), "file://" + html_file.string()}},
                  120);
  REQUIRE_MESSAGE(shot.exited_with(0), shot.describe());
  REQUIRE(fs::exists(png));
  auto summary = run(Launch{{"/usr/bin/python3", std::string(FTDIAG_SOURCE_DIR) + "/tests/tools/png_summary.py", png.string()}});
  REQUIRE_MESSAGE(summary.exited_with(0), summary.describe());
  return json::parse(summary.out);
}

// The three reports of the job at `job`, whose verdict is `cause`; `scratch`
// holds the HTML file and the screenshot. A machine without Chromium marks
// the test skipped after every other check ran.
inline void check_every_report(const fs::path& job, const std::string& cause, const fs::path& scratch) {
  const auto text = analyze_with(job, {}).out;
  INFO("text report:\n", text);
  const auto lines = report_lines(text);
  for (const auto& line : lines) CHECK_MESSAGE(report_columns(line) <= 80, line);
  const auto blank = std::find(lines.begin(), lines.end(), std::string());
  CHECK_MESSAGE(blank - lines.begin() <= 24, "the verdict block takes ", blank - lines.begin(), " rows");
  CHECK(text.rfind("ftdiag verdict: ", 0) == 0);
  if (cause != "unknown") CHECK(text.find("\n  " + cause) != std::string::npos);

  const auto markdown = analyze_with(job, {"--format", "markdown"}).out;
  CHECK(markdown.rfind("### ftdiag: ", 0) == 0);
  if (cause != "unknown") CHECK(markdown.find("**Cause:** `" + cause + "`") != std::string::npos);

  const auto html_file = scratch / "report.html";
  analyze_with(job, {"--format", "html", "--output", html_file.string()});
  const auto html = read_text(html_file);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("data-chart=\"memory\"") != std::string::npos);
  if (cause != "unknown") CHECK(html.find("data-cause=\"" + cause + "\"") != std::string::npos);
  const auto shown = screenshot_of(html_file, scratch);
  if (shown.is_null()) {
    ftdiag::test::mark_skipped("chromium is not installed (scripts/install-deps.sh --tests installs it): the HTML report was not rendered");
    return;
  }
  INFO("screenshot: ", shown.dump());
  CHECK(shown["colours"].get<int>() > 50);  // text, lines and bands, not a blank page
  CHECK(shown["not_background"].get<double>() > 0.03);
}

}  // namespace ftdiag::itest
