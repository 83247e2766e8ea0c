#include "supervise/sources/probes.h"

#include <fmt/format.h>

#include "evidence/probe_marker_json.h"
#include "supervise/probe_environment.h"
#include "supervise/probe_leftovers.h"
#include "supervise/probe_socket.h"
#include "supervise/spawn.h"

namespace ftdiag::supervise {

namespace {

class Probes final : public LiveSource {
 public:
  Probes(SupervisedRun& run, ProbeFiles files, std::optional<ProbeSocket> socket)
      : run_(run), files_(std::move(files)), socket_(std::move(socket)) {}

  std::vector<int> descriptors() const override {
    if (!socket_) return {};
    return {socket_->fd()};
  }

  std::optional<SupervisorFailure> prepare_job(SpawnRequest& request, evidence::RunStarted&) override {
    ProbeSetup setup{run_.run_directory().path(), std::nullopt, files_};
    if (socket_) setup.probe_socket = socket_->path();
    request.environment = add_probes_to_environment(std::move(request.environment), setup);
    return std::nullopt;
  }

  void on_ready(int) override { receive_markers(); }

  void drain() override {
    receive_markers();
    if (refused_ > 1) run_.note(fmt::format("{} datagrams on the probe socket were not markers", refused_));
  }

  // The stacks were read by now; what the probes left empty holds nothing,
  // nor does the socket once the job is gone.
  void close() override {
    remove_empty_probe_files(run_.run_directory().fd());
    socket_.reset();
  }

 private:
  void receive_markers() {
    if (!socket_) return;
    for (const auto& datagram : socket_->receive()) {
      auto marker = evidence::parse_probe_marker(datagram);
      if (auto* parsed = std::get_if<evidence::ProbeMarker>(&marker)) {
        run_.record(std::move(*parsed));
      } else if (refused_++ == 0) {
        // The job's processes can send anything: said once, then counted.
        run_.note("a datagram on the probe socket is not a marker: " + std::get<std::string>(marker));
      }
    }
  }

  SupervisedRun& run_;
  ProbeFiles files_;
  std::optional<ProbeSocket> socket_;
  std::uint64_t refused_ = 0;
};

}  // namespace

// Each probe is a mechanism of the run, true or missing with the reason,
// like every other way of watching.
OpenedSource open_probes(SourceSetup& setup) {
  auto& mechanisms = setup.mechanisms;
  if (!setup.run.options().probes) {
    const Missing off{MissingReason::unsupported, "turned off by --no-probes"};
    for (const char* name : {"crash-probe", "python-probe", "probe-socket"}) mechanisms.emplace(name, off);
    return nullptr;
  }
  ProbeFiles files = find_probe_files();
  auto as_mechanism = [](const Fact<std::filesystem::path>& file) -> Fact<bool> {
    if (file) return true;
    return file.missing();
  };
  mechanisms.emplace("crash-probe", as_mechanism(files.crash_library));
  mechanisms.emplace("python-probe", as_mechanism(files.python_folder));
  std::optional<ProbeSocket> socket;
  if (auto opened = ProbeSocket::open(setup.run.run_directory())) {
    socket.emplace(std::move(opened).value());
    mechanisms.emplace("probe-socket", true);
  } else {
    mechanisms.emplace("probe-socket", opened.missing());
  }
  return std::make_unique<Probes>(setup.run, std::move(files), std::move(socket));
}

}  // namespace ftdiag::supervise
