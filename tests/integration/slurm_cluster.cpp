#include "integration/slurm_cluster.h"

#include <unistd.h>

#include <doctest/doctest.h>

namespace ftdiag::itest {

namespace {

std::string script() { return std::string(FTDIAG_SOURCE_DIR) + "/tests/slurm/cluster.sh"; }

}  // namespace

SlurmCluster::SlurmCluster(const fs::path& dir, int nodes) : dir_(dir) {
  const auto started = run(Launch{{script(), "start", dir.string(), std::to_string(nodes)}}, 60);
  if (started.exited_with(0)) {
    available_ = true;
  } else if (started.exited_with(77)) {
    why_not_ = started.err.empty() ? "no Slurm here" : started.err;
  } else {
    // A cluster that should start and does not is a failure, not a skip.
    FAIL_CHECK("the Slurm cluster did not start: " << started.describe());
    why_not_ = "the Slurm cluster did not start";
  }
}

SlurmCluster::~SlurmCluster() { run(Launch{{script(), "stop", dir_.string()}}, 60); }

Outcome SlurmCluster::command(std::vector<std::string> argv, double seconds) const {
  // Launches take no PATH search: Slurm's clients are Debian's, in /usr/bin.
  if (!argv.empty() && argv[0].find('/') == std::string::npos) argv[0] = "/usr/bin/" + argv[0];
  Launch launch{std::move(argv)};
  launch.env["SLURM_CONF"] = (dir_ / "etc" / "slurm.conf").string();
  launch.env["PATH"] = std::string("/usr/sbin:/usr/bin:/sbin:/bin");
  return run(launch, seconds);
}

std::optional<std::string> SlurmCluster::submit(const fs::path& batch, const std::vector<std::string>& options) const {
  std::vector<std::string> argv{"sbatch", "--parsable"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(batch.string());
  const auto submitted = command(argv);
  if (!submitted.exited_with(0)) {
    FAIL_CHECK("sbatch failed: " << submitted.describe());
    return std::nullopt;
  }
  std::string id = submitted.out.substr(0, submitted.out.find_first_of(";\n"));
  return id;
}

bool SlurmCluster::wait_for_end(const std::string& job, double seconds) const {
  // squeue asks slurmctld: every half second is enough for jobs of a minute.
  return wait_until(
      [&] {
        ::usleep(500'000);
        const auto queued = command({"squeue", "-h", "-j", job, "-o", "%T"});
        // Gone from the queue (squeue errs on an unknown id once it is purged) or in a final state.
        const auto& state = queued.out;
        return !queued.exited_with(0) || state.empty() || state.find("COMPLETED") != std::string::npos ||
               state.find("FAILED") != std::string::npos || state.find("CANCELLED") != std::string::npos ||
               state.find("TIMEOUT") != std::string::npos || state.find("OUT_OF_MEMORY") != std::string::npos ||
               state.find("NODE_FAIL") != std::string::npos;
      },
      seconds);
}

int SlurmCluster::slurmd_pid(const std::string& name) const {
  const auto text = read_text(dir_ / "run" / ("slurmd-" + name + ".pid"));
  return text.empty() ? -1 : std::stoi(text);
}

}  // namespace ftdiag::itest
