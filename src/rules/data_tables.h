// Data tables: facts derived by looking one fact up in a table of data
// (rules/cuda-drivers.json: the CUDA toolkit a build uses -> the oldest
// driver that runs it). A table is a data file of its own kind beside the
// rules, so NVIDIA's next release is a new row, not a code change:
//
//   {"kind": "table",
//    "name": "cuda-toolkit-drivers",
//    "lookups": [{"key": "torch.cuda_version", "match": "version-floor",
//                 "derive": {"cuda.build_min_driver": "min_driver"}}],
//    "rows": [{"key": "12.8", "min_driver": "570.26"}, ...]}
//
// `match`: "exact" (the row whose key equals the fact's value; versions
// compare as versions) or "version-floor" (the row with the greatest key not
// above the value, within the same major version: CUDA 12.5's row for a
// 12.5.1 build). Every derived fact is in the fact registry, and a column's
// values must fit its type; the loader checks both.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "facts/fact_set.h"
#include "rules/json_positions.h"

namespace ftdiag::rules {

struct LoadError;

struct TableLookup {
  std::string key_fact;
  enum class Match { exact, version_floor } match = Match::exact;
  std::map<std::string, std::string> derive;  // derived fact -> column
};

struct DataTable {
  std::string name;
  std::string source;  // "rules/cuda-drivers.json"
  std::vector<TableLookup> lookups;
  std::vector<std::map<std::string, facts::FactValue>> rows;  // column -> value; "key" is the key
};

// Parses one table file's JSON text (comments allowed); errors go to `errors`.
void parse_table_file(std::string_view text, const std::string& file_name, std::vector<DataTable>& into,
                      std::vector<LoadError>& errors);

// Sets every derived fact whose key fact is known and has a row; a derived
// fact without a row is missing with the reason ("no row for 11.2 in
// cuda-toolkit-drivers"). Never overrides a fact already set.
void apply_tables(const std::vector<DataTable>& tables, facts::FactSet& facts);

}  // namespace ftdiag::rules
