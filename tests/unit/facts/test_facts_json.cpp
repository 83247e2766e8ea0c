#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "facts/facts_json.h"
#include "facts/registry.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using nlohmann::json;

namespace {

std::string refusal(const json& j) {
  auto facts = facts_from_json(j);
  REQUIRE_FALSE(facts);
  CHECK(facts.missing().reason == MissingReason::unparseable);
  return facts.missing().detail;
}

}  // namespace

TEST_CASE("facts json: values of the registered types are read, absent facts are missing") {
  auto facts = facts_from_json(json::parse(R"({"death.signal": 9, "cgroup.peak_ratio": 1, "death.is_job": true,
                                              "phase.at_death": "checkpoint-save"})"));
  REQUIRE(facts);
  CHECK(std::get<std::int64_t>(facts->get("death.signal").value.value()) == 9);
  CHECK(std::get<double>(facts->get("cgroup.peak_ratio").value.value()) == 1.0);  // an integer for a number fact
  CHECK(std::get<bool>(facts->get("death.is_job").value.value()));
  CHECK(std::get<std::string>(facts->get("phase.at_death").value.value()) == "checkpoint-save");
  for (const auto& spec : fact_registry()) {
    CAPTURE(spec.name);
    CHECK(facts->entries().count(std::string(spec.name)) == 1);
  }
  const auto& limit = facts->get("cgroup.limit_bytes").value;
  REQUIRE_FALSE(limit);
  CHECK(limit.missing().detail == "not in the fixture");
}

TEST_CASE("facts json: an unknown fact is refused by name") {
  const auto why = refusal(json::parse(R"({"death.signal": 9, "cgroup.peek": 1})"));
  CHECK(why == "unknown fact \"cgroup.peek\"");
}

TEST_CASE("facts json: a mistyped value is refused") {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"death.signal": "9"})", "integer"},      {R"({"death.signal": 9.5})", "integer"},
      {R"({"death.is_job": 1})", "boolean"},        {R"({"phase.at_death": null})", "string"},
      {R"({"cgroup.peak_ratio": "98%"})", "number"},
  };
  for (const auto& [text_binding, type] : cases) {
    const char* text = text_binding;  // CAPTURE is a lambda: no structured bindings (clang 14)
    CAPTURE(text);
    const auto why = refusal(json::parse(text));
    CHECK(why.find(type) != std::string::npos);
  }
  CHECK(refusal(json::parse("[1]")) == "facts must be a JSON object");
}

// 2^64 - 1 reads as -1 when taken as a signed 64-bit integer: a value the
// fact's type cannot hold must be refused, not wrapped.
TEST_CASE("facts json: an integer beyond the 64-bit signed range is refused") {
  const auto why = refusal(json::parse(R"({"cgroup.limit_bytes": 18446744073709551615})"));
  CHECK(why.find("cgroup.limit_bytes") != std::string::npos);
}

TEST_CASE("facts json: facts_to_json writes values and leaves missing facts out") {
  FactSet facts;
  facts.set("death.signal", std::int64_t{9});
  facts.set("cgroup.peak_ratio", 0.5);
  facts.set_missing("cgroup.limit_bytes", Missing{MissingReason::not_present, "no memory limit"});
  const json j = facts_to_json(facts);
  CHECK(j == json::parse(R"({"death.signal": 9, "cgroup.peak_ratio": 0.5})"));
  auto back = facts_from_json(j);
  REQUIRE(back);
  CHECK(std::get<std::int64_t>(back->get("death.signal").value.value()) == 9);
}
