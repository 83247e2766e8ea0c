#include "cli/save_forecast.h"

#include <cstdlib>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "base/redact.h"
#include "base/units.h"
#include "cli/diagnosis.h"
#include "collect/configs/command_configs.h"
#include "collect/host/gpu_devices.h"
#include "estimate/training_setup.h"
#include "facts/estimate_facts.h"
#include "facts/estimate_inputs.h"
#include "rules/engine.h"

namespace ftdiag::cli {

namespace {

constexpr const char* kSaveCause = "host-oom-checkpoint-save";


// When the first save comes, as the Trainer's arguments say it.
std::string first_save_of(const facts::FactSet& facts) {
  const auto strategy = facts.value_of<std::string>("config.save_strategy");
  if (strategy == "epoch") return "at the end of the first epoch (save_strategy epoch)";
  if (strategy == "no") return "at the end of training (save_strategy no: only the final model is saved)";
  if (auto steps = facts.value_of<std::int64_t>("config.save_steps"); steps && *steps > 0 && (!strategy || strategy == "steps")) {
    return fmt::format("at step {} (save_steps)", *steps);
  }
  return {};
}

class ConfigSaveForecaster final : public supervise::SaveForecaster {
 public:
  ConfigSaveForecaster(rules::RuleSet rules, facts::FactSet config_facts, facts::ModelFromEvidence model, estimate::TrainingSetup setup)
      : rules_(std::move(rules)), config_facts_(std::move(config_facts)), model_(std::move(model)), setup_(setup) {}

  evidence::SaveForecast forecast(const supervise::MeasuredMemory& measured) override {
    auto facts = config_facts_;
    auto setup = setup_;
    setup.rank_baseline_bytes = measured.held_bytes / static_cast<double>(setup.gpus_per_node);
    setup.rank_baseline_measured = true;
    setup.rank_baseline_includes_states = setup.train_on_cpu;
    const bool cgroup = measured.capacity_source.find("cgroup") != std::string::npos;
    facts.set(cgroup ? "cgroup.limit_bytes" : "node.mem_total_bytes", static_cast<std::int64_t>(measured.capacity_bytes), "/live");
    facts::set_estimate_facts(model_, setup, facts.get("config.zero_stage").pointer, "/live", facts);

    evidence::SaveForecast out;
    out.held_bytes = static_cast<evidence::Bytes>(measured.held_bytes);
    out.capacity_bytes = static_cast<evidence::Bytes>(measured.capacity_bytes);
    out.capacity_source = measured.capacity_source;
    out.predicted_peak_bytes = static_cast<evidence::Bytes>(facts.value_of<std::int64_t>("estimate.save_peak_bytes").value_or(0));
    out.setup = facts.value_of<std::string>("estimate.setup").value_or("");
    out.formula = facts.value_of<std::string>("estimate.save_peak_formula").value_or("");
    out.first_save = first_save_of(facts);
    out.fits = static_cast<double>(out.predicted_peak_bytes) <= measured.capacity_bytes;
    // Printed as it is journaled, through the one redaction step (the
    // rules' words and numbers hold no secret; a template a user adds might).
    if (!out.fits) out.warning = redact_text(warning_text(facts, out));
    return out;
  }

 private:
  // The warning in the check rules' words (rules/host.json), with the
  // numbers measured now and when the first save comes.
  std::string warning_text(const facts::FactSet& facts, const evidence::SaveForecast& forecast) const {
    const auto judgement = rules::judge(rules_.rules, facts);
    const rules::Finding* chosen = nullptr;
    for (const auto& check : judgement.checks) {
      if (check.cause != kSaveCause || check.severity != rules::Severity::error) continue;
      chosen = &check;
      break;
    }
    std::string text = "ftdiag: warning: the first checkpoint save will not fit in memory\n";
    if (chosen) {
      text += fmt::format("  {}\n", chosen->summary);
    } else {
      text += fmt::format("  {} will need about {} at the save ({}); the job may use {} ({}).\n", forecast.setup,
                          format_bytes(forecast.predicted_peak_bytes), forecast.formula, format_bytes(forecast.capacity_bytes),
                          forecast.capacity_source);
    }
    text += fmt::format("  The job holds {} now, after its first training steps.{}\n", format_bytes(forecast.held_bytes),
                        forecast.first_save.empty() ? "" : fmt::format(" The first save comes {}.", forecast.first_save));
    if (chosen && !chosen->remediation.empty()) {
      text += "  what to do:\n";
      for (const auto& fix : chosen->remediation) text += fmt::format("  - {}\n", fix);
    }
    return text;
  }

  rules::RuleSet rules_;
  facts::FactSet config_facts_;
  facts::ModelFromEvidence model_;
  estimate::TrainingSetup setup_;
};

supervise::MadeForecaster make_forecaster(const std::vector<std::string>& argv, const std::vector<std::string>& rule_dirs) {
  std::error_code ec;
  auto named = collect::read_command_configs(argv, std::filesystem::current_path(ec), "the job's command");
  // A command that is no training launch, or names no DeepSpeed config: no
  // forecast, and nothing worth a note.
  if (named.configs.empty()) return std::string();
  evidence::EvidenceDocument document;
  auto& host = document.hosts.emplace_back();
  for (auto& config : named.configs) {
    host.configs.push_back({.from = {.collector = "run", .file = config.file}, .kind = std::move(config.kind),
                            .settings = std::move(config.settings)});
  }
  auto rules = load_rule_set(rule_dirs);
  if (!rules) return "the rules could not be loaded: " + rules.missing().detail;
  auto facts = document_facts(document, rules.value());
  if (!facts.get("config.zero_stage").value) {
    // A config the command names that could not be read is worth saying.
    return named.unread.empty() ? std::string() : "a config the command names was not read: " + named.unread.front();
  }
  auto model = facts::model_from_evidence(document, facts);
  if (!model) return "the model's size is unknown: " + model.missing().detail;
  auto setup = facts::setup_from_facts(facts, estimate::TrainingSetup{});
  // The environment record that says which torch the job has is read after
  // the job (its helpers must not share the job's cgroup): the GPUs the job
  // sees decide now. Without one, the ranks train on the CPU and the memory
  // measured holds the model's states too; with them, a launcher whose
  // command does not say its ranks per node starts one per GPU.
  const auto gpus = collect::visible_nvidia_gpus(collect::SystemRoots{}, std::getenv("CUDA_VISIBLE_DEVICES"));
  if (!facts.get("torch.cpu_only").value) setup.train_on_cpu = gpus == 0;
  if (gpus > 0 && !facts.get("config.gpus_per_node").value && !facts.get("gpu.count").value) setup.gpus_per_node = gpus;
  return std::make_unique<ConfigSaveForecaster>(std::move(rules).value(), std::move(facts), std::move(model).value(), setup);
}

}  // namespace

supervise::SaveForecasterFactory save_forecaster_for(std::vector<std::string> argv, std::vector<std::string> rule_dirs) {
  return [argv = std::move(argv), rule_dirs = std::move(rule_dirs)]() { return make_forecaster(argv, rule_dirs); };
}

}  // namespace ftdiag::cli
