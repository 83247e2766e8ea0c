// A model's weights summarised from their safetensors headers alone
// (safetensors_header.h): the exact parameter count, the largest module and
// the linear layers, without a byte of tensor data. The reader
// (collect/weights/model_weights.h) finds the files and reads their headers.
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

#include <vector>

#include "parse/configs/dotted_settings.h"
#include "parse/weights/safetensors_header.h"

namespace ftdiag::parse {

// The headers of one model's files summarised as the keys above (all but
// "layout", which says how the reader found the files). Pure.
DottedSettings summarize_safetensors(const std::vector<SafetensorsHeader>& files);

}  // namespace ftdiag::parse
