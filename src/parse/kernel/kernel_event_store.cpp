// KernelEventStore: the first and the last events of each kind, the ones
// between counted (kernel_stream.h).
#include <algorithm>

#include "parse/kernel/kernel_stream.h"

namespace ftdiag::parse {

KernelEventStore::KernelEventStore(std::size_t keep_per_end, std::size_t max_text, Admit admit)
    : keep_(keep_per_end), max_text_(max_text), admit_(std::move(admit)) {}

std::size_t KernelEventStore::add(KernelEvent event, std::string_view line) {
  const std::size_t id = next_id_++;
  const KernelStamp& stamp = std::visit([](const auto& e) -> const KernelStamp& { return e.stamp; }, event);
  if (admit_ && !admit_(stamp)) return id;
  const std::size_t kind = event.index();
  if (first_kept_[kind] < keep_) {
    ++first_kept_[kind];
  } else {
    auto& last = last_ids_[kind];
    last.push_back(id);
    if (last.size() > keep_) {
      kept_.erase(last.front());
      last.pop_front();
      ++left_out_[kind];
    }
  }
  kept_.emplace(id, StoredKernelEvent{std::move(event), std::string(line.substr(0, max_text_))});
  return id;
}

KernelEvent* KernelEventStore::find(std::size_t id) {
  auto it = kept_.find(id);
  return it == kept_.end() ? nullptr : &it->second.event;
}

std::vector<StoredKernelEvent> KernelEventStore::take() {
  std::vector<StoredKernelEvent> out;
  out.reserve(kept_.size());
  for (auto& [id, kept] : kept_) out.push_back(std::move(kept));
  kept_.clear();
  first_kept_ = {};
  for (auto& last : last_ids_) last.clear();
  return out;
}

}  // namespace ftdiag::parse
