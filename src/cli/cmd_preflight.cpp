// `ftdiag preflight [--python PATH] [--deepspeed FILE] [--model DIR] [-- CMD...]`:
// the environment checks before training starts, through the same evidence,
// facts and rules engine as a verdict (the rules whose role is "check").
// Exit 0: nothing found (notes at most); 1: problems found; 2: usage; 4: a
// file named by --deepspeed or --model cannot be read or parsed, or holds a
// value no framework accepts; 5: the rules failed to load.
//
// `--save-environment FILE` also writes what was read in environment.json's
// form (journal/environment_file.h): put into a run folder, `ftdiag
// analyze` judges a later crash with it.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/diagnosis.h"
#include "cli/exit_codes.h"
#include "cli/finite_range.h"
#include "cli/help_format.h"
#include "cli/redaction_option.h"
#include "cli/text_options.h"
#include "collect/configs/command_configs.h"
#include "collect/configs/json_settings.h"
#include "collect/host/host_name.h"
#include "collect/weights/model_weights.h"
#include "collectors/environment.h"
#include "journal/environment_file.h"
#include "report/checks_text.h"
#include "report/preflight_inputs.h"
#include "report/report_json.h"

extern char** environ;

namespace ftdiag::cli {

namespace {

namespace fs = std::filesystem;

struct PreflightArguments {
  std::vector<std::string> command;  // after "--"
  std::string python;
  std::string deepspeed;
  std::string model;
  std::string format = "text";
  std::vector<std::string> rule_dirs;
  std::string save_environment;
  bool no_gpu = false;
  double gpu_timeout_s = 15;
  Redaction redaction = Redaction::on;
  TextOptions text;
};

std::vector<std::string> own_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}

// A configuration named on the command line, flattened to dotted keys
// ("zero_optimization.stage" = "2"). One that cannot be read or parsed is the
// user's input unusable: said, and preflight exits 4 rather than report
// "0 errors" on checks it could not run.
Fact<evidence::ConfigEvidence> read_config(const std::string& file, const std::string& kind) {
  auto settings = collect::read_json_settings(file);
  if (!settings) return Missing{settings.missing().reason, fmt::format("cannot read {}: {}", file, settings.missing().detail)};
  evidence::ConfigEvidence config;
  config.from = {.collector = "preflight", .file = file};
  config.kind = kind;
  config.settings = std::move(settings).value();
  return config;
}

int unusable_input(const std::string& detail) {
  std::fprintf(stderr, "ftdiag preflight: %s\n", detail.c_str());
  return kExitInputUnreadable;
}

int preflight(const PreflightArguments& args) {
  for (const auto& [flag, path, want_directory] : {std::tuple{"--deepspeed", args.deepspeed, false},
                                                   std::tuple{"--model", args.model, true}}) {
    if (path.empty()) continue;
    std::error_code ec;
    const bool ok = want_directory ? fs::is_directory(path, ec) : fs::is_regular_file(path, ec);
    if (!ok) {
      std::fprintf(stderr, "ftdiag preflight: %s %s: not a %s\n", flag, path.c_str(), want_directory ? "directory" : "file");
      return kExitUsage;
    }
  }
  const auto environment = own_environment();
  collectors::EnvironmentRequest request{
      .command = args.command,
      .python = args.python.empty() ? std::nullopt : std::optional<std::string>(args.python),
      .environment = environment,
      .probe_gpus = !args.no_gpu,
      .gpu_deadline = std::chrono::milliseconds(static_cast<long>(args.gpu_timeout_s * 1000))};
  auto snapshot = collectors::collect_environment(request);
  // The interpreter asked for by name must be the one read: one that could
  // not be is the user's input unusable, not a check that quietly passed.
  if (!args.python.empty()) {
    const auto& read = snapshot.python ? snapshot.python->read : Fact<bool>(snapshot.python.missing());
    if (!read) return unusable_input(read.missing().detail);
  }
  if (!args.save_environment.empty()) {
    auto written = journal::write_environment_file(args.save_environment, snapshot, args.redaction);
    if (!written) {
      std::fprintf(stderr, "ftdiag preflight: %s\n", written.missing().detail.c_str());
      return kExitInputUnreadable;
    }
  }
  auto rules = load_rule_set(args.rule_dirs);
  if (!rules) return kExitRulesInvalid;

  evidence::EvidenceDocument document;
  document.generator = std::string("ftdiag ") + FTDIAG_VERSION;
  auto& host = evidence::host_named(document, collect::host_name());
  evidence::add_to_host(snapshot, host);
  if (!args.deepspeed.empty()) {
    auto config = read_config(args.deepspeed, "deepspeed");
    if (!config) return unusable_input(config.missing().detail);
    host.configs.push_back(std::move(config).value());
  }
  // The job's command says the launch (ranks per node, nodes, the trainer's
  // arguments) and names the configs and the model the job will read.
  if (!args.command.empty()) {
    std::error_code ec;
    auto named = collect::read_command_configs(args.command, fs::current_path(ec), "the command after --");
    for (auto& config : named.configs) {
      host.configs.push_back({.from = {.collector = "preflight", .file = config.file}, .kind = std::move(config.kind),
                              .settings = std::move(config.settings)});
    }
    for (const auto& why : named.unread) {
      std::fprintf(stderr, "ftdiag preflight: the command names a file not read: %s\n", printable(why, args.redaction).c_str());
    }
  }
  if (!args.model.empty()) {
    const auto model_config = fs::path(args.model) / "config.json";
    std::error_code ec;
    if (fs::exists(model_config, ec)) {
      auto config = read_config(model_config.string(), "model-config");
      if (!config) return unusable_input(config.missing().detail);
      host.configs.push_back(std::move(config).value());
    }
    // The weights' headers size the model exactly (the memory model's input).
    if (auto weights = collect::read_model_weights(args.model)) {
      host.configs.push_back({.from = {.collector = "preflight", .file = args.model}, .kind = "model-weights",
                              .settings = std::move(weights).value()});
    } else if (weights.missing().reason != MissingReason::not_present && weights.missing().reason != MissingReason::unsupported) {
      std::fprintf(stderr, "ftdiag preflight: the model's weights were not read: %s\n", weights.missing().detail.c_str());
    }
  }
  document.collectors.push_back({.name = "environment", .section = "hosts[].gpu, hosts[].python, hosts[].system"});
  if (!redact_for_output(document, args.redaction, "preflight")) return kExitInternal;
  const auto facts = document_facts(document, rules.value());
  // The save check needs the stage and the model: a value in them no
  // framework accepts ("stage": "three", hidden_size -4096) is the input's
  // fault, said as such, not a check quietly skipped.
  if (const auto& save = facts.get("estimate.save_peak_bytes").value;
      !save && save.missing().reason == MissingReason::unparseable && (!args.deepspeed.empty() || !args.model.empty())) {
    return unusable_input("the checkpoint save's memory cannot be checked: " + save.missing().detail);
  }
  const auto judgement = rules::judge(rules.value().rules, facts);
  if (args.format == "json") {
    auto report = report::report_to_json(document, judgement);
    report.erase("verdict");  // nothing died: no verdict to give
    report.erase("findings");
    std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    const auto style = text_style_for(stdout, args.text);
    std::cout << printable(report::render_preflight_inputs(facts, style) + "\n" + report::render_checks(judgement.checks), args.redaction);
  }
  const auto worst = rules::worst_severity(judgement);
  return worst && *worst != rules::Severity::info ? kExitChecksFailed : kExitOk;
}

}  // namespace

