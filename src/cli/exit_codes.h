// ftdiag's own exit codes (docs/cli.md). `ftdiag run` otherwise exits the way
// the job did: with its code, or by its signal.
#pragma once

namespace ftdiag::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitChecksFailed = 1;     // `rules test` / `rules lint`: a case failed or a rule is invalid
inline constexpr int kExitUsage = 2;            // bad arguments, unknown cause
inline constexpr int kExitInputNotFound = 3;    // PATH missing or holds nothing ftdiag can read
inline constexpr int kExitInputUnreadable = 4;  // permission denied, or malformed beyond use
inline constexpr int kExitRulesInvalid = 5;     // the rules (built-in or --rules) failed to load
inline constexpr int kExitInternal = 70;        // a bug in ftdiag (EX_SOFTWARE)
inline constexpr int kExitRunFailed = 125;      // `run`: ftdiag could not supervise (no job directory)
inline constexpr int kExitCannotExecute = 126;  // `run`: the command is not executable
inline constexpr int kExitNotFound = 127;       // `run`: the command was not found

}  // namespace ftdiag::cli
