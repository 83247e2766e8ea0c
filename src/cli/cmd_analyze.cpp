#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/diagnosis.h"
#include "cli/exit_codes.h"
#include "cli/newest_job.h"
#include "cli/redaction_option.h"
#include "cli/text_options.h"
#include "collectors/kernel_log_collector.h"
#include "facts/facts_json.h"
#include "journal/job_directory.h"
#include "report/report_json.h"
#include "base/files_at.h"
#include "report/anonymize.h"
#include "report/report_html.h"
#include "report/report_markdown.h"
#include "report/text_report.h"

namespace ftdiag::cli {

namespace {

struct AnalyzeArguments {
  std::vector<std::string> paths;
  std::string format = "text";
  std::vector<std::string> rule_dirs;
  std::vector<std::string> kernel_logs;
  std::vector<std::string> cores;
  bool no_host_logs = false;
  bool facts = false;
  Redaction redaction = Redaction::on;
  TextOptions text;
  bool anonymize = false;
  std::string output;  // --output FILE; empty: stdout
};

// The report where the user asked: stdout, or a file written through the
// one safe way of creating files (base/files_at.h: no link followed, 0600).
int deliver(const AnalyzeArguments& args, const std::string& text) {
  if (args.output.empty()) {
    std::cout << text;
    return kExitOk;
  }
  auto written = replace_file(args.output, text);
  if (!written) {
    std::fprintf(stderr, "ftdiag analyze: cannot write %s: %s\n", args.output.c_str(), written.missing().detail.c_str());
    return kExitInputUnreadable;
  }
  std::fprintf(stderr, "ftdiag analyze: wrote the %s report to %s\n", args.format.c_str(), args.output.c_str());
  return kExitOk;
}

int exit_code_for(const Missing& missing) {
  return missing.reason == MissingReason::permission_denied ? kExitInputUnreadable : kExitInputNotFound;
}

// When every collector that recognised something failed to read it: the
// reason to exit with (permission denied when any was).
std::optional<Missing> nothing_read(const evidence::EvidenceDocument& document) {
  if (document.collectors.empty()) return std::nullopt;
  std::optional<Missing> reason;
  for (const auto& collector : document.collectors) {
    if (collector.outcome) return std::nullopt;
    if (!reason || collector.outcome.missing().reason == MissingReason::permission_denied) reason = collector.outcome.missing();
  }
  return reason;
}

// Where a run's folder is: a PATH that is itself the run folder, or the
// folder of that name under the PATH that holds it.
std::string run_location(const std::vector<std::string>& paths, const evidence::RunEvidence& run) {
  namespace fs = std::filesystem;
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::exists(fs::path(path) / evidence::kJournalFileName, ec) && fs::path(path).filename() == run.directory) return path;
    if (fs::exists(fs::path(path) / run.directory / evidence::kJournalFileName, ec)) return (fs::path(path) / run.directory).string();
  }
  return paths.empty() ? run.directory : paths.front();
}

