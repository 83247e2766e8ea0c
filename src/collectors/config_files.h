// Configurations left beside a job, post-mortem: DeepSpeed and accelerate
// configs, LLaMA-Factory and axolotl recipes, launch scripts and commands,
// hostfiles, trainer states and model configs, whole or pasted fragments
// (parse/configs/config_text.h tells each by its content). Each becomes a
// ConfigEvidence of the host: its kind and its settings as dotted keys.
//
// Files looked at: *.json, *.yaml, *.yml, *.sh, hostfiles, and *.txt whose
// name says it may hold one (config, command, cmd, launch, args, env,
// snippet, run, train, script); at most kMaxConfigBytes each (a trainer
// state kMaxTrainerStateBytes), larger ones are named in the report as
// skipped. Inside a checkpoint folder only trainer_state.json is read (the
// model's config repeats in every checkpoint). Files with NUL bytes are not
// text and are passed over.
#pragma once

#include <cstddef>

#include "collectors/collector.h"

namespace ftdiag::collectors {

inline constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20;
inline constexpr std::size_t kMaxConfigsPerPath = 500;

class ConfigFilesCollector final : public Collector {
 public:
  std::string_view name() const override { return "configs"; }
  std::string_view section() const override { return "hosts[].configs"; }
  Mode mode() const override { return Mode::post_mortem; }
  std::string_view looks_for() const override {
    return "a training configuration (DeepSpeed, accelerate, LLaMA-Factory, axolotl, trainer_state.json, a launch command, a hostfile) in PATH";
  }
  bool recognises(const Inventory& inventory) const override;
  evidence::CollectorReport collect(const Inventory& inventory, const CollectContext& context,
                                    evidence::EvidenceDocument& document) const override;
};

// Whether a file's name makes it worth reading as a configuration.
bool is_config_candidate(const std::filesystem::path& file);

}  // namespace ftdiag::collectors
