// Files and folders created relative to an open directory descriptor, the one
// way ftdiag creates anything on disk. ftdiag runs as root in folders other
// users can write (a shared job directory, the job's working directory), so:
//
// - a name is never resolved through a symlink: O_NOFOLLOW on the last
//   component, and the folder itself is held open, so swapping the folder for
//   a link after it was opened redirects nothing;
// - a new file is created with O_EXCL (a planted file or link makes creation
//   fail instead of truncating its target);
// - a file replaced as a whole is written under a fresh temporary name in the
//   same folder and renamed over the old one with renameat(2), which replaces
//   a link rather than following it;
// - modes are 0600 for files and 0700 for folders whatever the umask (set with
//   fchmod after creation, since the umask can only take bits away).
//
// Failures are Missing values naming the call and the path; nothing throws.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "base/fact.h"
#include "base/unique_fd.h"

namespace ftdiag {

inline constexpr int kPrivateFileMode = 0600;
inline constexpr int kPrivateFolderMode = 0700;

// Opens a directory relative to `at_fd` (AT_FDCWD for the current one). The
// last component is never followed when it is a symlink: that is refused with
// a message that says so. Earlier components resolve as the user gave them
// (a user's /scratch may well be a link).
Fact<UniqueFd> open_directory_at(int at_fd, const std::filesystem::path& path);

// Creates a fresh folder in `dir_fd` with mode 0700 and opens it: named
// `base_name`, or `base_name-2`, `-3`, ... up to -999 when that exists. The
// name chosen is stored in `chosen`.
Fact<UniqueFd> make_fresh_directory_at(int dir_fd, const std::string& base_name, std::string& chosen);

// mkdir -p: the missing components of `path` are created 0700; existing ones
// are left as they are. Then the last one is opened as open_directory_at does.
Fact<UniqueFd> make_directories(const std::filesystem::path& path);

// Creates the new file `name` in `dir_fd` (O_CREAT|O_EXCL|O_NOFOLLOW, 0600),
// opened for writing with `extra_flags` (O_APPEND, say) added.
Fact<UniqueFd> create_file_at(int dir_fd, const std::string& name, int extra_flags = 0);

// Replaces `name` in `dir_fd` with `bytes`: written to a fresh temporary name
// (".NAME.<random>.tmp", O_EXCL), then renamed over NAME. Readers see
// the old file or the new one, never a part. On failure the temporary name is
// removed and NAME is as it was.
Fact<bool> replace_file_at(int dir_fd, const std::string& name, std::string_view bytes);

// Replaces the file at `path` as replace_file_at does, in the folder the path
// names (opened as the user gave it, its last component not followed).
Fact<bool> replace_file(const std::filesystem::path& path, std::string_view bytes);

}  // namespace ftdiag
