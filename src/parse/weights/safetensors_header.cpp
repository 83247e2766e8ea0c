#include "parse/weights/safetensors_header.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {
namespace {

using json = nlohmann::json;

Missing header_unparseable(std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; }

// Tensor names come from the file: printable and bounded before they reach a
// detail, which ends up in JSON documents.
std::string shown(std::string_view name) { return printable_excerpt(name, 120); }

struct DtypeBits {
  std::string_view name;
  unsigned bits;
};

// The dtypes of safetensors 0.6 (its Dtype enum). F4 and F6 pack several
// elements into a byte; a tensor of them must still fill whole bytes.
constexpr DtypeBits kDtypes[] = {
    {"BOOL", 8},     {"U8", 8},       {"I8", 8},   {"F8_E4M3", 8}, {"F8_E5M2", 8}, {"F8_E8M0", 8}, {"F4", 4},
    {"F6_E2M3", 6},  {"F6_E3M2", 6},  {"I16", 16}, {"U16", 16},    {"F16", 16},    {"BF16", 16},   {"I32", 32},
    {"U32", 32},     {"F32", 32},     {"I64", 64}, {"U64", 64},    {"F64", 64},    {"C64", 64},
};

// A header nests three levels: the root object, a tensor's object, its
// shape or data_offsets array. The DOM parser keeps a frame per level, so a
// hostile 100 MB of '[' would cost GiBs: this SAX pass refuses deeper
// nesting, and malformed JSON, before any DOM is built. Every event returns
// false to stop the parse.
class NestingGuard {
 public:
  static constexpr std::size_t kMaxDepth = 3;

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const json::string_t&) { return true; }
  bool string(json::string_t&) { return true; }
  bool binary(json::binary_t&) { return fail("a binary value"); }
  bool key(json::string_t&) {
    if (depth_ == 1 && ++entries_ > kSafetensorsMaxTensors + 1) {  // + __metadata__
      return fail(fmt::format("its header holds over {} tensors, more than ftdiag reads in one file", kSafetensorsMaxTensors));
    }
    return true;
  }
  bool start_object(std::size_t) { return open(); }
  bool start_array(std::size_t) { return open(); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) {
    // position counts the bytes read, the offending one included.
    return fail(fmt::format("its header is not JSON (at byte {})", position > 0 ? position - 1 : 0));
  }

  const std::optional<std::string>& error() const { return error_; }

 private:
  bool open() { return ++depth_ <= kMaxDepth || fail("its header nests deeper than a safetensors header does"); }
  bool close() {
    --depth_;
    return true;
  }
  bool fail(std::string detail) {
    if (!error_) error_ = std::move(detail);
    return false;
  }

  std::size_t depth_ = 0;
  std::size_t entries_ = 0;
  std::optional<std::string> error_;
};

std::optional<std::uint64_t> product(const std::vector<std::uint64_t>& shape) {
  std::uint64_t elements = 1;
  for (auto dimension : shape) {
    if (__builtin_mul_overflow(elements, dimension, &elements)) return std::nullopt;
  }
  return elements;
}

// [4096, 11008] -> "[4096, 11008]"
std::string shape_text(const std::vector<std::uint64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

Fact<std::vector<std::uint64_t>> whole_numbers(const json& array) {
  std::vector<std::uint64_t> numbers;
  for (const auto& number : array) {
    if (!number.is_number_unsigned()) return header_unparseable("not whole numbers");
    numbers.push_back(number.get<std::uint64_t>());
  }
  return numbers;
}

Fact<SafetensorsTensor> tensor_shape_and_place(std::string name, const json& entry) {
  const std::string who = fmt::format("tensor \"{}\"", shown(name));
  if (!entry.is_object()) return header_unparseable(who + " is not an object");
  const auto dtype = entry.find("dtype");
  const auto shape = entry.find("shape");
  const auto offsets = entry.find("data_offsets");
  if (dtype == entry.end() || !dtype->is_string()) return header_unparseable(who + " has no dtype");
  if (shape == entry.end() || !shape->is_array()) return header_unparseable(who + " has no shape");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2) {
    return header_unparseable(who + " has no data_offsets [begin, end]");
  }
  auto dimensions = whole_numbers(*shape);
  auto places = whole_numbers(*offsets);
  if (!dimensions) return header_unparseable(who + "'s shape is " + dimensions.missing().detail);
  if (!places) return header_unparseable(who + "'s data_offsets are " + places.missing().detail);
  const auto elements = product(*dimensions);
  if (!elements) return header_unparseable(fmt::format("{}'s shape {} overflows", who, shape_text(*dimensions)));
  if ((*places)[1] < (*places)[0]) return header_unparseable(who + "'s data_offsets end before they begin");
  return SafetensorsTensor{std::move(name), dtype->get<std::string>(), std::move(*dimensions), *elements,
                           (*places)[0], (*places)[1]};
}

