// One function per subcommand; each registers its options on the CLI11 app
// and returns the action to run once parsing succeeded.
#pragma once

#include <functional>
#include <memory>

#include <CLI/CLI.hpp>

namespace ftdiag::cli {

using Action = std::function<int()>;

// `command_after_dashes`: the words after `ftdiag run ... --`, taken out of
// argv before parsing (once the commands' options are declared), so the job's
// own options ("--job-dir" included) are never read as ftdiag's.
using JobCommand = std::shared_ptr<const std::vector<std::string>>;
Action add_run_command(CLI::App& app, JobCommand command_after_dashes);
Action add_analyze_command(CLI::App& app);
Action add_preflight_command(CLI::App& app, JobCommand command_after_dashes);
Action add_judge_command(CLI::App& app);
Action add_rules_command(CLI::App& app);
Action add_explain_command(CLI::App& app);
Action add_estimate_command(CLI::App& app);

}  // namespace ftdiag::cli
