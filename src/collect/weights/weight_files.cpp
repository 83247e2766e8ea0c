#include "collect/weights/weight_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "base/unique_fd.h"
#include "parse/weights/safetensors_header.h"
#include "parse/weights/zip_end_record.h"

namespace ftdiag::collect {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kZipTailBytes = 65557;  // the end record (22) + the longest comment (65535)

// Reads exactly `length` bytes at offset, or says why not.
Fact<std::string> read_at(int fd, std::uint64_t offset, std::uint64_t length) {
  std::string out(length, '\0');
  std::uint64_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return missing_from_errno(errno, "read");
    if (n == 0) return Missing{MissingReason::unparseable, "ended early"};
    done += static_cast<std::uint64_t>(n);
  }
  return out;
}

// "truncated: ..." reads "model.safetensors is truncated: ...".
std::string named(const std::string& name, const std::string& detail) {
  return detail.starts_with("truncated") ? name + " is " + detail : name + ": " + detail;
}

// The header checked as the safetensors library checks it before loading
// (parse/weights/safetensors_header.h), and the file's length against where the last
// tensor ends.
std::optional<std::string> safetensors_problem(int fd, const fs::path& path, std::uint64_t size) {
  const std::string name = path.filename().string();
  auto prefix = read_at(fd, 0, std::min<std::uint64_t>(size, parse::kSafetensorsLengthBytes));
  if (!prefix) return named(name, prefix.missing().detail);
  auto length = parse::parse_safetensors_length(*prefix, size);
  if (!length) return named(name, length.missing().detail);
  auto text = read_at(fd, parse::kSafetensorsLengthBytes, *length);
  if (!text) return named(name, text.missing().detail);
  auto header = parse::parse_safetensors_header(*text, size - parse::kSafetensorsLengthBytes - *length);
  if (!header) return named(name, header.missing().detail);
  return std::nullopt;
}

std::optional<std::string> torch_zip_problem(int fd, const fs::path& path, std::uint64_t size) {
  const std::string name = path.filename().string();
  auto magic = read_at(fd, 0, std::min<std::uint64_t>(size, 4));
  if (!magic) return fmt::format("{}: {}", name, magic.missing().detail);
  if (*magic != std::string_view("PK\x03\x04", 4)) return std::nullopt;  // the legacy format: nothing marks its end
  const std::uint64_t tail_bytes = std::min(size, kZipTailBytes);
  auto tail = read_at(fd, size - tail_bytes, tail_bytes);
  if (!tail) return fmt::format("{}: {}", name, tail.missing().detail);
  if (!parse::zip_tail_has_end_record(*tail)) return fmt::format("{} is truncated: torch.save's archive has no end record", name);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> weight_file_problem(const fs::path& path, std::uint64_t size) {
  const std::string name = path.filename().string();
  if (size == 0) return name + " is empty";
  const auto extension = path.extension();
  const bool safetensors = extension == ".safetensors";
  if (!safetensors && extension != ".bin" && extension != ".pt" && extension != ".pth") return std::nullopt;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return fmt::format("{} cannot be read ({})", name, std::strerror(errno));
  return safetensors ? safetensors_problem(fd.get(), path, size) : torch_zip_problem(fd.get(), path, size);
}

}  // namespace ftdiag::collect