Action add_preflight_command(CLI::App& app, JobCommand command_after_dashes) {
  auto args = std::make_shared<PreflightArguments>();
  CLI::App* cmd = app.add_subcommand(
      "preflight", "Check the environment before training: CUDA driver vs torch's build, extensions, /dev/shm, limits");
  set_usage(*cmd, "[OPTIONS] [-- COMMAND [ARGS...]]");
  cmd->footer("Examples:\n"
              "  ftdiag preflight\n"
              "  ftdiag preflight --deepspeed ds_z2.json --model ./Llama-2-7b-hf -- deepspeed train.py\n"
              "With -- COMMAND, the interpreter and the configs are the ones that command would use.\n"
              "Exit status: 0 nothing found, 1 an error or a warning.");
  cmd->add_option("--python", args->python, "The interpreter the job will use (default: the command's, or python3 on PATH)");
  cmd->add_option("--deepspeed", args->deepspeed, "The job's DeepSpeed config (JSON)");
  cmd->add_option("--model", args->model, "The model's directory (config.json, safetensors)");
  cmd->add_option("--format", args->format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--color", args->text.colour, "Colour the text: auto (on a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");
  cmd->add_option("--rules", args->rule_dirs, "A directory (or file) of extra rules; repeatable");
  cmd->add_flag("--no-gpu", args->no_gpu, "Do not ask the GPU driver (no probe process)");
  cmd->add_option("--gpu-timeout", args->gpu_timeout_s, "Seconds the GPU probe may take (a broken driver hangs)")
      ->check(finite_in_range(0.1, 600));
  add_no_redact_flag(*cmd, args->redaction);
  cmd->add_option("--save-environment", args->save_environment,
                  "Also write the environment read to FILE (the form of a run folder's environment.json)");
  return [args, command = std::move(command_after_dashes)] {
    args->command = *command;
    return preflight(*args);
  };
}

}  // namespace ftdiag::cli
