#include "cli/app.h"

#include <cstdio>
#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/redact.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/help_format.h"
#include "cli/suggest.h"

namespace ftdiag::cli {

namespace {

// For `ftdiag run|preflight [options] -- CMD...`: removes "--" and what
// follows from argv and returns it. Empty when the command has no "--" (for
// `run`, the first word that is not an option then starts the job's command).
// The command's own options say which take a value as the next word, so an
// option's value is never mistaken for the job's command.
std::vector<std::string> take_command_after_dashes(int& argc, char** argv, const CLI::App& app) {
  if (argc < 2 || (std::string_view(argv[1]) != "run" && std::string_view(argv[1]) != "preflight")) return {};
  const CLI::App* command = nullptr;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == argv[1]) command = sub;
  }
  if (!command) return {};
  for (int i = 2; i < argc; ++i) {
    const std::string_view word(argv[i]);
    if (word == "--") {
      std::vector<std::string> job(argv + i + 1, argv + argc);
      argc = i;
      return job;
    }
    if (word.empty() || word[0] != '-') return {};  // the job's command started before any "--"
    if (word.find('=') != std::string_view::npos) continue;  // --option=value
    const CLI::Option* option = command->get_option_no_throw(std::string(word));
    if (option && option->get_items_expected_min() > 0) ++i;
  }
  return {};
}

// A first word that names no command: say so, and which one was meant when
// one is close ("analzye" -> analyze), rather than CLI11's "A subcommand is
// required". Nothing for an option, or a real command.
std::optional<std::string> unknown_command_message(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || argv[1][0] == '\0') return std::nullopt;
  const std::string_view word(argv[1]);
  if (word.size() > 64) return fmt::format("ftdiag: unknown command (see ftdiag --help)");
  std::vector<std::string> names;
  for (const auto* command : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(command->get_name());
  if (std::find(names.begin(), names.end(), word) != names.end()) return std::nullopt;
  const auto closest = closest_name(word, names, /*prefixes=*/true);
  // What was typed is printed through the redaction step: a mistyped word may be a pasted token.
  std::string message = fmt::format("ftdiag: unknown command \"{}\"", redact_text(word));
  if (closest) message += fmt::format(": did you mean \"ftdiag {}\"?", *closest);
  message += fmt::format("\nThe commands: {} (see ftdiag --help)", fmt::join(names, ", "));
  return message;
}

// After a parse error: the first word that looks like an option and is none
// of the chosen command's, with the option it is closest to, when one is.
std::optional<std::string> option_suggestion(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = nullptr;
  for (const auto* sub : app.get_subcommands()) command = sub;
  if (!command) return std::nullopt;
  const auto names = long_options_of(*command);
  for (int i = 2; i < argc; ++i) {
    std::string_view word(argv[i]);
    if (word == "--") break;
    if (!word.starts_with("--")) continue;
    word = word.substr(0, word.find('='));
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    const auto closest = closest_name(word, names);
    if (!closest) return std::nullopt;
    return fmt::format("ftdiag {}: unknown option \"{}\": did you mean \"{}\"?", command->get_name(), redact_text(word), *closest);
  }
  return std::nullopt;
}

}  // namespace

int run_app(int argc, char** argv) {
  // The job's command, after "--": taken out of argv once the commands and
  // their options are declared, before parsing.
  auto job_command = std::make_shared<std::vector<std::string>>();
  CLI::App app{"ftdiag: why did my fine-tuning job die?", "ftdiag"};
  // Before the commands are added: each takes the app's formatter.
  app.formatter(std::make_shared<HelpFormatter>());
  app.footer("Examples:\n"
             "  ftdiag run -- deepspeed train.py --deepspeed ds_z2.json    supervise a job, diagnose its death\n"
             "  ftdiag analyze ./outputs --kernel-log dmesg.txt            post-mortem of what a job left\n"
             "  ftdiag preflight -- torchrun --nproc-per-node 8 train.py   check the environment first\n"
             "ftdiag COMMAND --help says more; docs/cli.md has every option.");
  app.set_version_flag("--version", std::string("ftdiag ") + FTDIAG_VERSION);
  app.require_subcommand(1);
  Action run_action = add_run_command(app, job_command);
  Action preflight_action = add_preflight_command(app, job_command);
  Action analyze_action = add_analyze_command(app);
  Action judge_action = add_judge_command(app);
  Action rules_action = add_rules_command(app);
  Action explain_action = add_explain_command(app);
  Action estimate_action = add_estimate_command(app);
  *job_command = take_command_after_dashes(argc, argv, app);
  if (const auto unknown = unknown_command_message(app, argc, argv)) {
    std::fprintf(stderr, "%s\n", unknown->c_str());
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's message quotes the arguments it refused: through the redaction step, as
    // everything ftdiag prints (`--hf-tokn=hf_...` carries its value).
    std::fprintf(stderr, "%s\nRun with --help for more information.\n", redact_text(e.what()).c_str());
    if (const auto suggestion = option_suggestion(app, argc, argv)) std::fprintf(stderr, "%s\n", suggestion->c_str());
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
