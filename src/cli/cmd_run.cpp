#include <unistd.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "evidence/job_reader.h"
#include "report/run_summary.h"
#include "supervise/exit_mirror.h"
#include "supervise/supervisor.h"

namespace ftdiag::cli {

namespace {

struct RunArguments {
  supervise::SupervisorOptions options;
  bool quiet = false;
};

void print_summary(const std::filesystem::path& run_dir) {
  auto run = evidence::read_run_directory(run_dir);
  if (!run) {
    std::fprintf(stderr, "ftdiag: the record in %s could not be read back: %s\n", run_dir.c_str(),
                 run.missing().detail.c_str());
    return;
  }
  std::fputs(report::render_run_summary(run.value(), run_dir.string()).c_str(), stderr);
}

int run_supervised(RunArguments& args) {
  auto outcome = supervise::supervise(args.options);
  if (auto* failure = std::get_if<supervise::SupervisorFailure>(&outcome)) {
    std::fprintf(stderr, "%s\n", failure->message.c_str());
    return failure->exit_code;
  }
  const auto& job = std::get<supervise::SupervisedJob>(outcome);
  if (!args.quiet) print_summary(job.run_dir);
  supervise::mirror_exit(job.status);
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArguments>();
  CLI::App* run = app.add_subcommand("run", "Run a training job under supervision and record its life and death");
  run->add_option("--job-dir", args->options.job_dir,
                  "Job directory (shared by all ranks; default: a new folder under ./ftdiag-runs/)");
  run->add_option("--interval", args->options.sample_interval_s, "Seconds between memory samples")
      ->default_val(0.5)
      ->check(CLI::Range(0.01, 3600.0));
  run->add_flag("--quiet,-q", args->quiet, "No summary on stderr when the job ends");
  run->add_flag("--no-netlink", args->options.disable_netlink,
                "Do not use the netlink process connector (see deaths by waitpid and /proc scans only)");
  run->add_option("command", args->options.argv, "The job's command and its arguments, after --")
      ->required();
  run->prefix_command();
  return [args] { return run_supervised(*args); };
}

}  // namespace ftdiag::cli
