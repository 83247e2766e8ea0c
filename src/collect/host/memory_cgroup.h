// The memory controller of one cgroup, v1 or v2 behind one interface.
//
// The backends live in their own files (cgroup_v1.cpp, cgroup_v2.cpp); finding
// the right one for a process is cgroup_locate.cpp. Both backends fill the
// same CgroupMemoryReading; a counter one version does not have is a Missing
// with reason unsupported, never a zero.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "base/fact.h"
#include "model/memory.h"

namespace ftdiag::collect {

// The reading both backends fill: one definition, shared with the journal
// and the evidence document (model/memory.h).
using CgroupMemoryReading = model::CgroupMemory;

// One cgroup directory's memory files. read() is meant to be called every
// 0.5 s, so each backend reads only the files the reading needs (about six
// small files) and nothing else. read() never throws (except bad_alloc);
// files that vanish because the cgroup was removed show up as Missing
// not_present in each field. read() is const and thread-safe; reset_peak()
// is called once, before the readings that should count from it.
// A located memory cgroup. Backends (cgroup_v1.h, cgroup_v2.h) differ only
// in which files they read; where the cgroup is lives here.
class MemoryCgroup {
 public:
  MemoryCgroup(std::filesystem::path directory, std::string cgroup_path)
      : directory_(std::move(directory)), cgroup_path_(std::move(cgroup_path)) {}
  virtual ~MemoryCgroup() = default;
  virtual CgroupMemoryReading read() const = 0;
  virtual int version() const = 0;
  // Makes `peak` of later readings count from now, so that a cgroup reused
  // from an earlier job (a Slurm allocation, a long-lived container) does not
  // lend that job's peak to this one. Every later reading's peak_reset says
  // whether it worked, or why not.
  //   v1: writes memory.max_usage_in_bytes, which every reader of the cgroup
  //       sees: done only when `sole_user` is true (the cgroup holds nothing
  //       but the watched tree, cgroup_owner.h); else its reason is kept.
  //   v2: memory.peak reset through this object's own open file (Linux
  //       6.12+), private to it: `sole_user` is not needed.
  virtual void reset_peak(const Fact<bool>& sole_user) = 0;
  // The real directory holding memory.* files (already joined under the roots).
  const std::filesystem::path& directory() const { return directory_; }
  // The cgroup path as /proc/PID/cgroup printed it.
  const std::string& cgroup_path() const { return cgroup_path_; }

 private:
  std::filesystem::path directory_;
  std::string cgroup_path_;
};

}  // namespace ftdiag::collect
