// Data tables (rules/data_tables.h): facts derived by looking one fact up in
// a table of data, checked at load like rules are.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "rule_text.h"
#include "rules/data_tables.h"
#include "rules/rule_loader.h"

using namespace ftdiag;
using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

namespace {

struct Parsed {
  std::vector<DataTable> tables;
  std::vector<LoadError> errors;
};

Parsed parse_table(std::string_view text) {
  Parsed p;
  parse_table_file(text, "rules/table.json", p.tables, p.errors);
  return p;
}

const LoadError* error_at(const Parsed& p, std::string_view pointer) {
  for (const auto& e : p.errors) {
    if (e.pointer == pointer) return &e;
  }
  return nullptr;
}

// The table is refused with an error at `pointer` whose message has `part`,
// placed at the line of `needle` in the text.
void expect_table_error(std::string_view text, std::string_view pointer, std::string_view needle, std::string_view part) {
  const Parsed p = parse_table(text);
  INFO("errors: ", p.errors.size(), ", first: ", (p.errors.empty() ? std::string() : p.errors.front().describe()));
  const LoadError* e = error_at(p, pointer);
  REQUIRE_MESSAGE(e != nullptr, "no error at ", pointer);
  CHECK(e->file == "rules/table.json");
  CHECK_MESSAGE(e->message.find(part) != std::string::npos, e->message);
  if (!needle.empty()) {
    const TextPosition want = position_of(text, needle);
    REQUIRE_MESSAGE(want.line > 0, "the test's needle is not in the text: ", needle);
    CHECK(e->position.line == want.line);
  }
  CHECK(p.tables.empty());
}

// A small toolkit -> driver table, one key per line.
const char* const kDrivers = R"({
  "kind": "table",
  "name": "toolkit-drivers",
  "lookups": [
    {"key": "torch.cuda_version", "match": "version-floor",
     "derive": {"cuda.build_min_driver": "min_driver", "cuda.build_compat_min_driver": "compat_min_driver"}}
  ],
  "rows": [
    {"key": "11.8", "min_driver": "520.61.05", "compat_min_driver": "450.80.02"},
    {"key": "12.0", "min_driver": "525.60.13", "compat_min_driver": "525.60.13"},
    {"key": "12.4", "min_driver": "550.54.14", "compat_min_driver": "525.60.13"},
    {"key": "12.5", "min_driver": "555.42.02", "compat_min_driver": "525.60.13"},
    {"key": "12.6", "min_driver": "560.28.03", "compat_min_driver": "525.60.13"},
    {"key": "12.8", "min_driver": "570.26"},
    {"key": "12.10", "min_driver": "580.0", "compat_min_driver": "525.60.13"}
  ]
})";

std::vector<DataTable> drivers_table() {
  Parsed p = parse_table(kDrivers);
  INFO((p.errors.empty() ? std::string() : p.errors.front().describe()));
  REQUIRE(p.errors.empty());
  REQUIRE(p.tables.size() == 1);
  return p.tables;
}

facts::FactSet cuda(const std::string& version) { return facts_of({{"torch.cuda_version", version}}); }

std::string text_of(const facts::FactSet& facts, const std::string& name) {
  const auto& entry = facts.get(name);
  if (!entry.value) return "missing: " + entry.value.missing().detail;
  const auto* s = std::get_if<std::string>(&entry.value.value());
  return s ? *s : "not a string";
}

