#include "parse/reports/report_text.h"

#include <array>
#include <cmath>

#include "base/ascii.h"
#include "base/text.h"
#include "parse/python_env/dist_info.h"
#include "parse/python_env/python_package_catalogue.h"

namespace ftdiag::parse::report {

namespace {

using ascii::is_alpha;
using ascii::is_digit;
constexpr char lower(char c) { return ascii::to_lower(c); }

// Packages outside the environment reader's catalogue whose versions still
// explain deaths: extensions compiled against one torch (torch-scatter,
// mmcv), the stacks around it, and conda's CUDA packages.
constexpr std::array kAlsoKept = std::to_array<std::string_view>({
    "torchvision", "torchaudio", "torch-scatter", "torch-sparse", "torch-cluster", "torch-spline-conv",
    "torch-geometric", "pyg-lib", "mmcv", "mmcv-full", "mmcls", "mmdet", "mmengine", "numpy", "tensorflow",
    "jax", "jaxlib", "flax", "safetensors", "tokenizers", "datasets", "huggingface-hub", "unsloth",
    "megatron-core", "pytorch-lightning", "lightning", "colossalai", "fairscale", "ninja", "liger-kernel",
    "cudatoolkit", "pytorch-cuda", "nccl", "cupy", "onnxruntime-gpu", "optimum", "auto-gptq", "autoawq",
    "sentencepiece", "llamafactory", "axolotl", "mamba-ssm", "causal-conv1d", "torchao", "xformers"});

}  // namespace

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower(c);
  return out;
}

bool contains_icase(std::string_view text, std::string_view word) {
  if (word.empty() || word.size() > text.size()) return word.empty();
  for (std::size_t i = 0; i + word.size() <= text.size(); ++i) {
    std::size_t j = 0;
    while (j < word.size() && lower(text[i + j]) == lower(word[j])) ++j;
    if (j == word.size()) return true;
  }
  return false;
}

std::string_view leading_version(std::string_view text) {
  if (text.empty() || !is_digit(text.front())) return {};
  std::size_t end = 0;
  while (end < text.size()) {
    const char c = text[end];
    if (!(is_digit(c) || is_alpha(c) || c == '.' || c == '+' || c == '-' || c == '_')) break;
    ++end;
  }
  auto version = text.substr(0, end);
  while (!version.empty() && (version.back() == '.' || version.back() == '-' || version.back() == '_')) version.remove_suffix(1);
  return version;
}

std::optional<std::uint64_t> unit_multiplier(std::string_view unit) {
  if (unit.empty() || unit.size() > 3) return std::nullopt;
  std::string u = lowercase(unit);
  if (u == "b") return 1;
  if (u.size() == 3 && u.substr(1) != "ib") return std::nullopt;
  if (u.size() == 2 && u[1] != 'b' && u[1] != 'i') return std::nullopt;
  switch (u[0]) {
    case 'k': return std::uint64_t{1} << 10;
    case 'm': return std::uint64_t{1} << 20;
    case 'g': return std::uint64_t{1} << 30;
    case 't': return std::uint64_t{1} << 40;
    default: return std::nullopt;
  }
}

std::optional<std::uint64_t> leading_size(std::string_view text, std::string_view* rest) {
  std::size_t i = 0;
  std::uint64_t whole = 0;
  while (i < text.size() && is_digit(text[i])) {
    if (i >= 12) return std::nullopt;  // no report states a size that long
    whole = whole * 10 + static_cast<std::uint64_t>(text[i] - '0');
    ++i;
  }
  if (i == 0) return std::nullopt;
  double fraction = 0, scale = 0.1;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (int digits = 0; i < text.size() && is_digit(text[i]); ++i, ++digits) {
      if (digits < 6) fraction += scale * (text[i] - '0');
      scale /= 10;
    }
  }
  while (i < text.size() && text[i] == ' ') ++i;
  std::size_t unit_end = i;
  while (unit_end < text.size() && is_alpha(text[unit_end])) ++unit_end;
  const auto multiplier = unit_multiplier(text.substr(i, unit_end - i));
  if (!multiplier) return std::nullopt;
  if (rest) *rest = text.substr(unit_end);
  return static_cast<std::uint64_t>(std::llround((static_cast<double>(whole) + fraction) * static_cast<double>(*multiplier)));
}

std::string_view without_bullet(std::string_view text) {
  text = text::trim(text);
  if (text.size() >= 2 && (text[0] == '-' || text[0] == '*') && text[1] == ' ') text = text::trim(text.substr(2));
  return text;
}

std::string simplified_label(std::string_view label) {
  std::string out;
  for (char c : without_bullet(label)) {
    if (c == '`' || c == '*') continue;
    if (text::is_space(c)) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
      continue;
    }
    out.push_back(lower(c));
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string kept_package(std::string_view name) {
  if (name.empty() || name.size() > 64 || !is_alpha(name.front())) return {};
  for (char c : name) {
    if (!(is_alpha(c) || is_digit(c) || c == '-' || c == '_' || c == '.')) return {};
  }
  // Normalising drops a trailing separator too: "torch-scatter." as typed.
  std::string normalised = parse::normalize_distribution_name(name);
  if (normalised == "pytorch") return "torch";
  if (catalogued_package(normalised)) return normalised;
  for (auto kept : kAlsoKept) {
    if (normalised == kept) return normalised;
  }
  return {};
}

std::string_view python_bool(std::string_view text) {
  const std::string word = lowercase(text::trim(text));
  if (word == "true") return "true";
  if (word == "false") return "false";
  return {};
}

}  // namespace ftdiag::parse::report
