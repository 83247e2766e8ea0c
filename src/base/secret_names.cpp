#include "base/secret_names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace ftdiag {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_lower(char c) { return std::islower(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_upper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }

// The name's parts, lower case: `WANDB_API_KEY` -> wandb, api, key;
// `hfToken` -> hf, token; `--hub-token` -> hub, token.
std::vector<std::string> name_parts(std::string_view name) {
  std::vector<std::string> parts;
  std::string part;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool separator = c == '_' || c == '-' || c == '.';
    const bool case_change = i > 0 && is_lower(name[i - 1]) && is_upper(c);
    if ((separator || case_change) && !part.empty()) parts.push_back(lower(std::exchange(part, {})));
    if (!separator) part.push_back(c);
  }
  if (!part.empty()) parts.push_back(lower(part));
  return parts;
}

template <std::size_t N>
bool one_of(const std::string& word, const std::array<std::string_view, N>& words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

constexpr std::array<std::string_view, 11> kSecretWords{"token",      "key",         "apikey", "secret", "password",
                                                        "passwd",     "passphrase",  "credential", "credentials",
                                                        "pat",        "privatekey"};

// Tokenizer vocabulary entries: `eos_token: "</s>"` names a piece of text
// the model reads, not a credential.
constexpr std::array<std::string_view, 26> kVocabularyWords{
    "bos", "eos", "pad",  "unk",   "sep",   "cls",     "mask",  "start",   "end",       "stop",   "special", "image", "video",
    "audio", "boi", "eoi", "boa", "eoa", "im",  "begin", "eot", "fim", "think", "tool", "chat", "placeholder"};

}  // namespace

bool name_says_secret(std::string_view name) {
  const auto parts = name_parts(name);
  if (parts.empty() || !one_of(parts.back(), kSecretWords)) return false;
  if (parts.size() == 1 && parts.back() == "key") return false;
  if (parts.back() == "token" && parts.size() >= 2 && one_of(parts[parts.size() - 2], kVocabularyWords)) return false;
  return true;
}

bool may_be_secret_value(std::string_view name, std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  if (value.empty()) return false;
  // Booleans and nulls say whether, not what; `|` and `>` start a YAML
  // block whose lines follow.
  static constexpr std::array<std::string_view, 15> kNothing{"true", "false", "none", "null", "nil", "yes", "no", "~", "undefined",
                                                             "|", ">", "|-", ">-", "|+", ">+"};
  if (one_of(lower(value), kNothing)) return false;
  // $NAME, ${NAME}, $(command): where the secret comes from, not the secret.
  if (value.size() >= 2 && value[0] == '$' &&
      (value[1] == '{' || value[1] == '(' || value[1] == '_' || std::isalpha(static_cast<unsigned char>(value[1])))) {
    return false;
  }
  const auto parts = name_parts(name);
  const bool token_or_key = !parts.empty() && (parts.back() == "token" || parts.back() == "key");
  const bool number = std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
  return !(token_or_key && number);
}

}  // namespace ftdiag
