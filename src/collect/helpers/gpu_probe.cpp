#include "collect/helpers/gpu_probe.h"

#include <fmt/format.h>

#include "collect/helpers/helper_program.h"
#include "collect/helpers/probe_location.h"

extern char** environ;

namespace ftdiag::collect {

namespace {

constexpr const char* kProbeName = "ftdiag-gpu-probe";
// What the probe writes to stderr before each call into the driver.
constexpr std::string_view kCallMarker = "ftdiag-gpu-probe: calling ";

std::vector<std::string> probe_environment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> environment;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view text(*entry);
    const auto name = text.substr(0, text.find('='));
    if (!overrides.contains(std::string(name))) environment.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) environment.push_back(name + "=" + value);
  return environment;
}

std::string command_text(const std::filesystem::path& probe, const std::map<std::string, std::string>& overrides) {
  std::string command;
  for (const auto& [name, value] : overrides) command += name + "=" + value + " ";
  return command + probe.string();
}

// The driver call the probe was in when it ended: its last marker line.
std::string last_call(const std::string& errors) {
  const auto at = errors.rfind(kCallMarker);
  if (at == std::string::npos) return {};
  const auto start = at + kCallMarker.size();
  return errors.substr(start, errors.find('\n', start) - start);
}

std::string while_calling(const HelperResult& result) {
  const auto call = last_call(result.errors);
  return call.empty() ? std::string() : " while calling " + call;
}

// The first line the probe wrote to stderr that is not a marker: a usage
// error, a loader's complaint.
std::string complaint(const std::string& errors) {
  std::size_t start = 0;
  while (start < errors.size()) {
    const auto end = std::min(errors.find('\n', start), errors.size());
    const auto line = errors.substr(start, end - start);
    if (!line.empty() && !line.starts_with(kCallMarker)) return ": " + line;
    start = end + 1;
  }
  return {};
}

Missing why_no_answer(const HelperResult& result) {
  using Ending = HelperResult::Ending;
  switch (result.ending) {
    case Ending::timed_out:
      return Missing{MissingReason::timed_out,
                     fmt::format("the GPU probe did not answer within {:.1f} s{} (killed)", result.seconds,
                                 while_calling(result))};
    case Ending::killed_by_signal:
      return Missing{MissingReason::failed,
                     fmt::format("the GPU probe was {}{}", result.describe(), while_calling(result))};
    case Ending::could_not_start:
      return Missing{MissingReason::failed, "the GPU probe " + result.describe()};
    case Ending::exited: break;
  }
  return Missing{MissingReason::failed, "the GPU probe " + result.describe() + complaint(result.errors)};
}

}  // namespace

model::GpuInventory probe_gpus(const GpuProbeRequest& request) {
  model::GpuInventory inventory;
  auto probe = request.probe ? Fact<std::filesystem::path>(*request.probe) : find_probe_file(kProbeName);
  if (!probe) {
    inventory.probed = Missing{MissingReason::not_present, fmt::format("{} {}", kProbeName, probe.missing().detail)};
    return inventory;
  }
  inventory.command = command_text(*probe, request.environment);
  HelperRequest helper;
  helper.argv = {probe->string()};
  helper.environment = probe_environment(request.environment);
  helper.deadline = request.deadline;
  const auto result = run_helper(helper);
  if (!result.succeeded()) {
    inventory.probed = why_no_answer(result);
    return inventory;
  }
  auto parsed = result.output_truncated ? Fact<model::GpuInventory>(Missing{MissingReason::unparseable, "too long"})
                                        : parse::parse_gpu_inventory(result.output);
  if (!parsed) {
    inventory.probed = Missing{MissingReason::unparseable,
                               "the GPU probe's output is not an inventory: " + parsed.missing().detail};
    return inventory;
  }
  parsed->command = std::move(inventory.command);
  return std::move(parsed).value();
}

}  // namespace ftdiag::collect
