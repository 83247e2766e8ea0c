#include "parse/configs/yaml_settings.h"

#include <array>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace ftdiag::parse {
namespace {

// Thrown from the event handler to stop yaml-cpp's parse at once, so a
// hostile input is never read past the first bound it breaks. yaml-cpp
// itself reports errors by exceptions, so unwinding through it is expected.
struct Refusal {
  std::string detail;
};

std::string at(const YAML::Mark& mark) {
  if (mark.is_null()) return "at the end";
  return fmt::format("line {}, column {}", mark.line + 1, mark.column + 1);
}

}  // namespace

// PyYAML's reading of a plain scalar (YAML 1.1): what accelerate and the
// trainers see when they load the file.
std::string yaml_plain_scalar(const std::string& value) {
  static constexpr std::array<std::string_view, 9> kTrue = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static constexpr std::array<std::string_view, 9> kFalse = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  static constexpr std::array<std::string_view, 5> kNull = {"", "~", "null", "Null", "NULL"};
  for (auto word : kTrue) {
    if (value == word) return "true";
  }
  for (auto word : kFalse) {
    if (value == word) return "false";
  }
  for (auto word : kNull) {
    if (value == word) return "null";
  }
  return value;
}

namespace {

// yaml-cpp's event interface: dotted keys are built as the events come, no
// node tree is ever built, and the bounds stop the parse (Refusal).
class Flattener final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { scalar(mark, anchor, "null"); }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, const std::string& value) override {
    // yaml-cpp tags a plain scalar "?" and a quoted one "!".
    scalar(mark, anchor, tag == "?" ? yaml_plain_scalar(value) : value);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override;
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnSequenceEnd() override { close("[]"); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnMapEnd() override { close("{}"); }

  bool started() const { return started_; }
  DottedSettings take() && { return std::move(settings_); }

 private:
  struct Level {
    bool sequence = false;
    std::size_t base = 0;  // path_'s length at the container itself
    std::size_t next_index = 0;
    bool empty = true;
    bool expecting_key = true;  // a mapping's events alternate key, value
    bool merging = false;       // the value of a "<<" key: merged into the enclosing mapping
  };

  void scalar(const YAML::Mark& mark, YAML::anchor_t anchor, std::string value);
  void key(const std::string& name);
  void begin_value(const YAML::Mark& mark);
  void end_value();
  void put(const std::string& key, std::string value);
  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool sequence);
  void close(const char* empty_mark);
  void copy_section(const std::string& from);
  void erase_subtree();

  bool started_ = false;
  std::string path_;
  std::vector<Level> levels_;
  DottedSettings settings_;
  std::map<YAML::anchor_t, std::string> scalar_anchors_;   // anchor -> its value
  std::map<YAML::anchor_t, std::string> section_anchors_;  // anchor -> the path its section was flattened at
};

void Flattener::scalar(const YAML::Mark& mark, YAML::anchor_t anchor, std::string value) {
  if (levels_.empty()) throw Refusal{at(mark) + ": the top level is not a mapping (a configuration is one)"};
  auto& level = levels_.back();
  if (!level.sequence && level.expecting_key) {
    key(value);
    level.expecting_key = false;
    return;
  }
  begin_value(mark);
  if (anchor) scalar_anchors_[anchor] = value;
  put(path_, std::move(value));
  end_value();
}

// A repeated key replaces what the earlier one left, as PyYAML's dict does.
void Flattener::key(const std::string& name) {
  auto& level = levels_.back();
  path_.resize(level.base);
  level.merging = name == "<<";
  if (level.merging) return;  // the merged section's keys land in this mapping itself
  if (!path_.empty()) path_ += '.';
  path_ += name;
  erase_subtree();
}

void Flattener::erase_subtree() {
  settings_.erase(path_);
  const std::string prefix = path_ + '.';
  auto first = settings_.lower_bound(prefix);
  auto last = first;
  while (last != settings_.end() && last->first.starts_with(prefix)) ++last;
  settings_.erase(first, last);
}

void Flattener::begin_value(const YAML::Mark& mark) {
  auto& level = levels_.back();
  if (!level.sequence && level.expecting_key) {
    throw Refusal{at(mark) + ": a key that is a mapping or a sequence is not a setting"};
  }
  level.empty = false;
  if (level.sequence) {
    path_.resize(level.base);
    if (!path_.empty()) path_ += '.';
    path_ += std::to_string(level.next_index++);
  }
}