// Whether the offsets span what the shape and dtype need, when the dtype is
// known. Returns the problem, if any.
std::optional<std::string> size_problem(const SafetensorsTensor& tensor) {
  const unsigned bits = safetensors_dtype_bits(tensor.dtype);
  if (bits == 0) {
    // No dtype packs more than 8 elements in a byte: more elements than that
    // is a shape no file can hold, and would make every count garbage.
    const std::uint64_t span = tensor.end - tensor.begin;
    std::uint64_t most = 0;
    if (!__builtin_mul_overflow(span, std::uint64_t{8}, &most) && tensor.elements > most) {
      return fmt::format("tensor \"{}\" of unknown dtype \"{}\": shape {} has {} elements, more than its data_offsets' {} "
                         "bytes can hold",
                         shown(tensor.name), shown(tensor.dtype), shape_text(tensor.shape), tensor.elements, span);
    }
    return std::nullopt;
  }
  std::uint64_t total_bits = 0;
  if (__builtin_mul_overflow(tensor.elements, std::uint64_t{bits}, &total_bits)) {
    return fmt::format("tensor \"{}\"'s shape {} overflows", shown(tensor.name), shape_text(tensor.shape));
  }
  if (total_bits % 8 != 0) {
    return fmt::format("tensor \"{}\": {} elements of {} do not fill whole bytes", shown(tensor.name),
                       tensor.elements, tensor.dtype);
  }
  if (tensor.end - tensor.begin == total_bits / 8) return std::nullopt;
  return fmt::format("tensor \"{}\": shape {} of {} needs {} bytes, its data_offsets span {}", shown(tensor.name),
                     shape_text(tensor.shape), tensor.dtype, total_bits / 8, tensor.end - tensor.begin);
}

Fact<std::map<std::string, std::string>> metadata_of(const json& entry) {
  if (!entry.is_object()) return header_unparseable("its __metadata__ is not an object");
  std::map<std::string, std::string> metadata;
  for (const auto& [key, value] : entry.items()) {
    // The library reads it as a map of strings and refuses anything else.
    if (!value.is_string()) return header_unparseable(fmt::format("its __metadata__ \"{}\" is not a string", shown(key)));
    metadata.emplace(key, value.get<std::string>());
  }
  return metadata;
}

