// The rows the Markdown and HTML reports both show, formatted once: the
// environment as `collect_env` lists it, and the processes that died
// abnormally with their roles.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "evidence/document.h"
#include "facts/fact_set.h"
#include "facts/process_roles.h"

namespace ftdiag::report {

// (label, value) for each version, driver, GPU and memory fact known.
std::vector<std::pair<std::string, std::string>> environment_rows(const facts::FactSet& facts);

// A death that was not a clean exit: a signal, a non-zero code, or a status unknown.
bool abnormal_death(const evidence::ProcessEvidence& process);

// "rank 1", "DataLoader worker of rank 0", "launcher": what a process was to the job.
std::string role_label(const facts::ProcessRole& role);

struct DeathRow {
  int pid = 0;
  std::string role;     // "rank 1", "dataloader-worker of rank 0", "launcher"
  std::string how;      // "killed by SIGKILL", "exit 1"
  std::string at;       // "+5.9 s"
  std::string command;  // cut after a whole word past 160 characters
};

// Every death of the run that was not a clean exit, in the order of first sight.
std::vector<DeathRow> abnormal_deaths(const evidence::RunEvidence& run);

}  // namespace ftdiag::report
