#include "cli/newest_job.h"

#include <sys/stat.h>

#include "journal/job_directory.h"
#include "journal/job_reader.h"

namespace ftdiag::cli {

namespace fs = std::filesystem;

namespace {

// When the job last wrote: the newest journal among its run folders.
std::optional<struct timespec> last_journal_change(const fs::path& job_dir) {
  std::optional<struct timespec> newest;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(job_dir, ec)) {
    struct stat st {};
    const auto journal = entry.path() / evidence::kJournalFileName;
    if (::lstat(journal.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (!newest || st.st_mtim.tv_sec > newest->tv_sec ||
        (st.st_mtim.tv_sec == newest->tv_sec && st.st_mtim.tv_nsec > newest->tv_nsec)) {
      newest = st.st_mtim;
    }
  }
  return newest;
}

}  // namespace

std::optional<NewestJob> newest_job_in(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(folder, ec)) || journal::is_job_directory(folder)) return std::nullopt;
  std::optional<NewestJob> found;
  std::optional<struct timespec> found_time;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (!entry.is_directory(ec) || entry.is_symlink(ec)) continue;
    const auto changed = last_journal_change(entry.path());
    if (!changed) continue;
    if (!found) found = NewestJob{};
    ++found->jobs;
    const bool newer = !found_time || changed->tv_sec > found_time->tv_sec ||
                       (changed->tv_sec == found_time->tv_sec && changed->tv_nsec > found_time->tv_nsec) ||
                       (changed->tv_sec == found_time->tv_sec && changed->tv_nsec == found_time->tv_nsec &&
                        entry.path() > found->job_dir);
    if (newer) {
      found->job_dir = entry.path();
      found_time = changed;
    }
  }
  return found;
}

}  // namespace ftdiag::cli
