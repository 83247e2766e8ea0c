// The environment stated in sentences and log lines rather than a report:
// "single node 56GB Memory, 1GPU.", "RAM：251G", "4GPUs", the size of
// /dev/shm ("/dev/shm space of 254GB", df's "shm 64M 0 64M 0% /dev/shm",
// docker's "--shm-size=16g"), torch's JIT
// extensions folder ("Using /root/.cache/torch_extensions/py38_cu111 as
// PyTorch extensions root...": torch's CUDA and Python), DeepSpeed's
// start-up line ("DeepSpeed info: version=0.12.4, git-hash=…").
#include "parse/reports/report_reader.h"
#include "parse/reports/report_text.h"

#include "base/ascii.h"
#include "base/text.h"

namespace ftdiag::parse::report {

namespace {

constexpr std::string_view kProseFormat = "prose";
constexpr std::uint64_t kMaxGpusStated = 1024;

using ascii::is_alnum;
using ascii::is_digit;
// A number inside "v1.5" or "x_8" is not a count or a size of its own.
bool is_word(char c) { return is_alnum(c) || c == '.' || c == '_'; }
bool starts_word(std::string_view text, std::size_t at) { return at == 0 || !is_word(text[at - 1]); }

bool starts_with_icase(std::string_view text, std::string_view word) {
  return text.size() >= word.size() && lowercase(text.substr(0, word.size())) == word;
}

// "56GB Memory", "251 GB RAM", "256GB of RAM": a size that names host
// memory, not a GPU's ("47.5 GB memory each", "2x A100, 80GB memory").
std::optional<std::uint64_t> memory_phrase(std::string_view text) {
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (!is_digit(text[at]) || !starts_word(text, at)) continue;
    std::string_view rest;
    const auto bytes = leading_size(text.substr(at), &rest);
    if (!bytes) continue;
    rest = text::trim(rest);
    if (starts_with_icase(rest, "of ")) rest = text::trim(rest.substr(3));
    const bool memory = starts_with_icase(rest, "memory") || (starts_with_icase(rest, "ram") && (rest.size() == 3 || !is_alnum(rest[3])));
    if (!memory || contains_icase(rest, "each") || contains_icase(text.substr(0, at), "gpu")) continue;
    return bytes;
  }
  return std::nullopt;
}

// "RAM: 251G", "RAM：251G", "RAM = 256 GB".
std::optional<std::uint64_t> ram_label(std::string_view text) {
  const auto at = text.find("RAM");
  if (at == std::string_view::npos || !starts_word(text, at)) return std::nullopt;
  auto rest = text::trim(text.substr(at + 3));
  for (std::string_view separator : {":", "\xEF\xBC\x9A", "="}) {
    if (rest.starts_with(separator)) return leading_size(text::trim(rest.substr(separator.size())));
  }
  return std::nullopt;
}

// The size of /dev/shm as people show it: a df line mounted on /dev/shm
// (Filesystem Size Used Avail Use% Mounted on: the second field), docker's
// --shm-size (or compose's shm_size), or a sentence naming /dev/shm with a
// size after it. "/dev/shm/nccl-..." is a file in it, never its size, and a
// size needs its unit.
std::optional<std::uint64_t> shm_size_phrase(std::string_view text) {
  const auto words = text::fields(text);
  if (words.size() >= 6 && words.back() == "/dev/shm") return leading_size(words[1]);
  for (std::string_view option : {"--shm-size", "shm_size"}) {
    const auto at = text.find(option);
    if (at == std::string_view::npos) continue;
    auto rest = text.substr(at + option.size());
    while (!rest.empty() && (rest.front() == '=' || rest.front() == ':' || rest.front() == ' ' || rest.front() == '"')) rest.remove_prefix(1);
    if (auto bytes = leading_size(rest)) return bytes;
  }
  const auto at = text.find("/dev/shm");
  if (at == std::string_view::npos) return std::nullopt;
  const auto after = text.substr(at + 8);
  if (!after.empty() && after.front() == '/') return std::nullopt;
  for (std::size_t i = 0; i < after.size(); ++i) {
    if (!is_digit(after[i]) || !starts_word(after, i)) continue;
    return leading_size(after.substr(i));
  }
  return std::nullopt;
}

// "1GPU", "4GPUs", "8 GPUs": a count right before the word.
std::optional<std::uint64_t> gpu_count_phrase(std::string_view text) {
  for (auto at = text.find("GPU"); at != std::string_view::npos; at = text.find("GPU", at + 3)) {
    std::size_t after = at + 3;
    if (after < text.size() && text[after] == 's') ++after;
    if (after < text.size() && is_alnum(text[after])) continue;
    std::size_t end = at;
    while (end > 0 && text[end - 1] == ' ') --end;
    std::size_t start = end;
    while (start > 0 && is_digit(text[start - 1]) && end - start < 4) --start;
    if (start == end || !starts_word(text, start)) continue;
    const auto count = text::to_u64(text.substr(start, end - start));
    if (count && *count > 0 && *count <= kMaxGpusStated) return count;
  }
  return std::nullopt;
}

// "38" -> "3.8"; "310" -> "3.10".
std::string python_of_tag(std::string_view digits) {
  if (digits.size() < 2) return {};
  return std::string(digits.substr(0, 1)) + "." + std::string(digits.substr(1));
}

// "111" -> "11.1", "92" -> "9.2", "121" -> "12.1": the last digit is the minor.
std::string cuda_of_tag(std::string_view digits) {
  if (digits.size() < 2 || digits.size() > 3) return {};
  return std::string(digits.substr(0, digits.size() - 1)) + "." + std::string(digits.substr(digits.size() - 1));
}

std::string_view digits_at(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && end < 4 && is_digit(text[end])) ++end;
  return text.substr(0, end);
}

