#include "collect/weights/model_weights.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include <fmt/format.h>

#include "base/unique_fd.h"
#include "collect/read_parsed.h"
#include "parse/weights/safetensors_index.h"
#include "parse/weights/safetensors_summary.h"

namespace ftdiag::collect {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSingleFile = "model.safetensors";
constexpr std::string_view kIndexFile = "model.safetensors.index.json";

Missing unparseable(std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; }

// ---- reading ------------------------------------------------------------------

// Exactly length bytes at offset, or why not.
Fact<std::string> read_at(int fd, std::uint64_t offset, std::uint64_t length, const fs::path& file) {
  std::string out(length, '\0');
  std::uint64_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return missing_from_errno(errno, "read " + file.string());
    if (n == 0) return unparseable(file.string() + ": the file ended before its header did (it shrank while read)");
    done += static_cast<std::uint64_t>(n);
  }
  return out;
}

Missing in_file(const fs::path& file, const Missing& missing) {
  return Missing{missing.reason, file.string() + ": " + missing.detail};
}

// Whether path exists; a failure other than "no such file" (a folder that
// cannot be searched) is the answer.
Fact<bool> present(const fs::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return missing_from_errno(errno, "stat " + path.string());
}

// The files to read and, from an index, the tensors each must hold.
struct WeightFiles {
  std::string layout;
  std::vector<fs::path> files;
  parse::SafetensorsIndex expected;  // file name -> tensor names; empty without an index
};

struct FolderListing {
  std::vector<fs::path> safetensors;  // model files, a LoRA adapter's left out
  bool adapter = false;               // adapter_model*.safetensors
  std::string torch_weights;          // a pytorch_model.bin or the like, when there is one
};

bool is_torch_save_file(const fs::path& file) {
  const auto extension = file.extension();
  return extension == ".bin" || extension == ".pt" || extension == ".pth";
}

// A model's torch.save weights, not a Trainer's other .bin/.pt files
// (training_args.bin, optimizer.pt, rng_state.pth).
bool is_torch_weights(const std::string& name) {
  if (!is_torch_save_file(name)) return false;
  return name.starts_with("pytorch_model") || name.starts_with("model") || name.starts_with("consolidated");
}

Fact<FolderListing> list_folder(const fs::path& folder) {
  std::error_code error;
  fs::directory_iterator entries(folder, error);
  if (error) return missing_from_errno(error.value(), "list " + folder.string());
  FolderListing listing;
  std::size_t seen = 0;
  for (; entries != fs::directory_iterator(); entries.increment(error)) {
    if (error) return missing_from_errno(error.value(), "list " + folder.string());
    if (++seen > kMaxWeightFolderEntries) break;
    const std::string name = entries->path().filename().string();
    if (entries->path().extension() != ".safetensors") {
      if (is_torch_weights(name) && listing.torch_weights.empty()) listing.torch_weights = name;
    } else if (name.starts_with("adapter_model")) {
      listing.adapter = true;
    } else {
      listing.safetensors.push_back(entries->path());
    }
  }
  if (error) return missing_from_errno(error.value(), "list " + folder.string());
  std::sort(listing.safetensors.begin(), listing.safetensors.end());
  return listing;
}

Fact<WeightFiles> files_without_index(const fs::path& folder) {
  auto listing = list_folder(folder);
  if (!listing) return listing.missing();
  if (!listing->safetensors.empty()) return WeightFiles{"*.safetensors", std::move(listing->safetensors), {}};
  if (listing->adapter) {
    return Missing{MissingReason::not_present,
                   fmt::format("{} holds only a LoRA adapter (adapter_model.safetensors): the base model's weights are "
                               "elsewhere (adapter_config.json names them)",
                               folder.string())};
  }
  if (!listing->torch_weights.empty()) {
    return Missing{MissingReason::unsupported,
                   fmt::format("{} holds its weights as {} (torch.save's pickle): ftdiag does not read those, since "
                               "reading one means unpickling it; config.json gives the shape instead",
                               folder.string(), listing->torch_weights)};
  }
  return Missing{MissingReason::not_present, fmt::format("{} holds no safetensors weights", folder.string())};
}

Fact<WeightFiles> files_of_index(const fs::path& index_file) {
  auto index = read_parsed(index_file, kMaxWeightIndexBytes + 1, parse::parse_safetensors_index);
  if (!index) return index.missing();
  WeightFiles found{std::string(kIndexFile), {}, std::move(*index)};
  for (const auto& [shard, tensors] : found.expected) found.files.push_back(index_file.parent_path() / shard);
  return found;
}

