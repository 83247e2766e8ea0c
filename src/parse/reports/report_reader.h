// Internal to the environment-report parser (environment_report.h): the
// readers of each report format, fed one line at a time, and the sink they
// write values to. Streaming keeps the memory bounded by one line whatever
// the text's size; a reader that needs the next line (nvidia-smi's memory
// row, collect_env's GPU list) keeps a little state.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parse/reports/environment_report.h"

namespace ftdiag::parse::report {

// One line as the readers see it: no line break, no carriage return, no
// terminal colour codes (ds_report prints them even into a file).
struct Line {
  std::string_view text;
  std::uint64_t number = 0;  // 1-based
};

// Collects the values, once per key and value, cut to the bounds.
class Sink {
 public:
  // An empty value is "not stated" and dropped.
  void add(std::string_view format, std::string_view key, std::string_view value, std::uint64_t line);
  // For a list a report states as empty ("no DeepSpeed op prebuilt").
  void add_list(std::string_view format, std::string_view key, std::string_view value, std::uint64_t line);
  std::vector<ReportedSetting> take() { return std::move(values_); }

 private:
  std::vector<ReportedSetting> values_;
  std::set<std::pair<std::string, std::string>> seen_;
};

class Reader {
 public:
  virtual ~Reader() = default;
  virtual void line(const Line& line, Sink& sink) = 0;
  // The text ended: what a reader held back (a count of GPUs listed) is due.
  virtual void finish(Sink&) {}
};

// One per format, each in its own file.
std::unique_ptr<Reader> env_report_reader();    // collect_env, accelerate env, transformers env: "Label: value"
std::unique_ptr<Reader> ds_report_reader();     // ds_report: "name ...... value" and the op table
std::unique_ptr<Reader> nvidia_smi_reader();    // nvidia-smi's table and -q
std::unique_ptr<Reader> gpu_list_reader();      // "GPU 0: NAME" lines (collect_env, nvidia-smi -L)
std::unique_ptr<Reader> package_list_reader();  // pip list, pip freeze, conda list, "name==version" anywhere
std::unique_ptr<Reader> free_reader();          // free's Mem: and Swap: lines
std::unique_ptr<Reader> prose_reader();         // sentences: "56GB Memory", "4 GPUs", torch's extensions root

}  // namespace ftdiag::parse::report
