// The C ABI entry points of a backend, wired once for every backend whose
// communicator class offers the same calls: allreduce, reduceScatter,
// allgather, broadcast and barrier returning a std::shared_ptr to its request
// type, plus host(), rank(), counters() and a static kName. wireIssue() wires
// what does not depend on the request type (every backend); wireCollectives()
// adds test, wait and request_free over common/request.h's Request (the CPU
// backends). A backend's plugin.cpp then writes only its header,
// capabilities and create().
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>

#include "common/request.h"
#include "dtbench/backend.h"
#include "dtbench/plugin.hpp"

namespace dtb::backend {

// Copies a communicator's counters into the host's struct. A backend that
// did not measure busy time shortens struct_size before busy_ns (backend.h).
inline void copyCounters(const dtb_comm_counters_t& c, bool busyMeasured, dtb_comm_counters_t* out) {
  out->bytes_sent = c.bytes_sent;
  out->bytes_received = c.bytes_received;
  out->collectives = c.collectives;
  if (!busyMeasured) {
    out->struct_size = std::min<uint32_t>(out->struct_size, offsetof(dtb_comm_counters_t, busy_ns));
  } else if (DTB_HAS_MEMBER(out, dtb_comm_counters_t, busy_ns)) {
    out->busy_ns = c.busy_ns;
  }
}

template <typename Comm>
void wireIssue(dtb_backend_plugin_v1_t& d) {
  static const auto self = [](void* comm) { return static_cast<Comm*>(comm); };
  // Starts a collective: errors become the status and the host's message.
  static const auto start = [](void* comm, dtb_request_t* out, auto&& body) {
    return guard(self(comm)->host(), [&] { *out = toHandle(body(*self(comm))); });
  };
  d.destroy = [](void* comm) { delete self(comm); };
  d.allreduce = [](void* comm, dtb_tensor_t* buffer, dtb_reduce_op_t op, dtb_request_t* out) {
    return start(comm, out, [&](Comm& c) { return c.allreduce(*buffer, op); });
  };
  d.reduce_scatter = [](void* comm, const dtb_tensor_t* in, dtb_tensor_t* outTensor, dtb_reduce_op_t op,
                        dtb_request_t* out) {
    return start(comm, out, [&](Comm& c) { return c.reduceScatter(*in, *outTensor, op); });
  };
  d.allgather = [](void* comm, const dtb_tensor_t* in, dtb_tensor_t* outTensor, dtb_request_t* out) {
    return start(comm, out, [&](Comm& c) { return c.allgather(*in, *outTensor); });
  };
  d.broadcast = [](void* comm, dtb_tensor_t* buffer, int32_t root, dtb_request_t* out) {
    return start(comm, out, [&](Comm& c) { return c.broadcast(*buffer, root); });
  };
  d.barrier = [](void* comm, dtb_request_t* out) {
    return start(comm, out, [&](Comm& c) { return c.barrier(); });
  };
  d.counters = [](void* comm, dtb_comm_counters_t* out) {
    bool measured = true;  // unless the communicator can say otherwise
    if constexpr (requires(Comm & c) { c.measuresBusyTime(); }) measured = self(comm)->measuresBusyTime();
    copyCounters(self(comm)->counters(), measured, out);
    return DTB_STATUS_OK;
  };
}

template <typename Comm>
void wireCollectives(dtb_backend_plugin_v1_t& d) {
  static const auto self = [](void* comm) { return static_cast<Comm*>(comm); };
  wireIssue<Comm>(d);
  d.test = [](void*, dtb_request_t request, int32_t* done) {
    *done = fromHandle(request)->done() ? 1 : 0;
    return DTB_STATUS_OK;
  };
  d.wait = [](void* comm, dtb_request_t request, int64_t timeoutMs) {
    return waitForRequest(self(comm)->host(), Comm::kName, self(comm)->rank(), request, timeoutMs);
  };
  d.request_free = [](void*, dtb_request_t request) { freeHandle(request); };
}

// A tensor a CPU backend can take: in host memory, with data when it has
// elements, of a known dtype; throws dtb::Error naming `backend` and `what`.
inline void checkHostTensor(const dtb_tensor_t& t, const char* what, const char* backend) {
  if (t.device.type != DTB_DEVICE_HOST) {
    throw Error(DTB_STATUS_UNSUPPORTED,
                std::string(backend) + ": " + what + " must be in host memory (use nccl for CUDA)");
  }
  if (t.count > 0 && t.data == nullptr)
    throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string(backend) + ": " + what + " has no data");
  if (dtypeSize(t.dtype) == 0)
    throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string(backend) + ": " + what + " has an unknown dtype");
}

// A collective between a whole tensor and each rank's block of it:
// reduce-scatter's input holds world x output.count elements of one dtype,
// all-gather's output world x input.count. require*() checks the shapes
// wherever the memory is; check*() also wants host memory.
inline void requireWorldBlocks(const dtb_tensor_t& whole, const dtb_tensor_t& block, int world,
                               const char* rule, const char* backend) {
  if (whole.dtype != block.dtype || whole.count != block.count * static_cast<uint64_t>(world))
    throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string(backend) + ": " + rule);
}

inline void requireReduceScatterShapes(const dtb_tensor_t& input, const dtb_tensor_t& output, int world,
                                       const char* backend) {
  requireWorldBlocks(
      input, output, world,
      "reduce-scatter input must hold world_size x output.count elements of the output's dtype", backend);
}

inline void requireAllgatherShapes(const dtb_tensor_t& input, const dtb_tensor_t& output, int world,
                                   const char* backend) {
  requireWorldBlocks(output, input, world,
                     "all-gather output must hold world_size x input.count elements of the input's dtype",
                     backend);
}

inline void checkReduceScatterShapes(const dtb_tensor_t& input, const dtb_tensor_t& output, int world,
                                     const char* backend) {
  checkHostTensor(input, "reduce-scatter input", backend);
  checkHostTensor(output, "reduce-scatter output", backend);
  requireReduceScatterShapes(input, output, world, backend);
}

inline void checkAllgatherShapes(const dtb_tensor_t& input, const dtb_tensor_t& output, int world,
                                 const char* backend) {
  checkHostTensor(input, "all-gather input", backend);
  checkHostTensor(output, "all-gather output", backend);
  requireAllgatherShapes(input, output, world, backend);
}

// True when all-gather's input is this rank's own block of its output (in
// place, as NCCL allows and ZeRO uses); overlapping it any other way is an
// error.
inline bool allgatherInPlace(const dtb_tensor_t& input, const dtb_tensor_t& output, int rank,
                             const char* backend) {
  const size_t bytes = input.count * dtypeSize(input.dtype);
  const size_t outBytes = output.count * dtypeSize(output.dtype);
  const auto* in = static_cast<const char*>(input.data);
  const auto* out = static_cast<const char*>(output.data);
  if (bytes == 0 || in + bytes <= out || out + outBytes <= in) return false;
  if (in == out + static_cast<size_t>(rank) * bytes) return true;
  throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string(backend) +
                                               ": all-gather input overlaps the output other than as this "
                                               "rank's own block");
}

}  // namespace dtb::backend
