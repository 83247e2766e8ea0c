#include "collectors/post_mortem.h"

#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

// "does not exist" and "cannot be read" are different problems with
// different fixes; say which.
Fact<bool> check_path(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) return missing_from_errno(ec.value(), "stat " + path.string());
  if (!fs::exists(status)) return Missing{MissingReason::not_present, path.string() + " does not exist"};
  if (::access(path.c_str(), R_OK) != 0) return missing_from_errno(errno, "read " + path.string());
  return true;
}

std::string describe_paths(const std::vector<fs::path>& paths) {
  std::string out;
  for (const auto& p : paths) out += (out.empty() ? "" : ", ") + p.string();
  return out;
}

}  // namespace

Fact<evidence::EvidenceDocument> collect_post_mortem(const std::vector<fs::path>& paths, const CollectContext& context,
                                                     const std::vector<const Collector*>& collectors) {
  evidence::EvidenceDocument document;
  document.generator = fmt::format("ftdiag {}", FTDIAG_VERSION);
  bool recognised = false;
  std::vector<bool> ran(collectors.size(), false);
  auto run = [&](std::size_t i, const fs::path& path) {
    const auto* collector = collectors[i];
    ran[i] = true;
    try {
      document.collectors.push_back(collector->collect(path, context, document));
    } catch (const std::exception& e) {
      // A collector that fails must cost its own evidence only.
      document.collectors.push_back({.name = std::string(collector->name()),
                                     .section = std::string(collector->section()),
                                     .sources = {path.string()},
                                     .outcome = Missing{MissingReason::failed, e.what()}});
    }
  };
  for (const auto& path : paths) {
    if (auto ok = check_path(path); !ok) return ok.missing();
    document.sources.push_back(path.string());
    for (std::size_t i = 0; i < collectors.size(); ++i) {
      if (!collectors[i]->recognises(path)) continue;
      recognised = true;
      run(i, path);
    }
  }
  // What the user named directly is read even where no PATH led to it.
  for (std::size_t i = 0; i < collectors.size() && !paths.empty(); ++i) {
    if (ran[i] || !collectors[i]->asked_for(context)) continue;
    recognised = true;
    run(i, paths.front());
  }
  if (!recognised) {
    std::string wanted;
    for (const auto* c : collectors) wanted += (wanted.empty() ? "" : "; ") + std::string(c->looks_for());
    return Missing{MissingReason::not_present,
                   fmt::format("nothing under {} is evidence ftdiag can read (looked for: {})", describe_paths(paths),
                               wanted)};
  }
  return document;
}

}  // namespace ftdiag::collectors