// torch names its JIT folder py{major}{minor}_cu{cuda without the dot}, or _cpu.
void add_extensions_root(std::string_view text, const Line& line, Sink& sink) {
  constexpr std::string_view kRoot = "torch_extensions/py";
  const auto at = text.find(kRoot);
  if (at == std::string_view::npos) return;
  auto rest = text.substr(at + kRoot.size());
  const auto python = digits_at(rest);
  rest.remove_prefix(python.size());
  if (!rest.starts_with("_cu") || rest.starts_with("_cpu")) return;
  const auto cuda = digits_at(rest.substr(3));
  if (python.empty() || cuda.empty()) return;
  sink.add(kProseFormat, "python.version", python_of_tag(python), line.number);
  sink.add(kProseFormat, "torch.cuda_version", cuda_of_tag(cuda), line.number);
}

class ProseReader final : public Reader {
 public:
  void line(const Line& line, Sink& sink) override {
    const auto text = line.text;
    auto memory = ram_label(text);
    if (!memory) memory = memory_phrase(text);
    if (memory) sink.add(kProseFormat, "host.mem_total_bytes", std::to_string(*memory), line.number);
    if (auto count = gpu_count_phrase(text)) sink.add(kProseFormat, "gpu.count", std::to_string(*count), line.number);
    if (auto shm = shm_size_phrase(text)) sink.add(kProseFormat, "host.shm_total_bytes", std::to_string(*shm), line.number);
    add_extensions_root(text, line, sink);
    constexpr std::string_view kDeepSpeedInfo = "DeepSpeed info: version=";
    if (const auto at = text.find(kDeepSpeedInfo); at != std::string_view::npos) {
      sink.add(kProseFormat, "package.deepspeed", leading_version(text.substr(at + kDeepSpeedInfo.size())), line.number);
    }
  }
};

}  // namespace

std::unique_ptr<Reader> prose_reader() { return std::make_unique<ProseReader>(); }

}  // namespace ftdiag::parse::report
