// The job directory: where `ftdiag run` records a job and `ftdiag analyze`
// finds it.
//
//   JOB_DIR/                 0700, shared by every rank and node of one job
//     <node>-rank<R>/        0700, one per `ftdiag run` (or <node>-pid<P>; the node is
//                            Slurm's name for it, else the host name)
//       journal.jsonl        0600, append-only records (records.h)
//       console.log          0600, the job's output, one timestamped line each
//
// Files are created relative to the run folder's open descriptor with
// O_NOFOLLOW and O_EXCL (base/files_at.h), so a symlink planted in a shared
// directory is never followed and a folder swapped for a link after it was
// made redirects nothing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "evidence/run_file_names.h"

namespace ftdiag::journal {

class RunDirectory {
 public:
  // Creates JOB_DIR (and missing parents) and a fresh run folder in it. When
  // `run_name` exists already (a rerun), a suffix -2, -3, ... is added.
  static Fact<RunDirectory> create(const std::filesystem::path& job_dir, const std::string& run_name);

  // Creates a new file in the run folder (O_EXCL, O_NOFOLLOW, mode 0600),
  // opened for appending.
  Fact<UniqueFd> create_file(const char* name) const;

  // Replaces a whole file in the run folder (a temporary name renamed over
  // it: base/files_at.h).
  Fact<bool> replace_file(const char* name, std::string_view bytes) const;

  // A second handle on the same folder (its descriptor duplicated), for a
  // caller that writes into it after the first owner is gone.
  Fact<RunDirectory> share() const;

  const std::filesystem::path& path() const { return path_; }
  int fd() const { return dir_fd_.get(); }

 private:
  RunDirectory(UniqueFd dir_fd, std::filesystem::path path)
      : dir_fd_(std::move(dir_fd)), path_(std::move(path)) {}
  UniqueFd dir_fd_;
  std::filesystem::path path_;
};

// "<node>-rank<R>" when a rank is known, else "<node>-pid<P>".
std::string run_folder_name(const std::string& host, std::optional<int> rank, int pid);

// The default job directory: ./ftdiag-runs/<UTC time>-<host>-<pid>.
std::filesystem::path default_job_directory(const std::string& host, int pid);

}  // namespace ftdiag::journal
