// From the evidence document to the facts rules reason about. Extraction
// computes (sums, ratios, the incident, the phase at death) but never judges:
// thresholds live in the rules.
#pragma once

#include <optional>

#include "evidence/document.h"
#include "facts/fact_set.h"
#include "facts/incident.h"

namespace ftdiag::facts {

// Every fact of the registry ends up either set or missing with a reason.
FactSet extract_facts(const evidence::EvidenceDocument& document);

// The parts, one file each; they share the incident.
void extract_job_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_node_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_memory_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_kernel_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_signal_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_log_event_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
// ftdiag run's forecast of the checkpoint save, and its warning's lead on the incident.
void extract_forecast_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_gasp_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_crash_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_environment_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
// After the others: fills what a journal would have told, from plain logs.
void extract_plain_log_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
// After the plain logs' phase: a CUDA out-of-memory error's sizes, phase and steps.
void extract_gpu_oom_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_host_memory_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_phase_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
// After the config and environment facts: what the memory model predicts for them.
void extract_estimate_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
// job.deepspeed, job.ranks: after the config facts.
void extract_job_shape_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);
void extract_config_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts);

}  // namespace ftdiag::facts
