#include "collect/weight_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/unique_fd.h"

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

std::optional<std::string> safetensors_problem(int fd, const fs::path& path, std::uint64_t size) {
  const std::string name = path.filename().string();
  if (size < 8) return fmt::format("{} is {} bytes, shorter than its header length", name, size);
  auto prefix = read_at(fd, 0, 8);
  if (!prefix) return fmt::format("{}: {}", name, prefix.missing().detail);
  std::uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | static_cast<unsigned char>((*prefix)[static_cast<std::size_t>(i)]);
  if (header > kMaxSafetensorsHeaderBytes) return fmt::format("{}: a header length of {} bytes is not plausible", name, header);
  if (size < 8 + header) return fmt::format("{} is truncated: {} bytes, its header alone needs {}", name, size, 8 + header);
  auto text = read_at(fd, 8, header);
  if (!text) return fmt::format("{}: {}", name, text.missing().detail);
  auto end = safetensors_data_end(*text);
  if (!end) return fmt::format("{}: {}", name, end.missing().detail);
  if (size < 8 + header + *end) return fmt::format("{} is truncated: {} bytes of {}", name, size, 8 + header + *end);
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
  if (!zip_tail_has_end_record(*tail)) return fmt::format("{} is truncated: torch.save's archive has no end record", name);
  return std::nullopt;
}

}  // namespace

Fact<std::uint64_t> safetensors_data_end(std::string_view header_json) {
  const auto header = nlohmann::json::parse(header_json.begin(), header_json.end(), nullptr, false);
  if (!header.is_object()) return Missing{MissingReason::unparseable, "its header is not a JSON object"};
  std::uint64_t end = 0;
  for (const auto& [name, tensor] : header.items()) {
    if (name == "__metadata__") continue;
    const auto offsets = tensor.is_object() ? tensor.find("data_offsets") : tensor.end();
    if (!tensor.is_object() || offsets == tensor.end() || !offsets->is_array() || offsets->size() != 2 ||
        !(*offsets)[1].is_number_unsigned()) {
      return Missing{MissingReason::unparseable, "a tensor of its header has no data_offsets"};
    }
    end = std::max(end, (*offsets)[1].get<std::uint64_t>());
  }
  return end;
}

bool zip_tail_has_end_record(std::string_view tail) {
  return tail.rfind(std::string_view("PK\x05\x06", 4)) != std::string_view::npos;
}

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
