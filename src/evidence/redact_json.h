// Redacts secrets in a JSON value before it is written (base/redact.h): an
// array of strings as an argument vector, a string under an object key as an
// environment entry of that name, any other string as text. True when
// anything was replaced.
#pragma once

#include <nlohmann/json.hpp>

namespace ftdiag::evidence {

bool redact_json(nlohmann::json& value);

}  // namespace ftdiag::evidence
