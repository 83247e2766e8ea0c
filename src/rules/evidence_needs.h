// What evidence would decide an `unknown` verdict, said in a user's words
// with the commands that get it (rules/evidence.json, a data file of kind
// "evidence"). Each entry gathers the facts one kind of evidence provides;
// the rules that could not be evaluated say which facts they missed, and the
// entries that would let the most causes be decided are the ones shown.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "rules/engine.h"
#include "rules/json_positions.h"

namespace ftdiag::rules {

struct LoadError;

struct EvidenceNeed {
  std::string id;
  std::vector<std::string> facts;  // fact names, or prefixes ending in ".*"
  std::string what;                // may hold {host} and {path}
  struct Step {
    std::string text;              // may hold {host} and {path}
    bool unless_recorded = false;  // left out when `ftdiag run` recorded the job
  };
  std::vector<Step> how;
  std::string source;              // the file it came from

  bool provides(std::string_view fact) const;
};

// Parses a file of kind "evidence" into `into`; every fact pattern must name
// a registered fact. Problems go to `errors` with their line and column.
void parse_evidence_file(std::string_view text, const std::string& file_name, std::vector<EvidenceNeed>& into,
                         std::vector<LoadError>& errors);

// Where the evidence is to be got: the node the death happened on and what
// was analyzed (empty: said in general words), and whether `ftdiag run`
// recorded the job (its steps that say to do so are then left out).
struct EvidencePlaces {
  std::string host;
  std::string path;
  bool recorded = false;
};

// The evidence that would decide the most of the undecided rules' causes,
// at most `most` entries, best first. A missing fact counts for the first
// entry that provides it; an entry that would decide no cause, or has no
// step left to take, is left out.
std::vector<NeededEvidence> needed_evidence(const std::vector<UndecidedRule>& undecided, const std::vector<EvidenceNeed>& needs,
                                            const EvidencePlaces& places, std::size_t most = 3);

}  // namespace ftdiag::rules