// A scratch directory of data files, removed at the end.
struct DataDir {
  std::filesystem::path path;
  DataDir() {
    path = std::filesystem::temp_directory_path() / ("ftdiag-tables-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~DataDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

}  // namespace

TEST_CASE("data tables: a table file parses into its lookups and rows") {
  const auto tables = drivers_table();
  const DataTable& t = tables[0];
  CHECK(t.name == "toolkit-drivers");
  CHECK(t.source == "rules/table.json");
  REQUIRE(t.lookups.size() == 1);
  CHECK(t.lookups[0].key_fact == "torch.cuda_version");
  CHECK(t.lookups[0].match == TableLookup::Match::version_floor);
  CHECK(t.lookups[0].derive ==
        std::map<std::string, std::string>{{"cuda.build_min_driver", "min_driver"}, {"cuda.build_compat_min_driver", "compat_min_driver"}});
  REQUIRE(t.rows.size() == 7);
  CHECK(t.rows[0].at("key") == facts::FactValue{std::string("11.8")});
  CHECK(t.rows[0].at("min_driver") == facts::FactValue{std::string("520.61.05")});
  CHECK(t.rows[5].count("compat_min_driver") == 0);
}

TEST_CASE("data tables: match defaults to exact, comments are allowed") {
  const Parsed p = parse_table(R"(// a comment
{"kind": "table", "name": "arch", "$comment": "about it",
 "lookups": [{"key": "gpu.name", "derive": {"gpu.arch_name": "architecture"}}],
 "rows": [{"key": "NVIDIA B200", "architecture": "Blackwell"}]})");
  REQUIRE(p.errors.empty());
  REQUIRE(p.tables.size() == 1);
  CHECK(p.tables[0].lookups[0].match == TableLookup::Match::exact);
}

TEST_CASE("data tables: load errors name the place and what is wrong") {
  SUBCASE("an unknown top-level key") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "colums": [],
 "lookups": [{"key": "torch.cuda_version", "derive": {"cuda.build_min_driver": "min_driver"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})",
                       "/colums", "\"colums\"", "unknown key \"colums\"");
  }
  SUBCASE("an unknown key in a lookup") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version", "derive": {"cuda.build_min_driver": "min_driver"},
   "matches": "exact"}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})",
                       "/lookups/0/matches", "\"matches\"", "unknown key \"matches\"");
  }
  SUBCASE("an unknown key fact") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda",
   "derive": {"cuda.build_min_driver": "min_driver"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})",
                       "/lookups/0/key", "\"torch.cuda\"", "unknown fact \"torch.cuda\"");
  }
  SUBCASE("an unknown derived fact") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version",
   "derive": {"cuda.min_drvier": "min_driver"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})",
                       "/lookups/0/derive/cuda.min_drvier", "\"cuda.min_drvier\"", "unknown fact \"cuda.min_drvier\"");
  }
  SUBCASE("a derived fact naming no column") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version",
   "derive": {"cuda.build_min_driver": 3}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})",
                       "/lookups/0/derive/cuda.build_min_driver", "\"cuda.build_min_driver\"", "names a column");
  }
  SUBCASE("a cell of the wrong type for the fact it fills") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version", "derive": {"cuda.build_min_driver": "min_driver"}}],
 "rows": [{"key": "12.4", "min_driver": "550.54.14"},
          {"key": "12.8", "min_driver": 570}]})",
                       "/rows/1/min_driver", "570}", "column \"min_driver\" fills \"cuda.build_min_driver\", of type string");
  }
  SUBCASE("a cell that is not a version, for a version fact") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version", "derive": {"cuda.build_min_driver": "min_driver"}}],
 "rows": [{"key": "12.8",
           "min_driver": "R570"}]})",
                       "/rows/0/min_driver", "\"R570\"", "is a version fact; this cell is not a version");
  }
  SUBCASE("a cell that is an array") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version", "derive": {"cuda.build_min_driver": "min_driver"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26",
           "aliases": ["12.8.0", "12.8.1"]}]})",
                       "/rows/0/aliases", "[\"12.8.0\"", "a cell is a string, number or boolean");
  }
  SUBCASE("a number where an integer fact is filled is fine, a string is not") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version", "derive": {"gpu.driver_cuda_major": "major"}}],
 "rows": [{"key": "12.8", "major": 12},
          {"key": "13.0", "major": "13"}]})",
                       "/rows/1/major", "\"13\"", "of type integer");
  }
  SUBCASE("version-floor on a fact that is not a version") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "gpu.name",
   "match": "version-floor", "derive": {"gpu.arch_name": "architecture"}}],
 "rows": [{"key": "NVIDIA B200", "architecture": "Blackwell"}]})",
                       "/lookups/0/match", "\"version-floor\"", "\"version-floor\" needs a version fact; \"gpu.name\" is not one");
  }
  SUBCASE("an unknown match") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version",
   "match": "nearest", "derive": {"cuda.build_min_driver": "min_driver"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})",
                       "/lookups/0/match", "\"nearest\"", "\"exact\" or \"version-floor\"");
  }
  SUBCASE("a row without a key") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version", "derive": {"cuda.build_min_driver": "min_driver"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"},
          {"min_driver": "575.51.03"}]})",
                       "/rows/1", "{\"min_driver\": \"575", "a row is an object with a \"key\"");
  }
  SUBCASE("no name, no lookups, no rows") {
    expect_table_error(R"({"kind": "table",
 "lookups": [{"key": "torch.cuda_version", "derive": {"cuda.build_min_driver": "min_driver"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})",
                       "", "", "a table needs a \"name\"");
    expect_table_error(R"({"kind": "table", "name": "t", "rows": [{"key": "12.8"}]})", "", "", "a table needs \"lookups\"");
    expect_table_error(R"({"kind": "table", "name": "t", "lookups": [{"key": "torch.cuda_version", "derive": {}}], "rows": []})", "", "",
                       "a table needs \"rows\"");
  }
  SUBCASE("a lookup that is not an object with key and derive") {
    expect_table_error(R"({"kind": "table", "name": "t",
 "lookups": [{"key": "torch.cuda_version"}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})",
                       "/lookups/0", "{\"key\": \"torch.cuda_version\"}", "a lookup is");
  }
}

