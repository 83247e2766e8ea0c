// A local model's weights summarised from their safetensors headers alone
// (safetensors_header.h): the exact parameter count, the largest module and
// the linear layers, without reading a byte of tensor data, so that a 140 GB
// model costs a few small reads per shard.
//
// The summary is settings (dotted keys -> text, the shape of every config
// reader), the "model-weights" source; estimate/model_shape.h turns them into
// a model's shape. Keys:
//
//   layout                    how the files were found: "model.safetensors",
//                             "model.safetensors.index.json" (shards it names),
//                             "*.safetensors" (every one in the folder, no
//                             index), "file" (a .safetensors file was given)
//   files                     safetensors files read
//   tensors                   tensors in their headers, all of them
//   bytes                     bytes of tensor data (the files less their headers)
//   parameters                elements of the tensors that are parameters
//                             (see "What counts" below); absent for GPTQ/AWQ
//   largest_layer_parameters  the most parameters one module holds directly
//                             (tensors grouped by name less its last
//                             component: "model.embed_tokens.weight" ->
//                             "model.embed_tokens"); absent with parameters
//   largest_layer             that module's name
//   dtype                     the dtype holding the most parameters, as
//                             safetensors writes it ("BF16", "F16", "F32", "U8")
//   buffers                   tensors that are not parameters (below)
//   unknown_dtype_tensors     tensors of a dtype this reader has no size for
//   quantization              absent for plain weights; "bnb-4bit",
//                             "bnb-8bit" (bitsandbytes), "gptq-awq" (int32
//                             qweight packing)
//   linear.<name>             "<in>,<out>,<count>": a 2-D "<module>.weight"
//                             whose module's last name component is a linear
//                             layer's (q_proj, query_key_value, w1, ...), in =
//                             shape[1], out = shape[0], count = copies. When
//                             copies of one name differ in shape, groups are
//                             joined by ';', most copies first.
//
// What counts as a parameter: every tensor except
//   - buffers saved with the weights: rotary "inv_freq", "masked_bias",
//     "position_ids", a "bias" of more than one dimension (an attention mask,
//     as old GPT-NeoX and GPT-2 checkpoints hold), BOOL tensors;
//   - bitsandbytes quantization state: "<w>.weight.absmax", ".quant_map",
//     ".nested_*", ".quant_state.bitsandbytes__nf4" (4-bit), "<m>.SCB" and
//     "<m>.weight_format" (8-bit).
// A bitsandbytes 4-bit weight is stored as uint8 holding two 4-bit values
// each, shape [ceil(n/2), 1]: it counts 2 parameters per byte, exact but for
// one extra on a tensor of odd size; its in/out features are lost in that
// shape, so it gives no linear.<name> entry (config.json gives those). GPTQ
// and AWQ pack 32/bits values per int32 and the bit width is in config.json,
// not the headers: their counts are left out rather than written wrong.
// Tied weights are stored once, so they count once.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"
#include "parse/configs/dotted_settings.h"
#include "collect/weights/safetensors_header.h"

namespace ftdiag::collect {

// Bounds: the largest models ship a few hundred shards, and an index of
// ~100k tensor names is a few MiB.
inline constexpr std::size_t kMaxWeightShards = 10000;
inline constexpr std::size_t kMaxWeightIndexBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxWeightFolderEntries = 100000;
// The tensors of one model's files together (the largest models hold ~100k).
inline constexpr std::size_t kMaxWeightTensors = 500000;

// The index's weight_map grouped by shard: "model-00001-of-00002.safetensors"
// -> the tensors it holds. Pure. Missing(unparseable) when the text is not
// JSON with a non-empty "weight_map" of strings, a shard's name is not a
// plain file name in the same folder, or it names over kMaxWeightShards shards.
using SafetensorsIndex = std::map<std::string, std::vector<std::string>>;
Fact<SafetensorsIndex> parse_safetensors_index(std::string_view text);

// The headers of one model's files summarised as the keys above (all but
// "layout"). Pure.
parse::DottedSettings summarize_safetensors(const std::vector<SafetensorsHeader>& files);

// One file's header: pread of its 8 length bytes and N header bytes, sized
// against the file's length (fstat). Missing with errno's reason when it
// cannot be opened (not_present, permission_denied); unparseable, the path
// first in the detail, when it is not a regular file, not safetensors, or
// truncated.
Fact<SafetensorsHeader> read_safetensors_header(const std::filesystem::path& file);

// The summary of model, a folder (or one .safetensors file). In a folder, as
// transformers looks: model.safetensors; else model.safetensors.index.json
// and every shard it names (each header read, each shard checked to hold the
// tensors the index places in it); else every *.safetensors but a LoRA
// adapter's. Missing, the file named in the detail:
//   not_present        no such folder; no safetensors weights (or only a
//                      LoRA adapter's); a shard the index names is absent
//   unsupported        only torch.save weights (pytorch_model.bin, *.pt):
//                      reading them means unpickling, which ftdiag does not
//                      do; config.json gives the shape instead
//   permission_denied  the folder or a file cannot be read
//   unparseable        a header or the index is damaged, a shard truncated,
//                      or a shard lacks tensors the index places in it
// Symbolic links to the files are followed (the Hugging Face cache is made
// of them).
Fact<parse::DottedSettings> read_model_weights(const std::filesystem::path& model);

}  // namespace ftdiag::collect
