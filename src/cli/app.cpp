#include "cli/app.h"

#include <cstdio>
#include <algorithm>
#include <exception>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"

namespace ftdiag::cli {

namespace {

// For `ftdiag run|preflight [options] -- CMD...`: removes "--" and what
// follows from argv and returns it. Empty when the command has no "--" (for
// `run`, the first word that is not an option then starts the job's command).
std::vector<std::string> take_command_after_dashes(int& argc, char** argv) {
  if (argc < 2 || (std::string_view(argv[1]) != "run" && std::string_view(argv[1]) != "preflight")) return {};
  // Their options that take a value as the next word.
  constexpr std::string_view kWithValue[] = {"--job-dir", "--interval", "--rules",    "--python",      "--deepspeed",
                                             "--model",   "--format",   "--gpu-timeout", "--save-environment"};
  for (int i = 2; i < argc; ++i) {
    const std::string_view word(argv[i]);
    if (word == "--") {
      std::vector<std::string> command(argv + i + 1, argv + argc);
      argc = i;
      return command;
    }
    if (word.empty() || word[0] != '-') return {};  // the job's command started before any "--"
    if (std::find(std::begin(kWithValue), std::end(kWithValue), word) != std::end(kWithValue)) ++i;
  }
  return {};
}

}  // namespace

int run_app(int argc, char** argv) {
  std::vector<std::string> job_command = take_command_after_dashes(argc, argv);
  CLI::App app{"ftdiag: why did my fine-tuning job die?", "ftdiag"};
  app.set_version_flag("--version", std::string("ftdiag ") + FTDIAG_VERSION);
  app.require_subcommand(1);
  const bool for_preflight = argc > 1 && std::string_view(argv[1]) == "preflight";
  Action run_action = add_run_command(app, for_preflight ? std::vector<std::string>{} : job_command);
  Action preflight_action = add_preflight_command(app, for_preflight ? std::move(job_command) : std::vector<std::string>{});
  Action analyze_action = add_analyze_command(app);
  Action judge_action = add_judge_command(app);
  Action rules_action = add_rules_command(app);
  Action explain_action = add_explain_command(app);
  Action estimate_action = add_estimate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  // The boundary: a failure inside a diagnosis must never become a crash.
  try {
    if (app.got_subcommand("run")) return run_action();
    if (app.got_subcommand("analyze")) return analyze_action();
    if (app.got_subcommand("preflight")) return preflight_action();
    if (app.got_subcommand("judge")) return judge_action();
    if (app.got_subcommand("rules")) return rules_action();
    if (app.got_subcommand("explain")) return explain_action();
    if (app.got_subcommand("estimate")) return estimate_action();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ftdiag: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitUsage;
}

}  // namespace ftdiag::cli
