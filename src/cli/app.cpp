#include "cli/app.h"

#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"

namespace ftdiag::cli {

int run_app(int argc, char** argv) {
  CLI::App app{"ftdiag: why did my fine-tuning job die?", "ftdiag"};
  app.set_version_flag("--version", std::string("ftdiag ") + FTDIAG_VERSION);
  app.require_subcommand(1);
  Action run_action = add_run_command(app);
  Action analyze_action = add_analyze_command(app);
  Action judge_action = add_judge_command(app);
  Action rules_action = add_rules_command(app);
  Action explain_action = add_explain_command(app);
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
    if (app.got_subcommand("judge")) return judge_action();
    if (app.got_subcommand("rules")) return rules_action();
    if (app.got_subcommand("explain")) return explain_action();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ftdiag: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitUsage;
}

}  // namespace ftdiag::cli
