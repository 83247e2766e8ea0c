// Redacts secrets in a JSON value (base/redact.h), whatever its shape: an
// array of strings as an argument vector, a string under an object key as a
// value of that name (`"HF_TOKEN": "..."`, `"args.hub_token": "..."`), any
// other string as text. The strings of one array are one sequence of lines,
// so a private key block quoted over several log lines is removed whole.
// True when anything was replaced. Idempotent.
#pragma once

#include <nlohmann/json.hpp>

namespace ftdiag::evidence {

bool redact_json(nlohmann::json& value);

}  // namespace ftdiag::evidence
