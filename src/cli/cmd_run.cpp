#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "base/redact.h"
#include "cli/commands.h"
#include "cli/diagnosis.h"
#include "cli/exit_codes.h"
#include "cli/finite_range.h"
#include "cli/help_format.h"
#include "cli/redaction_option.h"
#include "cli/save_forecast.h"
#include "cli/text_options.h"
#include "cli/suggest.h"
#include "collectors/environment_beside_job.h"
#include "collectors/post_mortem.h"
#include "journal/crash_files.h"
#include "journal/environment_file.h"
#include "report/run_summary.h"
#include "report/text_report.h"
#include "supervise/exit_mirror.h"
#include "supervise/supervisor.h"

extern char** environ;

namespace ftdiag::cli {

namespace {

// The supervisor's failure codes are the command line's.
static_assert(supervise::kExitCannotSupervise == kExitRunFailed);
static_assert(supervise::kExitCannotExecute == kExitCannotExecute);
static_assert(supervise::kExitNotFound == kExitNotFound);

struct RunArguments {
  supervise::SupervisorOptions options;
  std::vector<std::string> rule_dirs;
  bool quiet = false;
  bool environment = true;  // --no-environment: no environment.json
  bool forecast_save = true;  // --no-save-forecast: no forecast of the checkpoint save
  Redaction redaction = Redaction::on;  // --no-redact: the journal and environment.json as the job had them
  TextOptions text;
};

// The environment the job ran in (the GPUs, the Python installation its
// command uses, the host's settings), read as `ftdiag preflight` reads it,
// in a child started just before the job (collectors/environment_beside_job.h),
// so that reading it costs the job's end nothing once the job has run longer
// than the reading takes.
collectors::EnvironmentBesideJob start_reading_environment(const std::vector<std::string>& job) {
  std::vector<std::string> environment;
  for (char** e = environ; e && *e; ++e) environment.emplace_back(*e);
  return collectors::EnvironmentBesideJob::start({.command = job, .environment = std::move(environment)});
}

// Written to RUN/environment.json once the job has ended. The installation
// is the one the job started with; a driver that changed under a running
// job is beyond this.
std::optional<evidence::EnvironmentSnapshot> record_environment(collectors::EnvironmentBesideJob& reader,
                                                               const supervise::SupervisedJob& supervised, Redaction redaction) {
  auto snapshot = reader.take();
  auto written = supervised.dir ? journal::write_environment_file(*supervised.dir, snapshot, redaction)
                                : Fact<bool>(Missing{MissingReason::failed, "the run folder is no longer open"});
  if (!written) std::fprintf(stderr, "ftdiag: could not record the environment: %s\n", written.missing().detail.c_str());
  return snapshot;
}

// The verdict comes from the supervisor's own state (every journaled record
// folded as it was written), so it is on screen as soon as the job ends,
// however long the journal; `ftdiag analyze` of the run folder folds the same
// records the same way and gives the same verdict.
void print_summary_and_verdict(const RunArguments& args, const supervise::SupervisedJob& job,
                               const std::optional<evidence::EnvironmentSnapshot>& snapshot) {
  evidence::EvidenceDocument document;
  document.generator = "ftdiag " FTDIAG_VERSION;
  document.sources.push_back(job.run_dir.string());
  auto& run = evidence::host_named(document, evidence::node_of(job.run.started)).runs.emplace_back(job.run);
  // The probes' files are not journal records: read them as analyze does,
  // and name their frames before the summary shows them.
  run.crashes = journal::read_crash_files(job.run_dir);
  if (snapshot) evidence::add_to_host(*snapshot, document.hosts.front());
  // Its cores and the names of the faults' and crashes' code, as analyze finds them.
  ::unsetenv("DEBUGINFOD_URLS");
  // The failure words on its console's last lines, as analyze marks them.
  const auto words = load_failure_words();
  collectors::finish_live_document(document, {.failure_words = words ? &words.value() : nullptr});
  // The environment and the probes' files are as read: the whole document
  // passes the redaction step before it is judged or shown.
  if (!redact_for_output(document, args.redaction, "run")) return;
  auto rules = load_rule_set(args.rule_dirs);
  if (!rules) {
    // The rules are broken (said above): how the job ended is still worth saying.
    const std::string text = report::render_run_summary(document.hosts.front().runs.front(), job.run_dir.string(), text_style_for(stderr, args.text));
    std::fputs(printable(text, args.redaction).c_str(), stderr);
    return;
  }
  const auto judgement = judge_document(document, rules.value(), job.run_dir.parent_path().string());
  report::TextReportInput input{.document = document, .judgement = judgement};
  input.runs.push_back({evidence::RunRef{0, 0}, job.run_dir.string()});
  input.more_command = fmt::format("ftdiag analyze {} --verbose", job.run_dir.string());
  const std::string text = report::render_text_report(input, text_style_for(stderr, args.text));
  std::fputs(printable(text, args.redaction).c_str(), stderr);
}

int run_supervised(RunArguments& args) {
  // First, while ftdiag runs no other thread: the reader is a fork.
  std::optional<collectors::EnvironmentBesideJob> environment_reader;
  if (args.environment) {
    environment_reader.emplace(start_reading_environment(args.options.argv));
    if (environment_reader->pid() > 0) args.options.own_children.push_back(environment_reader->pid());
    args.options.job_started = [&environment_reader] { environment_reader->go(); };
  }
  auto phases = load_phase_table();
  if (phases) args.options.phases = &phases.value();
  const auto line_events = load_line_events();
  if (line_events) args.options.line_events = &*line_events;
  if (args.forecast_save) args.options.save_forecaster = save_forecaster_for(args.options.argv, args.rule_dirs);
  auto outcome = supervise::supervise(args.options);
  if (auto* failure = std::get_if<supervise::SupervisorFailure>(&outcome)) {
    std::fprintf(stderr, "%s\n", failure->message.c_str());
    return failure->exit_code;
  }
  const auto& job = std::get<supervise::SupervisedJob>(outcome);
  std::optional<evidence::EnvironmentSnapshot> snapshot;
  if (environment_reader) {
    try {
      snapshot = record_environment(*environment_reader, job, args.redaction);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ftdiag: could not record the environment: %s\n", e.what());
    }
  }
  if (!args.quiet) {
    // A diagnosis that fails must never change how the job's end is reported.
    try {
      print_summary_and_verdict(args, job, snapshot);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ftdiag: could not diagnose the run: %s\n", e.what());
    }
  }
  supervise::mirror_exit(job.status);
}

}  // namespace

Action add_run_command(CLI::App& app, JobCommand command_after_dashes) {
  auto args = std::make_shared<RunArguments>();
  CLI::App* run = app.add_subcommand("run", "Run a training job under supervision and record its life and death");
  run->add_option("--job-dir", args->options.job_dir,
                  "Job directory (shared by all ranks; default: a new folder under ./ftdiag-runs/)");
  run->add_option("--interval", args->options.sample_interval_s, "Seconds between memory samples")
      ->default_val(0.5)
      ->check(finite_in_range(0.01, 3600));
  run->add_option("--heartbeat", args->options.heartbeat_interval_s,
                  "Seconds between heartbeats: records synced to disk that tell a node that vanished from one whose "
                  "job ended")
      ->default_val(5)
      ->check(finite_in_range(0.1, 3600));
  run->add_flag("--quiet,-q", args->quiet, "No summary or verdict on stderr when the job ends");
  add_text_options(*run, args->text);
  run->add_flag("--no-netlink", args->options.disable_netlink,
                "Do not use the netlink process connector (see deaths by waitpid and /proc scans only)");
  run->add_flag("--no-probes", [args](std::int64_t) { args->options.probes = false; },
                "Put nothing into the job's processes: no crash handler (LD_PRELOAD), no Python probe, no PYTHONFAULTHANDLER");
  run->add_flag("--no-environment", [args](std::int64_t) { args->environment = false; },
                "Do not record the environment the job runs in (GPUs, the Python installation, host settings: environment.json)");
  run->add_flag("--no-save-forecast", [args](std::int64_t) { args->forecast_save = false; },
                "Do not forecast the checkpoint save from the command's configs and the memory the job holds once it trains "
                "(by default a save that will not fit is warned of on stderr before it begins)");
  run->add_option("--rules", args->rule_dirs, "A directory (or file) of extra rules for the verdict; repeatable");
  run->add_flag_callback("--no-redact", [args] { args->redaction = Redaction::off; args->options.redact = false; },
                         "Write journal.jsonl and environment.json and print the summary with secrets (tokens, keys, "
                         "passwords) as the job had them; the run record says redaction was off (docs/redaction.md)");
  // The job's command: after "--" (taken out before parsing), or from the
  // first word that is not one of ftdiag's options, passed through as is.
  run->prefix_command();
  run->allow_extras();
  set_usage(*run, "[OPTIONS] [--] COMMAND [ARGS...]");
  run->footer("Examples:\n"
              "  ftdiag run -- deepspeed train.py --deepspeed ds_z2.json\n"
              "  ftdiag run --job-dir /shared/job-42 -- torchrun --nproc-per-node 8 train.py\n"
              "The job's output passes through unchanged; when it ends, a summary and the verdict are printed on stderr,\n"
              "and the job's exit status is ftdiag's. Later: ftdiag analyze JOB_DIR.");
  return [args, run, job_command = std::move(command_after_dashes)] {
    const auto& command = *job_command;
    const auto extras = run->remaining();
    // Before the command, a word starting with "-" is an option of ours we do not know.
    if (!extras.empty() && (!command.empty() || extras.front().rfind('-', 0) == 0)) {
      const std::string& word = extras.front();
      const auto closest = closest_name(word.substr(0, word.find('=')), long_options_of(*run));
      // Printed through the redaction step: `--hf-tokn=hf_...` carries its value.
      const std::string shown = redact_argv({word}).front();
      std::fprintf(stderr, "ftdiag run: unknown option \"%s\"%s (see ftdiag run --help)\n", shown.c_str(),
                   closest ? fmt::format(": did you mean \"{}\"?", *closest).c_str() : "");
      return kExitUsage;
    }
    args->options.argv = command.empty() ? extras : command;
    if (args->options.argv.empty()) {
      std::fprintf(stderr, "ftdiag run: no command given (usage: ftdiag run [OPTIONS] -- COMMAND [ARGS...])\n");
      return kExitUsage;
    }
    return run_supervised(*args);
  };
}

}  // namespace ftdiag::cli
