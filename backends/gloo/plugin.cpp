// The Gloo backend plugin: dtbench's C ABI over gloo::Context on TCP.
#include "dtbench/plugin.hpp"

#include <memory>
#include <string>

#include "communicator.h"
#include "dtbench/backend.h"

namespace dtb::backend::gloo {
namespace {

Communicator* self(void* comm) { return static_cast<Communicator*>(comm); }

template <typename Start>
dtb_status_t start(void* comm, dtb_request_t* out, Start&& body) {
  return guard(self(comm)->host(), [&] { *out = toHandle(body(*self(comm))); });
}

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "algorithm", DTB_PARAM_STRING, "auto",
     "All-reduce algorithm: auto lets Gloo choose (ring today); ring_chunked and halving_doubling use "
     "Gloo's legacy algorithm classes, set up anew for every call",
     0, 0, 0, "auto|ring|bcube|ring_chunked|halving_doubling"},
};

dtb_backend_plugin_v1_t makeDescriptor() {
  dtb_backend_plugin_v1_t d{};
  d.header = {sizeof(dtb_backend_plugin_v1_t),
              DTB_ABI_VERSION,
              DTB_PLUGIN_BACKEND,
              "gloo",
              "0.1.0",
              "Gloo collectives over TCP (CPU memory), rendezvous through a file store",
              kParams,
              1};
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY | DTB_BACKEND_CAP_ALLREDUCE | DTB_BACKEND_CAP_REDUCE_SCATTER |
                   DTB_BACKEND_CAP_ALLGATHER | DTB_BACKEND_CAP_BROADCAST | DTB_BACKEND_CAP_BARRIER |
                   DTB_BACKEND_CAP_REBUILD;
  d.create = [](const dtb_host_t* host, const dtb_rendezvous_t* rdv, void** out) {
    return guard(host, [&] {
      const char* algorithm = nullptr;
      check(host->config_get_string(host->ctx, "algorithm", &algorithm), "algorithm");
      *out = new Communicator(host, *rdv, parseAlgorithm(algorithm));
    });
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
    return waitForRequest(self(comm)->host(), "gloo", self(comm)->rank(), request, timeoutMs);
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
}  // namespace dtb::backend::gloo

extern "C" const dtb_backend_plugin_v1_t* dtb_backend_plugin_v1(void) {
  return &dtb::backend::gloo::kDescriptor;
}
