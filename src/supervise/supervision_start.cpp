// Setting up a supervision: the live sources, ftdiag's own settings, and the job.
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "supervise/errno_remedy.h"
#include "supervise/job_identity.h"
#include "supervise/live_sources.h"
#include "supervise/spawn.h"
#include "supervise/supervision.h"

namespace ftdiag::supervise {

SupervisorFailure cannot_supervise(const char* what, const char* call, int error, const SupervisedRun& run) {
  return SupervisorFailure{kExitCannotSupervise, fmt::format("ftdiag: cannot {}: {}: {}", what, call, errno_with_remedy(error)),
                           run.run_directory().path()};
}

// Opens every live source in the order of live_sources.cpp and watches its
// descriptors; each records in the run's mechanisms whether it works.
std::optional<SupervisorFailure> Supervision::open_sources() {
  auto& mechanisms = started_.mechanisms;
  auto loop = EventLoop::create();
  if (!loop) {
    return SupervisorFailure{kExitCannotSupervise, "ftdiag: cannot watch the job: " + loop.missing().detail, dir_.path()};
  }
  loop_.emplace(std::move(loop).value());
  // Orphans of the job are reparented to ftdiag, so their ends are seen.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0) {
    mechanisms.emplace("subreaper", true);
  } else {
    mechanisms.emplace("subreaper", missing_from_errno(errno, "prctl(PR_SET_CHILD_SUBREAPER)"));
  }
  mechanisms.emplace("proc-scan", true);
  SourceSetup setup{*this, mechanisms, supervised_signals_};
  for (const SourceOpener open : live_source_openers()) {
    auto opened = open(setup);
    if (auto* failure = std::get_if<SupervisorFailure>(&opened)) return *failure;
    auto source = std::move(std::get<std::unique_ptr<LiveSource>>(opened));
    if (!source) continue;
    for (const int fd : source->descriptors()) {
      if (!loop_->watch(fd, *source)) return cannot_supervise("watch the job", "epoll_ctl", errno, *this);
    }
    sources_.push_back(std::move(source));
  }
  protect_from_oom_killer();
  return std::nullopt;
}

// ftdiag lowers its own OOM score so that it outlives the job it records;
// the job gets the score ftdiag had (spawn.h).
void Supervision::protect_from_oom_killer() {
  auto original = read_own_oom_score_adj();
  if (!original) {
    started_.mechanisms.emplace("oom-protection", original.missing());
    return;
  }
  auto lowered = lower_own_oom_score_adj();
  if (lowered) original_oom_score_adj_ = original.value();
  started_.mechanisms.emplace("oom-protection", lowered);
}

std::optional<SupervisorFailure> Supervision::start_job() {
  SpawnRequest request;
  request.argv = options_.argv;
  request.environment = current_environment();
  request.oom_score_adj = original_oom_score_adj_;
  request.signals = &inherited_;
  for (auto& source : sources_) {
    if (auto failure = source->prepare_job(request, started_)) return failure;
  }
  auto spawned = spawn_job(request);
  if (auto* spawn_failure = std::get_if<SpawnFailure>(&spawned)) {
    int code = kExitCannotSupervise;
    if (spawn_failure->stage == SpawnFailure::Stage::exec) {
      code = spawn_failure->error_number == ENOENT ? kExitNotFound : kExitCannotExecute;
    }
    return SupervisorFailure{code, "ftdiag: " + spawn_failure->message, dir_.path()};
  }
  job_pid_ = std::get<pid_t>(spawned);
  return std::nullopt;
}

}  // namespace ftdiag::supervise
