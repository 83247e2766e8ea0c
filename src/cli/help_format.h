// How `--help` shows a command's usage line: CLI11 derives it from the
// options ("Usage: ftdiag run [OPTIONS]"), which cannot say that `run` takes
// the job's command after `--`. A command that sets its own line here is
// shown with it, once.
#pragma once

#include <map>
#include <string>

#include <CLI/CLI.hpp>

namespace ftdiag::cli {

class HelpFormatter : public CLI::Formatter {
 public:
  // `path` is the command as typed after "ftdiag" ("run", "rules test").
  void set_usage(const std::string& path, std::string usage) { usages_[path] = std::move(usage); }
  std::string make_usage(const CLI::App* app, std::string name) const override;

 private:
  std::map<std::string, std::string> usages_;
};

// Sets `command`'s own usage line, on the formatter every command shares (the
// app's, copied to each subcommand as it is added).
void set_usage(CLI::App& command, std::string usage);

}  // namespace ftdiag::cli
