// The Open MPI backend plugin: dtbench's C ABI over MPI's non-blocking
// collectives on a duplicate of MPI_COMM_WORLD.
#include "dtbench/plugin.hpp"

#include <memory>

#include "communicator.h"
#include "dtbench/backend.h"

namespace dtb::backend::mpi {
namespace {

Communicator* self(void* comm) { return static_cast<Communicator*>(comm); }

template <typename Start>
dtb_status_t start(void* comm, dtb_request_t* out, Start&& body) {
  return guard(self(comm)->host(), [&] { *out = toHandle(body(*self(comm))); });
}

dtb_backend_plugin_v1_t makeDescriptor() {
  dtb_backend_plugin_v1_t d{};
  d.header = {sizeof(dtb_backend_plugin_v1_t),
              DTB_ABI_VERSION,
              DTB_PLUGIN_BACKEND,
              "mpi",
              "0.1.0",
              "MPI non-blocking collectives (CPU memory) between processes started by mpirun or srun",
              nullptr,
              0};
  // No REBUILD: an MPI job cannot lose a rank and go on (no ULFM here).
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY | DTB_BACKEND_CAP_ALLREDUCE | DTB_BACKEND_CAP_REDUCE_SCATTER |
                   DTB_BACKEND_CAP_ALLGATHER | DTB_BACKEND_CAP_BROADCAST | DTB_BACKEND_CAP_BARRIER;
  d.create = [](const dtb_host_t* host, const dtb_rendezvous_t* rdv, void** out) {
    return guard(host, [&] { *out = new Communicator(host, *rdv); });
  };
  d.destroy = [](void* comm) { delete self(comm); };
  d.allreduce = [](void* comm, dtb_tensor_t* buffer, dtb_reduce_op_t op, dtb_request_t* out) {
    return start(comm, out, [&](Communicator& c) { return c.allreduce(*buffer, op); });
  };
  d.reduce_scatter = [](void* comm, const dtb_tensor_t* in, dtb_tensor_t* outTensor, dtb_reduce_op_t op,
                        dtb_request_t* out) {
    return start(comm, out, [&](Communicator& c) { return c.reduceScatter(*in, *outTensor, op); });
  };
  d.allgather = [](void* comm, const dtb_tensor_t* in, dtb_tensor_t* outTensor, dtb_request_t* out) {
    return start(comm, out, [&](Communicator& c) { return c.allgather(*in, *outTensor); });
  };
  d.broadcast = [](void* comm, dtb_tensor_t* buffer, int32_t root, dtb_request_t* out) {
    return start(comm, out, [&](Communicator& c) { return c.broadcast(*buffer, root); });
  };
  d.barrier = [](void* comm, dtb_request_t* out) {
    return start(comm, out, [&](Communicator& c) { return c.barrier(); });
  };
  d.test = [](void*, dtb_request_t request, int32_t* done) {
    *done = fromHandle(request)->done() ? 1 : 0;
    return DTB_STATUS_OK;
  };
  d.wait = [](void* comm, dtb_request_t request, int64_t timeoutMs) {
    return waitForRequest(self(comm)->host(), "mpi", self(comm)->rank(), request, timeoutMs);
  };
  d.request_free = [](void*, dtb_request_t request) { freeHandle(request); };
  d.counters = [](void* comm, dtb_comm_counters_t* out) {
    const dtb_comm_counters_t c = self(comm)->counters();
    out->bytes_sent = c.bytes_sent;
    out->bytes_received = c.bytes_received;
    out->collectives = c.collectives;
    if (DTB_HAS_MEMBER(out, dtb_comm_counters_t, busy_ns)) out->busy_ns = c.busy_ns;
    return DTB_STATUS_OK;
  };
  return d;
}

const dtb_backend_plugin_v1_t kDescriptor = makeDescriptor();

}  // namespace
}  // namespace dtb::backend::mpi

extern "C" const dtb_backend_plugin_v1_t* dtb_backend_plugin_v1(void) {
  return &dtb::backend::mpi::kDescriptor;
}