// The library's rule: sorted by offset, the tensors tile the data section
// from byte 0 with no gap and no overlap. Sets data_bytes.
std::optional<std::string> tiling_problem(SafetensorsHeader& header) {
  std::sort(header.tensors.begin(), header.tensors.end(),
            [](const auto& a, const auto& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  std::uint64_t position = 0;
  for (const auto& tensor : header.tensors) {
    if (tensor.begin < position) {
      return fmt::format("tensor \"{}\" starts at byte {} of the data, inside the tensor before it, which ends at "
                         "byte {}",
                         shown(tensor.name), tensor.begin, position);
    }
    if (tensor.begin > position) {
      return fmt::format("tensor \"{}\" starts at byte {} of the data, but the tensors before it end at byte {}: a gap",
                         shown(tensor.name), tensor.begin, position);
    }
    position = tensor.end;
  }
  header.data_bytes = position;
  return std::nullopt;
}

std::optional<std::string> data_section_problem(std::uint64_t needed, std::optional<std::uint64_t> available) {
  if (!available || *available == needed) return std::nullopt;
  if (*available < needed) {
    return fmt::format("truncated: its tensors need {} bytes after the header, the file holds {}", needed, *available);
  }
  return fmt::format("{} bytes follow the last tensor's data (readers refuse such a file)", *available - needed);
}

Fact<SafetensorsHeader> header_of(const json& root) {
  if (!root.is_object()) return header_unparseable("its header is not a JSON object");
  SafetensorsHeader header;
  for (const auto& [name, entry] : root.items()) {
    if (name == "__metadata__") {
      if (entry.is_null()) continue;  // the library reads it as optional
      auto metadata = metadata_of(entry);
      if (!metadata) return metadata.missing();
      header.metadata = std::move(*metadata);
      continue;
    }
    auto tensor = tensor_shape_and_place(name, entry);
    if (!tensor) return tensor.missing();
    if (auto problem = size_problem(*tensor)) return header_unparseable(std::move(*problem));
    if (safetensors_dtype_bits(tensor->dtype) == 0) ++header.unknown_dtype_tensors;
    header.tensors.push_back(std::move(*tensor));
  }
  if (auto problem = tiling_problem(header)) return header_unparseable(std::move(*problem));
  return header;
}

}  // namespace

unsigned safetensors_dtype_bits(std::string_view dtype) {
  for (const auto& known : kDtypes) {
    if (known.name == dtype) return known.bits;
  }
  return 0;
}

Fact<std::uint64_t> parse_safetensors_length(std::string_view first_bytes, std::optional<std::uint64_t> file_size) {
  if (first_bytes.size() < kSafetensorsLengthBytes) {
    return header_unparseable(fmt::format("{} bytes, shorter than the 8 that give a safetensors header's length",
                                   first_bytes.size()));
  }
  std::uint64_t length = 0;
  for (std::size_t i = kSafetensorsLengthBytes; i-- > 0;) {
    length = (length << 8) | static_cast<unsigned char>(first_bytes[i]);
  }
  if (length > kSafetensorsMaxHeaderBytes) {
    return header_unparseable(fmt::format("a header length of {} bytes is over the format's limit of {}: not a safetensors file",
                                   length, kSafetensorsMaxHeaderBytes));
  }
  if (length < 2) return header_unparseable(fmt::format("a header length of {} bytes cannot hold a JSON object", length));
  if (file_size && *file_size < kSafetensorsLengthBytes + length) {
    return header_unparseable(fmt::format("truncated inside its header: {} bytes, the header alone needs {}", *file_size,
                                   kSafetensorsLengthBytes + length));
  }
  return length;
}

Fact<SafetensorsHeader> parse_safetensors_header(std::string_view text, std::optional<std::uint64_t> data_section_bytes) {
  if (text.size() > kSafetensorsMaxParsedHeaderBytes) {
    return header_unparseable(fmt::format("a header of {} bytes, over the {} MiB ftdiag parses (no model's header comes near)",
                                   text.size(), kSafetensorsMaxParsedHeaderBytes >> 20));
  }
  NestingGuard guard;
  // Strict: anything but whitespace (the writer's padding) after the object is an error.
  json::sax_parse(text.begin(), text.end(), &guard);
  if (guard.error()) return header_unparseable(*guard.error());
  auto header = header_of(json::parse(text.begin(), text.end(), nullptr, false));
  if (!header) return header;
  if (auto problem = data_section_problem(header->data_bytes, data_section_bytes)) return header_unparseable(std::move(*problem));
  return header;
}

Fact<SafetensorsHeader> parse_safetensors_start(std::string_view file_start, std::optional<std::uint64_t> file_size) {
  auto length = parse_safetensors_length(file_start, file_size);
  if (!length) return length.missing();
  if (file_start.size() - kSafetensorsLengthBytes < *length) {
    return header_unparseable(fmt::format("truncated inside its header: {} bytes, the header alone needs {}", file_start.size(),
                                   kSafetensorsLengthBytes + *length));
  }
  std::optional<std::uint64_t> data_section;
  if (file_size) data_section = *file_size - kSafetensorsLengthBytes - *length;
  return parse_safetensors_header(file_start.substr(kSafetensorsLengthBytes, *length), data_section);
}

}  // namespace ftdiag::parse