Fact<WeightFiles> locate_weight_files(const fs::path& model) {
  struct stat status {};
  if (::stat(model.c_str(), &status) != 0) return missing_from_errno(errno, "stat " + model.string());
  if (!S_ISDIR(status.st_mode) && is_torch_save_file(model)) {
    return Missing{MissingReason::unsupported,
                   fmt::format("{} is torch.save's pickle: ftdiag does not read those, since reading one means "
                               "unpickling it; config.json gives the shape instead",
                               model.string())};
  }
  if (!S_ISDIR(status.st_mode)) return WeightFiles{"file", {model}, {}};
  auto single = present(model / kSingleFile);
  if (!single) return single.missing();
  if (*single) return WeightFiles{std::string(kSingleFile), {model / kSingleFile}, {}};
  auto indexed = present(model / kIndexFile);
  if (!indexed) return indexed.missing();
  if (*indexed) return files_of_index(model / kIndexFile);
  return files_without_index(model);
}

// Each tensor the index places in a shard must be in its header: a shard
// from another save (a save cut short and resumed) holds other names.
std::optional<Missing> index_mismatch(const fs::path& shard, const parse::SafetensorsHeader& header,
                                      const std::vector<std::string>& expected) {
  std::vector<std::string_view> names;
  for (const auto& tensor : header.tensors) names.push_back(tensor.name);
  std::sort(names.begin(), names.end());
  std::size_t lacking = 0;
  std::string first;
  for (const auto& name : expected) {
    if (std::binary_search(names.begin(), names.end(), name)) continue;
    if (lacking++ == 0) first = parse::printable_excerpt(name);
  }
  if (lacking == 0) return std::nullopt;
  return unparseable(fmt::format("{} lacks {} of the tensors {} places in it (the first: {}): the index and the shard "
                                 "are not from the same save",
                                 shard.string(), lacking, kIndexFile, first));
}

Fact<parse::SafetensorsHeader> read_shard(const fs::path& shard, const WeightFiles& files) {
  auto header = read_safetensors_header(shard);
  const auto expected = files.expected.find(shard.filename().string());
  if (expected == files.expected.end()) return header;
  if (!header && header.missing().reason == MissingReason::not_present) {
    return Missing{MissingReason::not_present, fmt::format("{} names the shard {}, which is not in {}", kIndexFile,
                                                           shard.filename().string(), shard.parent_path().string())};
  }
  if (!header) return header;
  if (auto mismatch = index_mismatch(shard, *header, expected->second)) return *mismatch;
  return header;
}

}  // namespace

Fact<parse::SafetensorsHeader> read_safetensors_header(const fs::path& file) {
  // O_NONBLOCK: a FIFO in place of a shard must not hang the reader.
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return missing_from_errno(errno, "open " + file.string());
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) return missing_from_errno(errno, "stat " + file.string());
  if (!S_ISREG(status.st_mode)) return unparseable(file.string() + " is not a regular file");
  const auto size = static_cast<std::uint64_t>(status.st_size);
  auto prefix = read_at(fd.get(), 0, std::min<std::uint64_t>(size, parse::kSafetensorsLengthBytes), file);
  if (!prefix) return prefix.missing();
  auto length = parse::parse_safetensors_length(*prefix, size);
  if (!length) return in_file(file, length.missing());
  auto text = read_at(fd.get(), parse::kSafetensorsLengthBytes, *length, file);
  if (!text) return text.missing();
  auto header = parse::parse_safetensors_header(*text, size - parse::kSafetensorsLengthBytes - *length);
  if (!header) return in_file(file, header.missing());
  return header;
}

Fact<parse::DottedSettings> read_model_weights(const fs::path& model) {
  auto files = locate_weight_files(model);
  if (!files) return files.missing();
  std::vector<parse::SafetensorsHeader> headers;
  std::size_t tensors = 0;
  for (const auto& file : files->files) {
    auto header = read_shard(file, *files);
    if (!header) return header.missing();
    tensors += header->tensors.size();
    if (tensors > kMaxWeightTensors) {
      return unparseable(fmt::format("{}: the model's files hold over {} tensors, more than ftdiag reads for one model",
                                     model.string(), kMaxWeightTensors));
    }
    headers.push_back(std::move(*header));
  }
  auto settings = parse::summarize_safetensors(headers);
  settings["layout"] = files->layout;
  return settings;
}

}  // namespace ftdiag::collect
