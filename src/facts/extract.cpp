#include "facts/extract.h"

#include "facts/registry.h"

namespace ftdiag::facts {

FactSet extract_facts(const evidence::EvidenceDocument& document) {
  FactSet facts;
  const auto incident = find_incident(document);
  extract_job_facts(document, incident, facts);
  extract_node_facts(document, incident, facts);
  extract_memory_facts(document, incident, facts);
  extract_phase_facts(document, incident, facts);
  extract_kernel_facts(document, incident, facts);
  extract_signal_facts(document, incident, facts);
  extract_log_event_facts(document, incident, facts);
  extract_crash_facts(document, incident, facts);
  extract_gasp_facts(document, incident, facts);
  extract_forecast_facts(document, incident, facts);
  extract_environment_facts(document, incident, facts);
  extract_config_facts(document, incident, facts);
  extract_job_shape_facts(document, incident, facts);
  extract_plain_log_facts(document, incident, facts);
  extract_gpu_oom_facts(document, incident, facts);
  extract_host_memory_facts(document, incident, facts);
  extract_estimate_facts(document, incident, facts);
  for (const auto& spec : fact_registry()) {
    if (!facts.entries().count(std::string(spec.name))) {
      facts.set_missing(std::string(spec.name), Missing{MissingReason::not_present, "no evidence for it in this record"});
    }
  }
  return facts;
}

}  // namespace ftdiag::facts
