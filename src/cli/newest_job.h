// `ftdiag analyze ftdiag-runs`: the folder `ftdiag run` makes by default
// holds one job directory per run (<UTC time>-<host>-<pid>/), each holding
// its run folders. Such a folder of jobs is analyzed as its newest job,
// which is what someone who just saw a job die wants; the others are named
// by count so they can be asked for.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>

namespace ftdiag::cli {

struct NewestJob {
  std::filesystem::path job_dir;
  std::size_t jobs = 0;  // job directories in the folder, the newest among them
};

// The newest job directory directly under `folder` (by its journals' last
// change), when `folder` is not itself a job directory or run folder and
// holds at least one. Links are not followed.
std::optional<NewestJob> newest_job_in(const std::filesystem::path& folder);

}  // namespace ftdiag::cli
