// One function per subcommand; each registers its options on the CLI11 app
// and returns the action to run once parsing succeeded.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace ftdiag::cli {

using Action = std::function<int()>;

Action add_run_command(CLI::App& app);
Action add_analyze_command(CLI::App& app);
Action add_judge_command(CLI::App& app);
Action add_rules_command(CLI::App& app);
Action add_explain_command(CLI::App& app);

}  // namespace ftdiag::cli