TEST_CASE("data tables: malformed files are refused, not crashed on") {
  for (const char* text : {"", "{", "[]", "\"table\"", "{\"kind\": \"table\", \"name\": \"t\", \"lookups\": [1], \"rows\": [2]}",
                           "{\"kind\": \"table\", \"name\": \"t\", \"lookups\": {}, \"rows\": {}}"}) {
    CAPTURE(text);
    const Parsed p = parse_table(text);
    CHECK_FALSE(p.errors.empty());
    CHECK(p.tables.empty());
  }
}

TEST_CASE("data tables: version-floor takes the greatest row not above the value, within its major") {
  const auto tables = drivers_table();
  SUBCASE("an exact row") {
    auto f = cuda("12.8");
    apply_tables(tables, f);
    CHECK(text_of(f, "cuda.build_min_driver") == "570.26");
  }
  SUBCASE("a patch release uses its minor's row") {
    auto f = cuda("12.5.1");
    apply_tables(tables, f);
    CHECK(text_of(f, "cuda.build_min_driver") == "555.42.02");
    CHECK(text_of(f, "cuda.build_compat_min_driver") == "525.60.13");
  }
  SUBCASE("a minor without a row uses the one below") {
    auto f = cuda("12.7");
    apply_tables(tables, f);
    CHECK(text_of(f, "cuda.build_min_driver") == "560.28.03");
  }
  SUBCASE("12.9 is below 12.10: versions, not text") {
    auto f = cuda("12.9");
    apply_tables(tables, f);
    CHECK(text_of(f, "cuda.build_min_driver") == "570.26");
    auto g = cuda("12.10");
    apply_tables(tables, g);
    CHECK(text_of(g, "cuda.build_min_driver") == "580.0");
  }
  SUBCASE("a new major never uses the previous major's rows") {
    auto f = cuda("13.0");
    apply_tables(tables, f);
    CHECK_FALSE(f.get("cuda.build_min_driver").value);
    CHECK(text_of(f, "cuda.build_min_driver").find("13.0") != std::string::npos);
  }
  SUBCASE("below every row of its major: missing, with the table named") {
    auto f = cuda("11.2");
    apply_tables(tables, f);
    const auto& entry = f.get("cuda.build_min_driver");
    REQUIRE_FALSE(entry.value);
    CHECK(entry.value.missing().detail == "no row for torch.cuda_version 11.2 in the table toolkit-drivers");
  }
  SUBCASE("a row without the column: that fact is missing, the others are set") {
    auto f = cuda("12.8.1");
    apply_tables(tables, f);
    CHECK(text_of(f, "cuda.build_min_driver") == "570.26");
    REQUIRE_FALSE(f.get("cuda.build_compat_min_driver").value);
    CHECK(f.get("cuda.build_compat_min_driver").value.missing().detail.find("toolkit-drivers") != std::string::npos);
  }
  SUBCASE("a local tag does not get in the way") {
    auto f = cuda("12.4+local");
    apply_tables(tables, f);
    CHECK(text_of(f, "cuda.build_min_driver") == "550.54.14");
  }
}

