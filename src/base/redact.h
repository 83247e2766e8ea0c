// Redaction of secrets in what ftdiag writes: tokens of known shapes, values
// of names that say secret, and URL credentials. Pure, no allocation beyond
// the returned strings. A secret is replaced by `<redacted:KIND, N chars>`,
// N the exact length of what was removed (docs/redaction.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ftdiag {

// True when a name's `_`/`-`/`.`-separated parts (any case) include a word
// that says secret (token, key, secret, password, ...). Whole parts only:
// max_new_tokens, tokenizer and keep_keys are not secrets.
bool name_says_secret(std::string_view name);

// The marker that stands for a removed value.
std::string redaction_marker(std::string_view kind, std::size_t length);

// One line of text: known token shapes anywhere, NAME=value, NAME: value,
// "name": "value" where the name says secret, and scheme://user:pass@.
std::string redact_text(std::string_view text);

// An argument vector: each argument as text, and also `--name value` and
// `--name=value` where the option's name says secret.
std::vector<std::string> redact_argv(const std::vector<std::string>& argv);

// An environment entry's value: the marker when the name says secret (or
// says wandb with 40 hex digits), else the value as text.
std::string redact_env_value(std::string_view name, std::string_view value);

}  // namespace ftdiag
