// The NCCL backend plugin: dtbench's C ABI over NCCL on the GPUs, one rank
// per GPU, rank 0's unique id shared through the run's rendezvous store.
#include "dtbench/plugin.hpp"

#include <memory>
#include <string>

#include "common/wiring.h"
#include "dtbench/backend.h"
#include "dtbench/export.hpp"
#include "nccl_communicator.h"

namespace dtb::backend::nccl {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "group_calls", DTB_PARAM_BOOL, "false",
     "Launch the collectives issued since the last test or wait together, in one ncclGroupStart/End "
     "(PyTorch's coalescing): one launch for many small collectives; every rank must then test or wait at "
     "the same points. Not while a stream is set (set_stream): the stream's order is the launches' order",
     0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "max_ctas", DTB_PARAM_INT, "0",
     "Most CUDA thread blocks (channels) a collective may use, ncclConfig_t.maxCTAs; 0 leaves it to NCCL",
     DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 0, 64, nullptr},
    {sizeof(dtb_param_spec_t), "busy_time", DTB_PARAM_BOOL, "false",
     "Time every launch with CUDA timing events for the busy counter (communication time, overlapped or "
     "not) and, with trace = true, the trace's GPU row (each collective where it ran on the GPU); off, "
     "neither is reported: the two events add ~3 us to each launch on an H100",
     0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "algorithm", DTB_PARAM_STRING, "auto",
     "NCCL_ALGO for this process unless already set: auto lets NCCL choose per size", 0, 0, 0,
     "auto|ring|tree|nvls|nvls_tree|pat"},
    {sizeof(dtb_param_spec_t), "protocol", DTB_PARAM_STRING, "auto",
     "NCCL_PROTO for this process unless already set: auto lets NCCL choose per size", 0, 0, 0,
     "auto|simple|ll|ll128"},
};

NcclCommunicator* self(void* comm) { return static_cast<NcclCommunicator*>(comm); }

Request& requestOf(dtb_request_t handle) { return *fromHandle<Request>(handle); }

dtb_backend_plugin_v1_t makeDescriptor() {
  dtb_backend_plugin_v1_t d{};
  d.header = pluginHeader<dtb_backend_plugin_v1_t>(
      "nccl", "0.1.0",
      "NCCL collectives between GPUs (CUDA memory), one rank per GPU, the NCCL id through the run's store",
      kParams);
  d.capabilities = DTB_BACKEND_CAP_CUDA_MEMORY | DTB_BACKEND_CAP_ALLREDUCE | DTB_BACKEND_CAP_REDUCE_SCATTER |
                   DTB_BACKEND_CAP_ALLGATHER | DTB_BACKEND_CAP_BROADCAST | DTB_BACKEND_CAP_BARRIER |
                   DTB_BACKEND_CAP_REBUILD;
  d.create = [](const dtb_host_t* host, const dtb_rendezvous_t* rdv, void** out) {
    return guard(host, [&] {
      try {
        *out = new NcclCommunicator(host, *rdv, readOptions(host));
      } catch (const Error& e) {
        const std::string what = e.what();
        if (e.reported() || what.starts_with("nccl: ")) throw;
        throw Error(e.status(), "nccl: " + what);
      }
    });
  };
  wireIssue<NcclCommunicator>(d);
  d.test = [](void* comm, dtb_request_t request, int32_t* done) {
    return guard(self(comm)->host(), [&] { *done = self(comm)->test(requestOf(request)) ? 1 : 0; });
  };
  d.wait = [](void* comm, dtb_request_t request, int64_t timeoutMs) {
    dtb_status_t status = DTB_STATUS_OK;
    std::string why;
    const dtb_status_t called = guard(self(comm)->host(), [&] {
      status = self(comm)->wait(requestOf(request), std::chrono::milliseconds(timeoutMs < 0 ? 0 : timeoutMs),
                                &why);
    });
    if (called != DTB_STATUS_OK) return called;  // guard() reported it
    if (status != DTB_STATUS_OK) self(comm)->host()->set_error(self(comm)->host()->ctx, why.c_str());
    return status;
  };
  d.request_free = [](void*, dtb_request_t request) { freeHandle<Request>(request); };
  d.set_stream = [](void* comm, void* stream) {
    return guard(self(comm)->host(), [&] { self(comm)->setStream(stream); });
  };
  return d;
}

}  // namespace

DTB_EXPORT_BACKEND_PLUGIN(makeDescriptor())

}  // namespace dtb::backend::nccl
