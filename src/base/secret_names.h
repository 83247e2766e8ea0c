// Which names say their value is a secret (hub_token, WANDB_API_KEY,
// aws_secret_access_key, client.secret, "password"), and which values under
// such a name say nothing secret (true, none, a variable reference). The
// names a training job's diagnosis needs (max_new_tokens, pad_token_id,
// eos_token, num_key_value_heads, key_padding_mask, keep_keys) are not
// secret names (docs/redaction.md).
#pragma once

#include <string_view>

namespace ftdiag {

// True when the last part of the name (parts split at `_`, `-`, `.` and
// lower-to-upper case changes; any case) is a word that says secret: token,
// key, apikey, secret, password, passwd, passphrase, credential(s), pat,
// privatekey. Not: a vocabulary entry of a tokenizer (`eos_token`,
// `pad_token`, `image_token`), nor a bare `key` (the field name of
// structured data: `{"key": ..., "value": ...}`).
bool name_says_secret(std::string_view name);

// True when a value given under such a name may be a secret: not empty, not
// a boolean or null word (`use_auth_token: true`), not the start of a YAML
// block (`private_key: |`), not a shell variable
// reference (`--hub_token $HF_TOKEN`), and, for a token or a key, not a
// plain number (no issued token is one).
bool may_be_secret_value(std::string_view name, std::string_view value);

}  // namespace ftdiag
