#pragma once

namespace ftdiag::cli {

// Parses the command line and runs a subcommand; returns the exit code
// (`ftdiag run` may instead die by the job's signal).
int run_app(int argc, char** argv);

}  // namespace ftdiag::cli
