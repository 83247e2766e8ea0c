#include "evidence/probe_marker_json.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace ftdiag::evidence {

namespace {

constexpr std::size_t kMaxText = 200;  // a qualified function name; longer is not a marker

std::string bounded(const nlohmann::json& value) {
  if (!value.is_string()) return {};
  auto text = value.get<std::string>();
  if (text.size() > kMaxText) text.resize(kMaxText);
  return text;
}

}  // namespace

std::variant<ProbeMarker, std::string> parse_probe_marker(std::string_view datagram) {
  auto json = nlohmann::json::parse(datagram, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return std::string("not a JSON object");
  const auto version = json.find("v");
  if (version == json.end() || !version->is_number_integer() || version->get<int>() != 1) {
    return std::string("not a marker of version 1");
  }
  ProbeMarker marker;
  const auto pid = json.find("pid");
  const auto time = json.find("time");
  if (pid == json.end() || !pid->is_number_integer() || time == json.end() || !time->is_number()) {
    return std::string("a marker without its pid or time");
  }
  marker.pid = pid->get<int>();
  marker.time = time->get<double>();
  if (!std::isfinite(marker.time)) return std::string("a marker with a time that is not a number");
  if (auto rank = json.find("rank"); rank != json.end() && rank->is_number_integer()) marker.rank = rank->get<int>();
  if (auto value = json.find("marker"); value != json.end()) marker.marker = bounded(*value);
  if (marker.marker != "begin" && marker.marker != "end" && marker.marker != "hello") {
    return std::string("a marker that is neither begin, end nor hello");
  }
  if (auto value = json.find("phase"); value != json.end()) marker.phase = bounded(*value);
  if (auto value = json.find("what"); value != json.end()) marker.what = bounded(*value);
  if (auto value = json.find("error"); value != json.end()) marker.error = bounded(*value);
  return marker;
}

}  // namespace ftdiag::evidence
