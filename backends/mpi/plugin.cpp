// The Open MPI backend plugin: dtbench's C ABI over MPI's blocking
// collectives, run by the caller that waits for one (where the host guards
// waits) or by the communicator's own thread, on a duplicate of
// MPI_COMM_WORLD.
#include "dtbench/plugin.hpp"

#include <memory>

#include "common/wiring.h"
#include "dtbench/backend.h"
#include "dtbench/export.hpp"
#include "mpi_communicator.h"

namespace dtb::backend::mpi {
namespace {

dtb_backend_plugin_v1_t makeDescriptor() {
  dtb_backend_plugin_v1_t d{};
  d.header = pluginHeader<dtb_backend_plugin_v1_t>(
      "mpi", "0.1.0",
      "MPI's blocking collectives, run by the waiting caller or the communicator's thread (CPU memory), "
      "between processes started by mpirun or srun");
  // No REBUILD: an MPI job cannot lose a rank and go on (no ULFM here).
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY | DTB_BACKEND_CAP_ALLREDUCE | DTB_BACKEND_CAP_REDUCE_SCATTER |
                   DTB_BACKEND_CAP_ALLGATHER | DTB_BACKEND_CAP_BROADCAST | DTB_BACKEND_CAP_BARRIER;
  d.create = [](const dtb_host_t* host, const dtb_rendezvous_t* rdv, void** out) {
    return guard(host, [&] { *out = new MpiCommunicator(host, *rdv); });
  };
  wireCollectives<MpiCommunicator>(d);
  // An abandoned communicator's thread is inside MPI for good and still uses
  // it: it is not freed (and MPI is not finalised) as the process ends.
  d.destroy = [](void* comm) {
    auto* c = static_cast<MpiCommunicator*>(comm);
    if (c->close()) delete c;
  };
  // Its own wait: it may run the collective itself, or time out one stuck
  // in MPI on the thread.
  d.wait = [](void* comm, dtb_request_t request, int64_t timeoutMs) {
    return static_cast<MpiCommunicator*>(comm)->wait(request, timeoutMs);
  };
  return d;
}

}  // namespace

DTB_EXPORT_BACKEND_PLUGIN(makeDescriptor())

}  // namespace dtb::backend::mpi