TEST_CASE("data tables: exact match, on versions and on plain strings") {
  const Parsed p = parse_table(R"({"kind": "table", "name": "exact-one",
 "lookups": [{"key": "torch.cuda_version", "match": "exact", "derive": {"cuda.build_min_driver": "min_driver"}},
             {"key": "gpu.name", "derive": {"gpu.arch_name": "architecture"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"},
          {"key": "NVIDIA B200", "architecture": "Blackwell"}]})");
  REQUIRE(p.errors.empty());
  SUBCASE("a version key equals as a version") {
    auto f = facts_of({{"torch.cuda_version", std::string("12.8.0")}});
    apply_tables(p.tables, f);
    CHECK(text_of(f, "cuda.build_min_driver") == "570.26");
  }
  SUBCASE("no floor: a neighbour is not a match") {
    auto f = facts_of({{"torch.cuda_version", std::string("12.8.1")}});
    apply_tables(p.tables, f);
    CHECK_FALSE(f.get("cuda.build_min_driver").value);
    CHECK(f.get("cuda.build_min_driver").value.missing().detail == "no row for torch.cuda_version 12.8.1 in the table exact-one");
  }
  SUBCASE("a string key equals exactly") {
    auto f = facts_of({{"gpu.name", std::string("NVIDIA B200")}});
    apply_tables(p.tables, f);
    CHECK(text_of(f, "gpu.arch_name") == "Blackwell");
    auto g = facts_of({{"gpu.name", std::string("NVIDIA B200 ")}});
    apply_tables(p.tables, g);
    CHECK_FALSE(g.get("gpu.arch_name").value);
  }
}

TEST_CASE("data tables: a derived fact cites its key's pointer, a missing key leaves it missing with why") {
  const auto tables = drivers_table();
  facts::FactSet f;
  f.set("torch.cuda_version", std::string("12.8"), "/hosts/0/python/packages/3/build/cuda");
  apply_tables(tables, f);
  CHECK(f.get("cuda.build_min_driver").pointer == "/hosts/0/python/packages/3/build/cuda");

  facts::FactSet none;
  apply_tables(tables, none);
  REQUIRE_FALSE(none.get("cuda.build_min_driver").value);
  CHECK(none.get("cuda.build_min_driver").value.missing().detail == "torch.cuda_version is missing");
}

TEST_CASE("data tables: a fact already set is not overridden") {
  const auto tables = drivers_table();
  facts::FactSet f;
  f.set("torch.cuda_version", std::string("12.6"), "/p/cuda");
  f.set("cuda.build_min_driver", std::string("999.1"), "/given");
  apply_tables(tables, f);
  CHECK(text_of(f, "cuda.build_min_driver") == "999.1");
  CHECK(f.get("cuda.build_min_driver").pointer == "/given");
  CHECK(text_of(f, "cuda.build_compat_min_driver") == "525.60.13");  // the other column is still derived
  // Applying twice changes nothing.
  apply_tables(tables, f);
  CHECK(text_of(f, "cuda.build_min_driver") == "999.1");
}

TEST_CASE("data tables: the project's tables load and derive the CUDA facts") {
  const RuleSet set = load_rules(project_rules_dir());
  std::string errors;
  for (const auto& e : set.errors) errors += e.describe() + "\n";
  CHECK_MESSAGE(set.ok(), errors);
  std::set<std::string> names;
  for (const auto& t : set.tables) names.insert(t.name);
  CHECK(names == std::set<std::string>{"cuda-toolkit-drivers", "torch-cuda-wheels", "gpu-architectures"});
  for (const auto& t : set.tables) {
    CAPTURE(t.name);
    CHECK(t.source.rfind("rules/", 0) == 0);
    CHECK(t.rows.size() >= 5);
  }

  SUBCASE("torch 2.7.0+cu128 on a 12.1 driver and an H100") {
    auto f = facts_of({{"torch.cuda_version", std::string("12.8")},
                       {"gpu.driver_cuda_version", std::string("12.1")},
                       {"gpu.compute_capability", std::string("9.0")}});
    apply_tables(set.tables, f);
    CHECK(text_of(f, "cuda.build_min_driver") == "570.26");
    CHECK(text_of(f, "cuda.build_compat_min_driver") == "525.60.13");
    CHECK(text_of(f, "torch.wheel_tag_for_driver") == "cu121");
    CHECK(text_of(f, "gpu.arch_name") == "Hopper");
    CHECK(text_of(f, "gpu.arch_min_driver") == "520.61.05");
  }
  SUBCASE("the wheel line for a driver is the newest it runs in full") {
    for (const auto& [driver_cuda, tag] : std::vector<std::pair<std::string, std::string>>{
             {"12.0", "cu118"}, {"12.2", "cu121"}, {"12.5", "cu124"}, {"12.8", "cu128"}, {"13.1", "cu130"}}) {
      CAPTURE(driver_cuda);
      auto f = facts_of({{"gpu.driver_cuda_version", driver_cuda}});
      apply_tables(set.tables, f);
      CHECK(text_of(f, "torch.wheel_tag_for_driver") == tag);
    }
  }
  SUBCASE("architectures by compute capability") {
    for (const auto& [cc, arch] : std::vector<std::pair<std::string, std::string>>{
             {"8.0", "Ampere"}, {"8.7", "Ampere"}, {"8.9", "Ada Lovelace"}, {"10.0", "Blackwell"}, {"12.0", "Blackwell"}}) {
      CAPTURE(cc);
      auto f = facts_of({{"gpu.compute_capability", cc}});
      apply_tables(set.tables, f);
      CHECK(text_of(f, "gpu.arch_name") == arch);
    }
  }
  SUBCASE("a CUDA older than every row") {
    auto f = facts_of({{"torch.cuda_version", std::string("10.2")}});
    apply_tables(set.tables, f);
    REQUIRE_FALSE(f.get("cuda.build_min_driver").value);
    CHECK(f.get("cuda.build_min_driver").value.missing().detail.find("cuda-toolkit-drivers") != std::string::npos);
  }
}

TEST_CASE("data tables: files declare their kind, the rule loader reads rules and tables, skips pattern tables") {
  CHECK(data_file_kind("rules") == DataFileKind::rules);
  CHECK(data_file_kind("table") == DataFileKind::table);
  CHECK(data_file_kind("evidence") == DataFileKind::evidence);
  CHECK(data_file_kind("phases") == DataFileKind::collector_patterns);
  CHECK(data_file_kind("log-events") == DataFileKind::collector_patterns);
  CHECK_FALSE(data_file_kind("tables").has_value());
  CHECK_FALSE(data_file_kind("").has_value());

  const DataDir dir;
  dir.write("a-rules.json", R"({"kind": "rules", "rules": [{"id": "r1", "cause": "external-kill", "confidence": 0.6,
    "when": {"fact": "death.signal", "eq": 9}, "summary": "s", "remediation": ["r"]}]})");
  dir.write("b-untyped.json", R"({"rules": [{"id": "r2", "cause": "external-kill", "confidence": 0.6,
    "when": {"fact": "death.signal", "eq": 15}, "summary": "s", "remediation": ["r"]}]})");
  dir.write("c-table.json", kDrivers);
  // Pattern tables of the collectors: the rule loader leaves them alone,
  // whatever they hold.
  dir.write("phases.json", R"({"kind": "phases", "phases": [{"phase": "training", "patterns": ["step"]}]})");
  dir.write("log-events.json", R"({"kind": "log-events", "events": "not what a rule file holds"})");
  dir.write("notes.txt", "not json");

  SUBCASE("every kind in its place") {
    const RuleSet set = load_rules(dir.path);
    std::string errors;
    for (const auto& e : set.errors) errors += e.describe() + "\n";
    CHECK_MESSAGE(set.ok(), errors);
    std::vector<std::string> ids;
    for (const auto& r : set.rules) ids.push_back(r.id);
    CHECK(ids == std::vector<std::string>{"r1", "r2"});
    REQUIRE(set.tables.size() == 1);
    CHECK(set.tables[0].name == "toolkit-drivers");
    CHECK(set.tables[0].source == dir.path.filename().string() + "/c-table.json");
  }
  SUBCASE("an unknown kind is an error naming the file") {
    dir.write("d-tablet.json", R"({"kind": "tablet", "name": "t", "lookups": [], "rows": []})");
    const RuleSet set = load_rules(dir.path);
    REQUIRE(set.errors.size() == 1);
    CHECK(set.errors[0].file.find("d-tablet.json") != std::string::npos);
    CHECK(set.errors[0].pointer == "/kind");
    CHECK(set.errors[0].message.find("unknown kind \"tablet\"") != std::string::npos);
    CHECK(set.rules.size() == 2);  // the other files still load
    CHECK(set.tables.size() == 1);
  }
  SUBCASE("a kind that is not a string is an error") {
    dir.write("d-kind.json", R"({"kind": ["table"], "rules": []})");
    const RuleSet set = load_rules(dir.path);
    REQUIRE(set.errors.size() == 1);
    CHECK(set.errors[0].pointer == "/kind");
    CHECK(set.errors[0].message.find("must be a string") != std::string::npos);
  }
  SUBCASE("a table with an error is reported through the loader") {
    dir.write("d-bad-table.json", R"({"kind": "table", "name": "bad",
 "lookups": [{"key": "torch.cuda_version", "derive": {"cuda.no_such_fact": "min_driver"}}],
 "rows": [{"key": "12.8", "min_driver": "570.26"}]})");
    const RuleSet set = load_rules(dir.path);
    REQUIRE(set.errors.size() == 1);
    CHECK(set.errors[0].file.find("d-bad-table.json") != std::string::npos);
    CHECK(set.errors[0].position.line == 2);
    CHECK(set.tables.size() == 1);  // only the good one
  }
  SUBCASE("a table file given alone") {
    const RuleSet set = load_rules(dir.path / "c-table.json");
    CHECK(set.ok());
    CHECK(set.rules.empty());
    CHECK(set.tables.size() == 1);
  }
}

TEST_CASE("data tables: the project's pattern tables are skipped by the rule loader") {
  // phases.json and log-events.json hold no rules: loading each alone gives
  // neither rules nor tables nor errors.
  for (const char* name : {"phases.json", "log-events.json"}) {
    CAPTURE(name);
    const RuleSet set = load_rules(project_rules_dir() / name);
    CHECK(set.ok());
    CHECK(set.rules.empty());
    CHECK(set.tables.empty());
  }
}
