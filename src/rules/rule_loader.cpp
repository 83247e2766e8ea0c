#include "rules/rule_loader.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/read_file.h"
#include "rules/rule_parser.h"

namespace ftdiag::rules {

std::string LoadError::describe() const {
  return fmt::format("{}:{}:{}{}: {}", file, position.line, position.column,
                     pointer.empty() ? "" : fmt::format(" ({})", pointer), message);
}

void parse_rule_file(std::string_view text, const std::string& file_name, RuleSet& into) {
  RuleFileParser(text, file_name, into).parse();
}

RuleSet load_rules(const std::filesystem::path& file_or_directory) {
  RuleSet set;
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (std::filesystem::is_directory(file_or_directory, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(file_or_directory, ec)) {
      const auto& p = entry.path();
      if (entry.is_regular_file(ec) && p.extension() == ".json" && p.filename() != "phases.json") files.push_back(p);
    }
    std::sort(files.begin(), files.end());
    if (ec) set.errors.push_back({file_or_directory.string(), {}, "", "cannot list: " + ec.message()});
  } else {
    files.push_back(file_or_directory);
  }
  for (const auto& file : files) {
    auto text = read_small_file(file, 16 << 20);
    if (!text) {
      set.errors.push_back({file.string(), {}, "", text.missing().detail});
      continue;
    }
    RuleSet one;
    // Name files as "<dir>/<file>" so messages and listings stay short and
    // read the same wherever the rules are installed.
    const auto shown = file.has_parent_path() ? (file.parent_path().filename() / file.filename()).string() : file.string();
    parse_rule_file(text.value(), shown, one);
    merge_rules(set, std::move(one));
  }
  return set;
}

void merge_rules(RuleSet& base, RuleSet more) {
  for (auto& error : more.errors) base.errors.push_back(std::move(error));
  for (auto& rule : more.rules) {
    auto same = std::find_if(base.rules.begin(), base.rules.end(), [&](const Rule& r) { return r.id == rule.id; });
    if (same != base.rules.end()) {
      base.errors.push_back({rule.source, rule.id_position, rule.id_pointer,
                             fmt::format("rule id \"{}\" is also defined in {}", rule.id, same->source)});
      continue;
    }
    base.rules.push_back(std::move(rule));
  }
}

}  // namespace ftdiag::rules