void Flattener::end_value() {
  auto& level = levels_.back();
  if (!level.sequence) level.expecting_key = true;
}

void Flattener::put(const std::string& key, std::string value) {
  settings_.insert_or_assign(key, std::move(value));
  if (settings_.size() > kMaxYamlSettingsKeys) {
    throw Refusal{fmt::format("more than {} settings (the last read: {}): not a configuration file", kMaxYamlSettingsKeys,
                              printable_excerpt(key))};
  }
}

void Flattener::open(const YAML::Mark& mark, YAML::anchor_t anchor, bool sequence) {
  started_ = true;
  if (levels_.empty()) {
    if (sequence) throw Refusal{at(mark) + ": the top level is not a mapping (a configuration is one)"};
    levels_.push_back(Level{});
    return;
  }
  begin_value(mark);
  if (levels_.size() >= kMaxYamlSettingsDepth) {
    throw Refusal{fmt::format("{}: nested deeper than {} levels (at {})", at(mark), kMaxYamlSettingsDepth, printable_excerpt(path_))};
  }
  if (anchor) section_anchors_[anchor] = path_;
  const bool merged = levels_.back().merging;
  levels_.push_back(Level{.sequence = sequence, .base = path_.size()});
  levels_.back().merging = merged && !sequence;
}

void Flattener::close(const char* empty_mark) {
  const Level level = levels_.back();
  levels_.pop_back();
  path_.resize(level.base);
  if (levels_.empty()) return;
  // An empty section is a setting too ("deepspeed_config: {}" means its defaults).
  if (level.empty && !levels_.back().merging) put(path_, empty_mark);
  end_value();
}

// An alias repeats what its anchor gave, each copied key counted.
void Flattener::OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) {
  if (levels_.empty()) throw Refusal{at(mark) + ": the top level is not a mapping (a configuration is one)"};
  if (auto it = scalar_anchors_.find(anchor); it != scalar_anchors_.end()) {
    scalar(mark, 0, it->second);
    return;
  }
  begin_value(mark);
  if (auto it = section_anchors_.find(anchor); it != section_anchors_.end()) copy_section(it->second);
  end_value();
}

void Flattener::copy_section(const std::string& from) {
  const bool merging = !levels_.back().sequence && levels_.back().merging;
  std::vector<std::pair<std::string, std::string>> copied;
  for (auto it = from.empty() ? settings_.begin() : settings_.lower_bound(from); it != settings_.end(); ++it) {
    const std::string& name = it->first;
    if (!from.empty() && name != from && !name.starts_with(from + '.')) break;
    std::string rest = from.empty() ? name : name.substr(from.size());  // "" or ".key..."
    if (!rest.empty() && rest.front() == '.') rest.erase(0, 1);
    if (rest.empty() && merging) continue;  // an empty section merged adds nothing
    copied.emplace_back(path_.empty() || rest.empty() ? path_ + rest : path_ + '.' + rest, it->second);
    if (copied.size() > kMaxYamlSettingsKeys) break;  // put() refuses on the way
  }
  for (auto& [name, value] : copied) put(name, std::move(value));
}

}  // namespace

Fact<DottedSettings> flatten_yaml_settings(std::string_view text) {
  auto refuse = [](std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; };
  if (text.size() > kMaxYamlSettingsBytes) {
    return refuse(fmt::format("more than {} MiB: not a configuration file", kMaxYamlSettingsBytes >> 20));
  }
  std::istringstream stream{std::string(text)};
  Flattener flattener;
  try {
    YAML::Parser parser(stream);
    if (!parser.HandleNextDocument(flattener)) return refuse("no YAML document (the text is empty or only comments)");
  } catch (const Refusal& refusal) {
    return refuse(refusal.detail);
  } catch (const YAML::Exception& error) {
    return refuse(fmt::format("{}: {}", at(error.mark), printable_excerpt(error.msg)));
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    return refuse(fmt::format("unreadable YAML: {}", printable_excerpt(error.what())));
  }
  if (!flattener.started()) return refuse("the top level is not a mapping (a configuration is one)");
  return std::move(flattener).take();
}

}  // namespace ftdiag::parse
