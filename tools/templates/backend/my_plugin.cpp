// my_plugin — a dtbench communication backend. It starts as a backend for a
// world of one rank, where every collective is exact and immediate (the
// input itself, or a copy): the skeleton of every entry point the host calls,
// without a transport. Add yours in create() (rdv has the rank, the world and
// a store to rendezvous through) and make the collectives asynchronous:
// each returns a request at once, the host waits for it and frees it.
#include <cstring>
#include <string>

#include "dtbench/backend.h"
#include "dtbench/export.hpp"
#include "dtbench/plugin.hpp"

namespace {

struct MyPlugin {
  const dtb_host_t* host;
};

// Every request completes at once; one marker stands for all of them.
dtb_request_t done() {
  static int marker;
  return reinterpret_cast<dtb_request_t>(&marker);
}

// Reduce-scatter and all-gather over one rank: the input is the output.
dtb_status_t copy(void* comm, const dtb_tensor_t* in, dtb_tensor_t* out, dtb_request_t* request) {
  return dtb::guard(static_cast<MyPlugin*>(comm)->host, [&] {
    if (in->count != out->count || in->dtype != out->dtype) {
      throw dtb::Error(DTB_STATUS_INVALID_ARGUMENT,
                       "my_plugin: with one rank, input and output have equal counts");
    }
    if (in->data != out->data && in->count > 0)
      std::memmove(out->data, in->data, in->count * dtb::dtypeSize(in->dtype));
    *request = done();
  });
}

dtb_backend_plugin_v1_t makeDescriptor() {
  dtb_backend_plugin_v1_t d{};
  d.header = dtb::pluginHeader<dtb_backend_plugin_v1_t>("my_plugin", "0.1.0",
                                                        "A world of one rank (dtbench new's starting point)");
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY | DTB_BACKEND_CAP_ALLREDUCE | DTB_BACKEND_CAP_REDUCE_SCATTER |
                   DTB_BACKEND_CAP_ALLGATHER | DTB_BACKEND_CAP_BROADCAST | DTB_BACKEND_CAP_BARRIER;
  d.create = [](const dtb_host_t* host, const dtb_rendezvous_t* rdv, void** out) {
    return dtb::guard(host, [&] {
      if (rdv->world_size != 1) {
        throw dtb::Error(DTB_STATUS_UNSUPPORTED, "my_plugin: world_size is " +
                                                     std::to_string(rdv->world_size) +
                                                     "; this backend has no transport yet, only one rank");
      }
      *out = new MyPlugin{host};
    });
  };
  d.destroy = [](void* comm) { delete static_cast<MyPlugin*>(comm); };
  d.allreduce = [](void*, dtb_tensor_t*, dtb_reduce_op_t, dtb_request_t* request) {
    *request = done();  // sum, avg, max, min over one rank: the buffer as it is
    return DTB_STATUS_OK;
  };
  d.reduce_scatter = [](void* comm, const dtb_tensor_t* in, dtb_tensor_t* out, dtb_reduce_op_t,
                        dtb_request_t* request) { return copy(comm, in, out, request); };
  d.allgather = [](void* comm, const dtb_tensor_t* in, dtb_tensor_t* out, dtb_request_t* request) {
    return copy(comm, in, out, request);
  };
  d.broadcast = [](void* comm, dtb_tensor_t*, int32_t root, dtb_request_t* request) {
    return dtb::guard(static_cast<MyPlugin*>(comm)->host, [&] {
      if (root != 0) throw dtb::Error(DTB_STATUS_INVALID_ARGUMENT, "my_plugin: the only root is rank 0");
      *request = done();
    });
  };
  d.barrier = [](void*, dtb_request_t* request) {
    *request = done();
    return DTB_STATUS_OK;
  };
  d.test = [](void*, dtb_request_t, int32_t* finished) {
    *finished = 1;
    return DTB_STATUS_OK;
  };
  d.wait = [](void*, dtb_request_t, int64_t) { return DTB_STATUS_OK; };
  d.request_free = [](void*, dtb_request_t) {};
  return d;
}

}  // namespace

DTB_EXPORT_BACKEND_PLUGIN(makeDescriptor())
