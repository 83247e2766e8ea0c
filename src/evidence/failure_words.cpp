#include "evidence/failure_words.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "base/read_file.h"
#include "evidence/json_input.h"

namespace ftdiag::evidence {

namespace {

// Bounds on the table, so a user's rules directory cannot make every line
// costly: RE2 is linear in the line, but each pattern is one more pass.
constexpr std::size_t kMaxWords = 64;
constexpr std::size_t kMaxPatternsPerWord = 16;
constexpr std::size_t kMaxPatternBytes = 1024;
constexpr int kMaxPatternMemory = 1 << 20;
constexpr int kMaxSetMemory = 16 << 20;  // all the words' patterns together

}  // namespace

FailureWords::FailureWords() = default;
FailureWords::FailureWords(FailureWords&&) noexcept = default;
FailureWords& FailureWords::operator=(FailureWords&&) noexcept = default;
FailureWords::~FailureWords() = default;

Fact<FailureWords> FailureWords::parse(std::string_view json_text, const std::string& source_name) {
  auto fail = [&](const std::string& why) {
    return Missing{MissingReason::unparseable, fmt::format("{}: {}", source_name, why)};
  };
  auto parsed = parse_json_input(json_text, {.allow_comments = true});
  if (auto* failure = std::get_if<JsonInputError>(&parsed)) return fail(failure->describe());
  const auto j = std::move(std::get<nlohmann::json>(parsed));
  if (!j.is_object() || !j.contains("words") || !j["words"].is_array()) return fail("expected {\"words\": [...]}");
  if (j.contains("kind") && j["kind"] != "failure-words") return fail("this table's kind is \"failure-words\"");
  for (const auto& [key, value] : j.items()) {
    if (key != "kind" && key != "words") return fail(fmt::format("unknown key \"{}\" (kind, words)", key));
  }
  if (j["words"].size() > kMaxWords) return fail(fmt::format("more than {} words", kMaxWords));
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(false);
  options.set_max_mem(kMaxPatternMemory);
  FailureWords table;
  RE2::Options set_options = options;
  set_options.set_max_mem(kMaxSetMemory);
  table.patterns_ = std::make_unique<RE2::Set>(set_options, RE2::UNANCHORED);
  for (std::size_t i = 0; i < j["words"].size(); ++i) {
    const auto& entry = j["words"][i];
    const auto at = fmt::format("/words/{}", i);
    if (!entry.is_object() || !entry.contains("word") || !entry["word"].is_string() || !entry.contains("patterns") ||
        !entry["patterns"].is_array() || !entry.contains("what") || !entry["what"].is_string()) {
      return fail(at + ": needs \"word\" (string), \"patterns\" (array) and \"what\" (string)");
    }
    for (const auto& [key, value] : entry.items()) {
      if (key != "word" && key != "patterns" && key != "unless" && key != "what") {
        return fail(fmt::format("{}: unknown key \"{}\" (word, patterns, unless, what)", at, key));
      }
    }
    const auto name = entry["word"].get<std::string>();
    for (const auto& word : table.words_) {
      if (word.name == name) return fail(fmt::format("{}/word: \"{}\" is listed twice", at, name));
    }
    Entry compiled;
    for (const char* list : {"patterns", "unless"}) {
      if (!entry.contains(list)) continue;
      if (!entry[list].is_array() || entry[list].size() > kMaxPatternsPerWord) {
        return fail(fmt::format("{}/{}: an array of at most {} patterns", at, list, kMaxPatternsPerWord));
      }
      for (std::size_t k = 0; k < entry[list].size(); ++k) {
        const auto& pattern = entry[list][k];
        if (!pattern.is_string() || pattern.get<std::string>().empty() || pattern.get<std::string>().size() > kMaxPatternBytes) {
          return fail(fmt::format("{}/{}/{}: a pattern of 1 to {} bytes", at, list, k, kMaxPatternBytes));
        }
        // Compiled alone first: its own error, and its own memory bound.
        auto regex = std::make_unique<RE2>(pattern.get<std::string>(), options);
        if (!regex->ok()) return fail(fmt::format("{}/{}/{}: bad regular expression: {}", at, list, k, regex->error()));
        if (std::string_view(list) == "unless") {
          compiled.unless.push_back(std::move(regex));
          continue;
        }
        std::string error;
        if (table.patterns_->Add(pattern.get<std::string>(), &error) < 0) {
          return fail(fmt::format("{}/{}/{}: bad regular expression: {}", at, list, k, error));
        }
        table.word_of_pattern_.push_back(table.words_.size());
      }
    }
    if (!entry.contains("patterns") || entry["patterns"].empty()) return fail(at + "/patterns: at least one pattern");
    table.words_.push_back({name, entry["what"].get<std::string>()});
    table.entries_.push_back(std::move(compiled));
  }
  if (!table.patterns_->Compile()) return fail("the patterns are too large to compile together");
  return table;
}

Fact<FailureWords> FailureWords::load(const std::filesystem::path& file) {
  auto text = read_small_file(file, 1 << 20);
  if (!text) return text.missing();
  return parse(text.value(), file.string());
}

std::optional<std::string_view> FailureWords::classify(std::string_view line) const {
  if (!patterns_ || word_of_pattern_.empty() || !patterns_->Match(line, nullptr)) return std::nullopt;
  std::vector<int> matched;
  if (!patterns_->Match(line, &matched)) return std::nullopt;
  std::vector<bool> holds(words_.size(), false);
  for (const int pattern : matched) holds[word_of_pattern_[static_cast<std::size_t>(pattern)]] = true;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (!holds[i]) continue;
    const auto& unless = entries_[i].unless;
    const bool excluded = std::any_of(unless.begin(), unless.end(), [&](const auto& pattern) { return RE2::PartialMatch(line, *pattern); });
    if (!excluded) return std::string_view(words_[i].name);
  }
  return std::nullopt;
}

}  // namespace ftdiag::evidence
