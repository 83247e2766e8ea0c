// JSON Lines form of the journal records. Each record carries "type".
#pragma once

#include <nlohmann/json.hpp>

#include "base/fact.h"
#include "evidence/records.h"

namespace ftdiag::evidence {

nlohmann::json record_to_json(const JournalRecord& record);

// Parses one journal line's object. Missing(unparseable) for an unknown type
// or a field of the wrong type; never throws.
Fact<JournalRecord> record_from_json(const nlohmann::json& j);

// nlohmann ADL hooks for the value types that appear inside Fact<...>.
void to_json(nlohmann::json& j, const ExitStatus& s);
void from_json(const nlohmann::json& j, ExitStatus& s);
void to_json(nlohmann::json& j, const FilesystemUsage& u);
void from_json(const nlohmann::json& j, FilesystemUsage& u);
void to_json(nlohmann::json& j, const CgroupMemory& c);
void to_json(nlohmann::json& j, const ProcessMemory& m);
void from_json(const nlohmann::json& j, ProcessMemory& m);
void from_json(const nlohmann::json& j, CgroupMemory& c);

nlohmann::json exit_status_to_json(const ExitStatus& status);
ExitStatus exit_status_from_json(const nlohmann::json& j);  // throws on bad types

}  // namespace ftdiag::evidence
