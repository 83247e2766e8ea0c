#include "collectors/post_mortem.h"

#include "collectors/failure_word_marks.h"
#include <unistd.h>

#include <cerrno>
#include <optional>

#include <fmt/format.h>

#include "collectors/core_dumps.h"
#include "collectors/failure_word_marks.h"

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

Fact<evidence::EvidenceDocument> collect_post_mortem(const std::vector<fs::path>& paths, const CollectContext& given,
                                                     const std::vector<const Collector*>& collectors,
                                                     const std::vector<PostCollectionPass>& passes) {
  // One session of debug information for the collectors and the passes.
  std::optional<symbolize::ModuleSymbols> own_symbols;
  CollectContext context = given;
  if (!context.symbols) context.symbols = &own_symbols.emplace();
  evidence::EvidenceDocument document;
  document.generator = fmt::format("ftdiag {}", FTDIAG_VERSION);
  bool recognised = false;
  std::vector<bool> ran(collectors.size(), false);
  auto run = [&](std::size_t i, const Inventory& inventory) {
    const auto* collector = collectors[i];
    ran[i] = true;
    try {
      document.collectors.push_back(collector->collect(inventory, context, document));
    } catch (const std::exception& e) {
      // A collector that fails must cost its own evidence only.
      document.collectors.push_back({.name = std::string(collector->name()),
                                     .section = std::string(collector->section()),
                                     .sources = {inventory.root().string()},
                                     .outcome = Missing{MissingReason::failed, e.what()}});
    }
  };
  std::optional<Inventory> first;  // kept for the collectors asked for below
  for (const auto& path : paths) {
    if (auto ok = check_path(path); !ok) return ok.missing();
    document.sources.push_back(path.string());
    // One walk of the path; every collector claims its entries from it.
    auto inventory = Inventory::of(path);
    for (std::size_t i = 0; i < collectors.size(); ++i) {
      if (!collectors[i]->recognises(inventory)) continue;
      recognised = true;
      run(i, inventory);
    }
    if (!first) first = std::move(inventory);
  }
  // What the user named directly is read even where no PATH led to it.
  for (std::size_t i = 0; i < collectors.size() && first; ++i) {
    if (ran[i] || !collectors[i]->asked_for(context)) continue;
    recognised = true;
    run(i, *first);
  }
  if (!recognised) {
    std::string wanted;
    for (const auto* c : collectors) wanted += (wanted.empty() ? "" : "; ") + std::string(c->looks_for());
    return Missing{MissingReason::not_present,
                   fmt::format("nothing under {} is evidence ftdiag can read (looked for: {})", describe_paths(paths),
                               wanted)};
  }
  if (context.failure_words) mark_failure_words(document, *context.failure_words);
  for (const auto& pass : passes) {
    try {
      pass.run(document, *context.symbols);
    } catch (const std::exception& e) {
      // A pass that fails leaves the evidence as the collectors gathered it.
      document.collectors.push_back({.name = std::string(pass.name), .section = "hosts", .outcome = Missing{MissingReason::failed, e.what()}});
    }
  }
  return document;
}

Fact<evidence::EvidenceDocument> collect_post_mortem(const std::vector<fs::path>& paths, const CollectContext& context) {
  return collect_post_mortem(paths, context, post_mortem_collectors(), post_collection_passes());
}

void finish_live_document(evidence::EvidenceDocument& document, const CollectContext& given) {
  std::optional<symbolize::ModuleSymbols> own_symbols;
  CollectContext context = given;
  if (!context.symbols) context.symbols = &own_symbols.emplace();
  const CoreDumpsCollector cores;
  const auto sources = document.sources;
  for (const auto& source : sources) {
    const auto inventory = Inventory::of(source);
    if (cores.recognises(inventory)) document.collectors.push_back(cores.collect(inventory, context, document));
  }
  if (context.failure_words) mark_failure_words(document, *context.failure_words);
  for (const auto& pass : post_collection_passes()) pass.run(document, *context.symbols);
}

}  // namespace ftdiag::collectors
