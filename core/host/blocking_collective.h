// A collective called as a plain function: start it, wait for it within the
// communicator's timeout, throw when it fails. For the few figures the host
// itself exchanges between ranks (epoch totals, weight checksums, a sweep's
// timings), where nothing is there to overlap with the wait.
#pragma once

#include <string>
#include <vector>

#include "cuda/cuda_memory.h"
#include "dtbench/plugin.hpp"
#include "host/communicator.h"

namespace dtb::core {

// Starts a collective with start(&request, &error), then waits for it within
// the communicator's timeout; throws PluginCallError with the backend's
// message (which names the rank) on failure.
template <typename Start>
void runCollective(Communicator& comm, Start&& start) {
  dtb_request_t request = nullptr;
  std::string error;
  dtb_status_t status = start(&request, &error);
  if (status == DTB_STATUS_OK) status = comm.wait(request, DTB_TIMEOUT_DEFAULT, &error);
  // A communicator that holds timed-out requests (elastic training) may
  // still run this one on the caller's buffer: it ends before the buffer goes.
  if (status == DTB_STATUS_TIMEOUT) comm.settleTimedOut(comm.defaultTimeout());
  if (status != DTB_STATUS_OK) throw PluginCallError(error, status);
}

// All-reduces a few doubles in place (figures every rank contributes to),
// through GPU memory when the backend moves nothing else (NCCL).
inline void allreduceDoubles(Communicator& comm, std::vector<double>& values, dtb_reduce_op_t op) {
  dtb_tensor_t t = dtb::hostTensor(values.data(), values.size(), DTB_DTYPE_F64);
  if (comm.memory() != DTB_DEVICE_CUDA) {
    runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.allreduce(&t, op, r, e); });
    return;
  }
  const uint64_t bytes = values.size() * sizeof(double);
  const int gpu = comm.device().index;
  const GpuBuffer staged(bytes, gpu);
  copyToGpu(staged.data(), values.data(), bytes, gpu);
  t.data = staged.data();
  t.device = comm.device();
  runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.allreduce(&t, op, r, e); });
  copyFromGpu(values.data(), staged.data(), bytes, gpu);
}

}  // namespace dtb::core
