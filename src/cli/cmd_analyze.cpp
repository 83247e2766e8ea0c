#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/diagnosis.h"
#include "cli/exit_codes.h"
#include "evidence/job_directory.h"
#include "report/report_json.h"
#include "report/run_summary.h"
#include "report/verdict_text.h"

namespace ftdiag::cli {

namespace {

struct AnalyzeArguments {
  std::string path;
  std::string format = "text";
  std::vector<std::string> rule_dirs;
};

int exit_code_for(const Missing& missing) {
  return missing.reason == MissingReason::permission_denied ? kExitInputUnreadable : kExitInputNotFound;
}

int analyze(const AnalyzeArguments& args) {
  auto rules = load_rule_set(args.rule_dirs);
  if (!rules) return kExitRulesInvalid;
  auto document = read_job(args.path);
  if (!document) {
    std::fprintf(stderr, "ftdiag analyze: %s\n", document.missing().detail.c_str());
    return exit_code_for(document.missing());
  }
  const auto judgement = judge_document(document.value(), rules.value());
  if (args.format == "json") {
    std::cout << report::report_to_json(document.value(), judgement).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << '\n';
    return kExitOk;
  }
  // PATH is either one run folder or a job directory holding several.
  const bool single_run = std::filesystem::exists(std::filesystem::path(args.path) / evidence::kJournalFileName);
  for (const auto& run : document->runs) {
    const auto run_path = single_run ? std::filesystem::path(args.path) : std::filesystem::path(args.path) / run.directory;
    std::cout << report::render_run_summary(run, run_path.string()) << '\n';
  }
  std::cout << report::render_verdict(judgement);
  return kExitOk;
}

}  // namespace

Action add_analyze_command(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArguments>();
  CLI::App* cmd = app.add_subcommand("analyze", "Post-mortem of a job directory written by `ftdiag run`");
  cmd->add_option("path", args->path, "Job directory, or one run folder in it")->required();
  cmd->add_option("--format", args->format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--rules", args->rule_dirs, "A directory (or file) of extra rules; repeatable");
  return [args] { return analyze(*args); };
}

}  // namespace ftdiag::cli
