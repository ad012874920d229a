#include "worker/connect.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "cuda/cuda_probe.h"
#include "launch/launch.h"
#include "launch/rank_environment.h"
#include "matrix/run_schema.h"
#include "store/environment.h"

namespace dtb::core {

PluginLoader workerLoader(const RunSpec& spec) {
  return PluginLoader(SearchPath::fromEnvironmentAfter(spec.pluginDirs));
}

RankPlace placeRank(const RunSpec& spec, int rank) {
  const Cell& cell = spec.cell;
  const std::string launcher = resolveLauncher(cell.text("launcher"), cell.text("backend"));
  const auto launched = launcher == "local" ? std::nullopt : rankFromEnvironment();
  if (launched)
    return {hostName(), launched->localRank, launched->localSize,
            bindAddress(launcher, cell.text("interface"))};
  // The local launcher's ranks are local ranks, except an elastic run's
  // workers, which keep the one they were placed at in every world (read
  // only there: one inherited into a plain run would put every rank on one GPU).
  const bool elastic = launcher == "local" && cell.text("recovery") == "elastic";
  const int local = elastic ? localRankFromLauncher().value_or(rank) : rank;
  return {hostName(), local, std::max(spec.world, local + 1), bindAddress(launcher, cell.text("interface"))};
}

std::string usedInterface(const RunSpec& spec, const RankPlace& place) {
  const std::string named = spec.cell.text("interface");
  return named.empty() ? interfaceHolding(place.address) : named;
}

std::unique_ptr<Communicator> connectRank(const RunSpec& spec, int rank, PluginLoader& loader,
                                          Control control) {
  const Cell& cell = spec.cell;
  const auto timeout =
      std::chrono::milliseconds(static_cast<int64_t>(cell.real("collective_timeout_s") * 1000));
  const RankPlace place = placeRank(spec, rank);
  const std::string& bind = place.address;
  // NCCL finds its own sockets: the same interface, unless the user chose one.
  if (const std::string interface = cell.text("interface"); !interface.empty())
    setenv("NCCL_SOCKET_IFNAME", interface.c_str(), 0);
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.rank = rank;
  rdv.world_size = spec.world;
  rdv.local_rank = place.localRank;
  rdv.local_size = place.localSize;
  // A Redis server when the cell names one, else the run directory's file store.
  const std::string store = cell.text("rendezvous_store");
  std::string address;
  if (!store.empty()) {
    if (store.rfind("redis://", 0) != 0 || store.size() == 8) {
      throw std::runtime_error("rendezvous_store = \"" + store +
                               "\": give \"redis://HOST:PORT\", or leave it empty for the file store");
    }
    address = store.substr(8);
    rdv.store_address = address.c_str();
  } else {
    rdv.store_path = spec.storeDir.c_str();
  }
  rdv.prefix = spec.prefix.c_str();
  rdv.bind_address = bind.c_str();
  rdv.timeout_ms = timeout.count();
  std::unique_ptr<Communicator> comm =
      connectBackend(loader, {cell.text("backend"), cell.pluginParams("backend")}, rdv, timeout);
  if (control == Control::kForHostTensors && comm->memory() == DTB_DEVICE_CUDA) {
    // Gloo beside NCCL, as Horovod runs its controller: the same ranks and
    // store, its own keys.
    const std::string controlPrefix = spec.prefix + "/control";
    dtb_rendezvous_t controlRdv = rdv;
    controlRdv.prefix = controlPrefix.c_str();
    comm->attachControl(connectBackend(loader, {"gloo", {}}, controlRdv, timeout));
  }
  return comm;
}

std::unique_ptr<Communicator> connectBackend(PluginLoader& loader, const PluginChoice& backend,
                                             const dtb_rendezvous_t& rdv, std::chrono::milliseconds timeout) {
  auto plugin = loader.load(PluginKind::kBackend, backend.name);
  dtb_rendezvous_t withDevice = rdv;
  // Only a backend that moves GPU memory gets a GPU: CUDA is never
  // initialised in a process that runs on the CPU.
  if (plugin->descriptor<dtb_backend_plugin_v1_t>().capabilities & DTB_BACKEND_CAP_CUDA_MEMORY)
    withDevice.device = gpuForLocalRank(rdv.local_rank);
  // Where the process guards its waits, the backend is told it may block in one.
  WaitGuard* guard = WaitGuard::process();
  if (guard) withDevice.wait_guard_ms = guard->grace().count();
  auto comm = std::make_unique<Communicator>(createBackend(plugin, backend.params, withDevice), rdv.rank,
                                             rdv.world_size, timeout, withDevice.device);
  if (guard) comm->guardWaits(*guard);
  return comm;
}

}  // namespace dtb::core
