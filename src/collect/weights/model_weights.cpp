#include "collect/weights/model_weights.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/unique_fd.h"
#include "collect/read_parsed.h"

namespace ftdiag::collect {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::string_view kSingleFile = "model.safetensors";
constexpr std::string_view kIndexFile = "model.safetensors.index.json";

Missing unparseable(std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; }

// ---- the summary --------------------------------------------------------------

std::string_view last_component(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::string_view module_of(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

// The linear layers LoRA targets in the architectures ftdiag knows (Llama
// and its kin, Mixtral's experts and router, GPT-NeoX, ChatGLM, Baichuan,
// Phi). The LM head and embeddings are left out, as PEFT's "all-linear" does.
// GPT-2's c_attn/c_fc are Conv1D, stored [in, out]: left out rather than read
// the wrong way round.
bool is_linear_name(std::string_view name) {
  static const std::set<std::string_view> kLinearNames = {
      "q_proj",   "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",      "down_proj",
      "W_pack",   "query_key_value",  "dense",  "dense_h_to_4h", "dense_4h_to_h", "w1",
      "w2",       "w3",     "gate",   "qkv_proj", "gate_up_proj", "fc1",         "fc2",
      "out_proj", "wqkv",   "wo"};
  return kLinearNames.contains(name);
}

// Buffers a checkpoint carries beside its parameters (see the header).
bool is_buffer(const SafetensorsTensor& tensor) {
  const auto last = last_component(tensor.name);
  if (last == "inv_freq" || last == "masked_bias" || last == "position_ids") return true;
  if (last == "bias" && tensor.shape.size() > 1) return true;  // a linear's bias is 1-D; a causal mask is not
  return tensor.dtype == "BOOL";
}

constexpr std::string_view kQuantStateMarker = ".weight.quant_state.bitsandbytes__";

// bitsandbytes' state beside a quantized weight (its QuantState.as_dict):
// "<m>.weight.absmax", ".quant_map", ".nested_absmax", ".nested_quant_map"
// and "<m>.weight.quant_state.bitsandbytes__nf4" (4-bit); "<m>.SCB" and
// "<m>.weight_format" (8-bit, Int8Params).
bool is_quantization_state(std::string_view name) {
  const auto last = last_component(name);
  if (last == "SCB" || last == "weight_format") return true;
  if (name.find(".weight.quant_state.") != std::string_view::npos) return true;
  const bool of_a_weight = last_component(module_of(name)) == "weight";
  return of_a_weight && (last == "absmax" || last == "quant_map" || last == "nested_absmax" || last == "nested_quant_map");
}

// What the quantization markers say, found before anything is counted: a
// packed weight and its quant_state may sit in either order, in any shard.
struct Quantization {
  std::string method;                 // "", "bnb-4bit", "bnb-8bit", "gptq-awq"
  std::set<std::string> packed_4bit;  // names of bitsandbytes' packed uint8 weights
};

Quantization quantization_of(const std::vector<SafetensorsHeader>& files) {
  Quantization found;
  bool int32_packed = false, int8 = false;
  for (const auto& file : files) {
    for (const auto& tensor : file.tensors) {
      const auto& name = tensor.name;
      if (auto marker = name.find(kQuantStateMarker); marker != std::string::npos) {
        found.packed_4bit.insert(name.substr(0, marker + std::string_view(".weight").size()));
      }
      int32_packed = int32_packed || last_component(name) == "qweight";
      int8 = int8 || last_component(name) == "SCB";
    }
  }
  // GPTQ/AWQ first: their counts are withheld whatever else is there.
  if (int32_packed) found.method = "gptq-awq";
  else if (!found.packed_4bit.empty()) found.method = "bnb-4bit";
  else if (int8) found.method = "bnb-8bit";
  return found;
}

// (in, out) -> copies, per linear name.
using LinearShapes = std::map<std::string, std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t>>;

struct Tally {
  std::uint64_t tensors = 0;
  std::uint64_t bytes = 0;
  std::uint64_t parameters = 0;
  std::uint64_t buffers = 0;
  std::uint64_t unknown_dtypes = 0;
  std::map<std::string, std::uint64_t, std::less<>> module_parameters;
  std::map<std::string, std::uint64_t> dtype_parameters;
  LinearShapes linears;
};

void count_parameter(Tally& tally, const SafetensorsTensor& tensor, bool packed_4bit) {
  const std::uint64_t parameters = packed_4bit ? 2 * tensor.elements : tensor.elements;
  tally.parameters += parameters;
  tally.dtype_parameters[tensor.dtype] += parameters;
  const auto module = module_of(tensor.name);
  tally.module_parameters[std::string(module)] += parameters;
  if (!packed_4bit && last_component(tensor.name) == "weight" && tensor.shape.size() == 2 &&
      is_linear_name(last_component(module))) {
    ++tally.linears[std::string(last_component(module))][{tensor.shape[1], tensor.shape[0]}];
  }
}

Tally tally_of(const std::vector<SafetensorsHeader>& files, const Quantization& quantization) {
  Tally tally;
  for (const auto& file : files) {
    tally.bytes += file.data_bytes;
    tally.unknown_dtypes += file.unknown_dtype_tensors;
    for (const auto& tensor : file.tensors) {
      ++tally.tensors;
      if (is_buffer(tensor) || is_quantization_state(tensor.name)) {
        ++tally.buffers;
        continue;
      }
      count_parameter(tally, tensor, quantization.packed_4bit.contains(tensor.name));
    }
  }
  return tally;
}

template <class Map>
auto largest_entry(const Map& map) {
  return std::max_element(map.begin(), map.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
}

// "4096,4096,32" or "4096,11008,30;4096,1408,2": most copies first.
std::string linear_text(const std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t>& shapes) {
  std::vector<std::pair<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t>> groups(shapes.begin(), shapes.end());
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [in_out, copies] : groups) parts.push_back(fmt::format("{},{},{}", in_out.first, in_out.second, copies));
  return fmt::format("{}", fmt::join(parts, ";"));
}

void write_counts(parse::DottedSettings& settings, const Tally& tally) {
  settings["parameters"] = std::to_string(tally.parameters);
  if (auto largest = largest_entry(tally.module_parameters); largest != tally.module_parameters.end()) {
    settings["largest_layer_parameters"] = std::to_string(largest->second);
    settings["largest_layer"] = largest->first;
  }
  for (const auto& [name, shapes] : tally.linears) settings["linear." + name] = linear_text(shapes);
}

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
  SafetensorsIndex expected;  // file name -> tensor names; empty without an index
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
  auto index = read_parsed(index_file, kMaxWeightIndexBytes + 1, parse_safetensors_index);
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
std::optional<Missing> index_mismatch(const fs::path& shard, const SafetensorsHeader& header,
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

Fact<SafetensorsHeader> read_shard(const fs::path& shard, const WeightFiles& files) {
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

// Whether JSON text nests deeper than limit (strings skipped). An index
// nests two levels; the DOM parser keeps a frame per level, so a hostile
// 64 MiB of '[' is refused before it is parsed.
bool nests_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      in_string = in_string && c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

}  // namespace

Fact<SafetensorsIndex> parse_safetensors_index(std::string_view text) {
  if (nests_deeper_than(text, 16)) return unparseable("nested deeper than an index is");
  const auto root = json::parse(text.begin(), text.end(), nullptr, false);
  if (root.is_discarded()) return unparseable("not JSON");
  const auto map = root.is_object() ? root.find("weight_map") : root.end();
  if (map == root.end() || !map->is_object() || map->empty()) return unparseable("no \"weight_map\" of tensors to shards");
  SafetensorsIndex index;
  for (const auto& [tensor, shard] : map->items()) {
    if (!shard.is_string()) return unparseable(fmt::format("the shard of \"{}\" is not a file name", parse::printable_excerpt(tensor)));
    const auto& file = shard.get_ref<const std::string&>();
    // A shard sits beside the index: a path elsewhere is not one.
    if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos) {
      return unparseable(fmt::format("the shard \"{}\" is not a file name in the index's folder", parse::printable_excerpt(file)));
    }
    index[file].push_back(tensor);
    if (index.size() > kMaxWeightShards) return unparseable(fmt::format("names over {} shards", kMaxWeightShards));
  }
  return index;
}

parse::DottedSettings summarize_safetensors(const std::vector<SafetensorsHeader>& files) {
  const Quantization quantization = quantization_of(files);
  const Tally tally = tally_of(files, quantization);
  parse::DottedSettings settings;
  settings["files"] = std::to_string(files.size());
  settings["tensors"] = std::to_string(tally.tensors);
  settings["bytes"] = std::to_string(tally.bytes);
  settings["buffers"] = std::to_string(tally.buffers);
  settings["unknown_dtype_tensors"] = std::to_string(tally.unknown_dtypes);
  if (auto dtype = largest_entry(tally.dtype_parameters); dtype != tally.dtype_parameters.end()) {
    settings["dtype"] = dtype->first;
  }
  if (!quantization.method.empty()) settings["quantization"] = quantization.method;
  // GPTQ/AWQ counts would need the bit width from config.json: none rather than wrong ones.
  if (quantization.method != "gptq-awq") write_counts(settings, tally);
  return settings;
}

Fact<SafetensorsHeader> read_safetensors_header(const fs::path& file) {
  // O_NONBLOCK: a FIFO in place of a shard must not hang the reader.
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return missing_from_errno(errno, "open " + file.string());
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) return missing_from_errno(errno, "stat " + file.string());
  if (!S_ISREG(status.st_mode)) return unparseable(file.string() + " is not a regular file");
  const auto size = static_cast<std::uint64_t>(status.st_size);
  auto prefix = read_at(fd.get(), 0, std::min<std::uint64_t>(size, kSafetensorsLengthBytes), file);
  if (!prefix) return prefix.missing();
  auto length = parse_safetensors_length(*prefix, size);
  if (!length) return in_file(file, length.missing());
  auto text = read_at(fd.get(), kSafetensorsLengthBytes, *length, file);
  if (!text) return text.missing();
  auto header = parse_safetensors_header(*text, size - kSafetensorsLengthBytes - *length);
  if (!header) return in_file(file, header.missing());
  return header;
}

Fact<parse::DottedSettings> read_model_weights(const fs::path& model) {
  auto files = locate_weight_files(model);
  if (!files) return files.missing();
  std::vector<SafetensorsHeader> headers;
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
  auto settings = summarize_safetensors(headers);
  settings["layout"] = files->layout;
  return settings;
}

}  // namespace ftdiag::collect