int analyze(const AnalyzeArguments& args) {
  if (args.format == "html" && args.output.empty() && ::isatty(STDOUT_FILENO)) {
    std::fprintf(stderr, "ftdiag analyze: --format html writes a file: add --output FILE (or redirect stdout)\n");
    return kExitUsage;
  }
  if (args.anonymize && args.format == "json") {
    // JSON is read by programs: names in it are kept whole, or they would not match.
    std::fprintf(stderr, "ftdiag analyze: --anonymize is for the text, markdown and html reports, not --format json\n");
    return kExitUsage;
  }
  auto rules = load_rule_set(args.rule_dirs);
  if (!rules) return kExitRulesInvalid;
  for (const auto& file : args.kernel_logs) {
    if (::access(file.c_str(), R_OK) != 0) {
      const int error = errno;
      std::fprintf(stderr, "ftdiag analyze: cannot read the kernel log %s: %s\n", file.c_str(), std::strerror(error));
      return error == ENOENT ? kExitInputNotFound : kExitInputUnreadable;
    }
    if (auto refused = collectors::kernel_log_refusal(file)) {
      std::fprintf(stderr, "ftdiag analyze: %s\n", refused->c_str());
      return kExitInputUnreadable;
    }
  }
  for (const auto& file : args.cores) {
    if (::access(file.c_str(), R_OK) != 0) {
      const int error = errno;
      std::fprintf(stderr, "ftdiag analyze: cannot read the core file %s: %s\n", file.c_str(), std::strerror(error));
      return error == ENOENT ? kExitInputNotFound : kExitInputUnreadable;
    }
  }
  std::vector<std::string> paths = args.paths;
  const EvidenceSources sources{.kernel_logs = {args.kernel_logs.begin(), args.kernel_logs.end()},
                                .read_this_host = !args.no_host_logs,
                                .cores = {args.cores.begin(), args.cores.end()}};
  auto document = collect_evidence({paths.begin(), paths.end()}, sources);
  // A folder of jobs (./ftdiag-runs, where `ftdiag run` puts them) holds
  // nothing the collectors read at its own level: its newest job is meant.
  if (!document && document.missing().reason == MissingReason::not_present && paths.size() == 1) {
    if (auto newest = newest_job_in(paths.front())) {
      std::fprintf(stderr, "ftdiag analyze: %s holds %zu job%s; analyzing the newest, %s\n", paths.front().c_str(), newest->jobs,
                   newest->jobs == 1 ? "" : "s", newest->job_dir.c_str());
      paths = {newest->job_dir.string()};
      document = collect_evidence({paths.begin(), paths.end()}, sources);
    }
  }
  if (!document) {
    std::fprintf(stderr, "ftdiag analyze: %s\n", document.missing().detail.c_str());
    return exit_code_for(document.missing());
  }
  // Before anything is judged or printed: the facts, the verdict and every
  // renderer see redacted values only.
  if (!redact_for_output(document.value(), args.redaction, "analyze")) return kExitInternal;
  // Something was recognised but none of it could be read (every file
  // unreadable to this user, say): there is nothing to judge, and a verdict
  // of "unknown" would hide why.
  if (auto unread = nothing_read(document.value())) {
    for (const auto& collector : document->collectors) {
      std::fprintf(stderr, "ftdiag analyze: the %s collector could not read its evidence: %s\n", collector.name.c_str(),
                   collector.outcome.missing().detail.c_str());
    }
    return exit_code_for(*unread);
  }
  if (args.facts) {
    // What the rules see, for writing a rule or a rule test from a real job.
    std::cout << facts::facts_to_json(document_facts(document.value(), rules.value()))
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << '\n';
    return kExitOk;
  }
  const auto judgement = judge_document(document.value(), rules.value(), fmt::format("{}", fmt::join(paths, " ")));
  if (args.format == "json") {
    return deliver(args, report::report_to_json(document.value(), judgement).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n');
  }
  std::vector<report::RunPlace> runs;
  evidence::for_each_run(document.value(), [&](const evidence::RunRef& ref, const evidence::RunEvidence& run) {
    runs.push_back({ref, run_location(paths, run)});
  });
  std::vector<std::string> host_names;
  for (const auto& host : document->hosts) host_names.push_back(host.name);
  const auto shared = [&](std::string text) {
    if (args.anonymize) text = report::anonymize(text, host_names);
    return printable(text, args.redaction);
  };
  if (args.format == "markdown" || args.format == "html") {
    const auto facts = document_facts(document.value(), rules.value());
    const report::ReportInput input{.document = document.value(), .judgement = judgement, .facts = facts, .runs = runs,
                                    .command = fmt::format("ftdiag analyze {} --format {}", fmt::join(paths, " "), args.format)};
    return deliver(args, shared(args.format == "html" ? report::render_html(input) : report::render_markdown(input)));
  }
  report::TextReportInput input{.document = document.value(), .judgement = judgement, .runs = runs};
  for (const auto& collector : document->collectors) {
    if (!collector.outcome) input.not_read.push_back(fmt::format("{}: {}", collector.name, collector.outcome.missing().detail));
  }
  // A core the user named that could not be unwound is said, not dropped.
  for (const auto& host : document->hosts) {
    for (const auto& crash : host.crashes) {
      const bool named = std::find(args.cores.begin(), args.cores.end(), crash.from.file) != args.cores.end();
      if (named && crash.frames.empty() && !crash.problems.empty()) {
        input.problems.push_back(fmt::format("the core file {} could not be used: {}", crash.from.file, crash.problems.front()));
      }
    }
  }
  input.more_command = fmt::format("ftdiag analyze {} --verbose", fmt::join(paths, " "));
  auto style = text_style_for(stdout, args.text);
  if (!args.output.empty()) style.colour = args.text.colour == "always";  // a file is no terminal
  return deliver(args, shared(report::render_text_report(input, style)));
}

}  // namespace

Action add_analyze_command(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArguments>();
  CLI::App* cmd = app.add_subcommand("analyze", "Post-mortem of a crashed job: a job directory of `ftdiag run`, or any folder or file of logs, configs, checkpoints and kernel logs");
  cmd->add_option("path", args->paths, "Job directory, one run folder in it, or several such paths")->required();
  cmd->footer("It reads what a job left under each PATH: ftdiag's run folders; console, launcher and scheduler logs (any\n"
              "text file: torchrun's, DeepSpeed's, Slurm's); kernel logs (dmesg, journalctl -k, kern.log); DeepSpeed and\n"
              "trainer configs; checkpoints; environment reports (collect_env, ds_report, nvidia-smi, pip list).\n"
              "Examples:\n"
              "  ftdiag analyze ./outputs\n"
              "  ftdiag analyze train.log --kernel-log dmesg.txt\n"
              "  ftdiag analyze ftdiag-runs/ --format json > report.json\n"
              "  ftdiag analyze ./outputs --format markdown --anonymize -o issue.md\n"
              "  ftdiag analyze ftdiag-runs/ --format html --output report.html");
  cmd->add_option("--format", args->format,
                  "Output: text, json, markdown (to paste into an issue) or html (one self-contained file with the memory timeline; "
                  "with --output)")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}))
      ->type_name("FORMAT");
  cmd->add_option("--output,-o", args->output, "Write the report to FILE instead of stdout")->type_name("FILE");
  cmd->add_flag("--anonymize", args->anonymize,
                "Also replace host names, user names and private paths (text, markdown, html), for a report shared in public");
  add_text_options(*cmd, args->text);
  cmd->add_option("--rules", args->rule_dirs, "A directory (or file) of extra rules; repeatable");
  cmd->add_option("--kernel-log", args->kernel_logs,
                  "The kernel log of the job's node (dmesg, journalctl -k or kern.log output), for a post-mortem on another machine; repeatable");
  cmd->add_option("--core", args->cores,
                  "A core file of a process of the job: every thread is unwound and named (cores in the run folders and "
                  "the job's working directory are found without it); repeatable");
  cmd->add_flag("--facts", args->facts,
                "Print the facts the rules judge (JSON: name -> value; missing facts left out) instead of the verdict");
  cmd->add_flag("--no-host-logs", args->no_host_logs,
                "Do not read this machine's kernel log (/dev/kmsg, journalctl, /var/log) for runs recorded here");
  add_no_redact_flag(*cmd, args->redaction);
  return [args] { return analyze(*args); };
}

}  // namespace ftdiag::cli
