// What kind of job it was, for the advice that depends on it: whether it
// used DeepSpeed, and how many ranks its run had. Advice about ZeRO stages or
// "fewer ranks" is wrong for a single process that never used DeepSpeed.
#include <algorithm>
#include <cctype>

#include "facts/extract.h"
#include "facts/process_roles.h"

namespace ftdiag::facts {

namespace {

bool names_deepspeed(const std::string& word) {
  std::string lower(word);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("deepspeed") != std::string::npos;
}

}  // namespace

void extract_job_shape_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  // DeepSpeed: its launcher or a --deepspeed argument on a command line, or
  // a DeepSpeed config read (config.zero_stage, extracted before this).
  bool commands_known = false;
  bool deepspeed = facts.value_of<std::int64_t>("config.zero_stage").has_value();
  evidence::for_each_run(document, [&](const evidence::RunRef&, const evidence::RunEvidence& run) {
    for (const auto& p : run.processes) {
      if (p.argv.empty()) continue;
      commands_known = true;
      deepspeed = deepspeed || std::any_of(p.argv.begin(), p.argv.end(), names_deepspeed);
    }
    deepspeed = deepspeed || std::any_of(run.started.argv.begin(), run.started.argv.end(), names_deepspeed);
  });
  if (deepspeed) {
    facts.set("job.deepspeed", true);
  } else if (commands_known) {
    facts.set("job.deepspeed", false);
  } else {
    facts.set_missing("job.deepspeed", Missing{MissingReason::not_present, "no command line of the job and no DeepSpeed config"});
  }

  // Ranks: the processes of the run that are ranks; a job process that is
  // itself the training (no launcher, no ranks below it) is one.
  const auto focus = focus_run(document, incident);
  if (!focus) {
    facts.set_missing("job.ranks", Missing{MissingReason::not_present, "ftdiag did not record the job's processes"});
    return;
  }
  const auto& run = evidence::run_at(document, *focus);
  const auto roles = process_roles(run);
  const auto ranks = std::count_if(roles.begin(), roles.end(), [](const ProcessRole& r) { return r.role == "rank"; });
  const bool job_alone = ranks == 0 && std::any_of(roles.begin(), roles.end(), [](const ProcessRole& r) { return r.role == "job"; });
  if (ranks > 0 || job_alone) {
    facts.set("job.ranks", static_cast<std::int64_t>(ranks > 0 ? ranks : 1), focus->pointer() + "/processes");
  } else {
    facts.set_missing("job.ranks", Missing{MissingReason::not_present, "no process of the run was told to be a rank"});
  }
}

}  // namespace ftdiag::facts
