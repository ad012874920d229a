// An NCCL communicator: one per rank and GPU, made non-blocking so that
// every wait can be bounded (ncclCommGetAsyncError polled, ncclCommAbort
// when the timeout passes or a peer fails: PyTorch's NCCL watchdog, run in
// the waiting thread). Collectives run on a dedicated high-priority stream,
// or on the caller's (set_stream); each request completes by a CUDA event
// (untimed: timing events, for the busy counter, only with busy_time).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/communicator_base.h"
#include "dtbench/backend.h"
#include "gpu_clock.h"
#include "options.h"
#include "watchdog.h"

namespace dtb::backend::nccl {

// One launch on the stream (a collective, or a group of them): the events
// around it, shared by its requests.
struct Launch {
  cudaEvent_t start = nullptr;  // timing events when busy time is measured, else only `end`, untimed
  cudaEvent_t end = nullptr;
  bool counted = false;  // its time is in the busy counter (and its span in the trace)
  // Timed: the anchor its events are put on the host's clock by, and the
  // name of its span in the trace ("allreduce #12", "+3" for a group's others).
  std::shared_ptr<const GpuAnchor> anchor;
  std::string name;
  ~Launch();
};

struct Request {
  const char* op = "";    // "allreduce": with `sequence`, what messages name
  uint64_t sequence = 0;  // the communicator's issue count: "allreduce #12"
  std::string name() const { return std::string(op) + " #" + std::to_string(sequence); }
  std::shared_ptr<Launch> launch;  // null until launched
  bool complete = false;
  dtb_status_t status = DTB_STATUS_OK;
  std::string message;
};

class NcclCommunicator : public CommunicatorBase {
 public:
  static constexpr const char* kName = "nccl";

  // Picks the GPU, shares rank 0's unique id through the rendezvous store
  // and joins, all within rdv.timeout_ms. Throws dtb::Error: UNSUPPORTED
  // with why when no GPU is usable, TIMEOUT naming what did not come.
  NcclCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv, Options options);
  ~NcclCommunicator();

  // Each checks its tensors (CUDA memory on this communicator's GPU) and
  // launches, or queues the call for the next group when group_calls is on.
  DTB_COMMUNICATOR_COLLECTIVES(Request);

  bool test(Request& request);
  // The request's status; on failure `*why` says what happened.
  dtb_status_t wait(Request& request, std::chrono::milliseconds timeout, std::string* why);
  void setStream(void* stream);
  bool measuresBusyTime() const { return options_.busyTime; }  // busy_ns is measured

 private:
  using Call = std::function<ncclResult_t(cudaStream_t)>;
  std::shared_ptr<Request> issue(const char* op, uint64_t busBytes, Call call);
  void flush();                                           // launches what is queued
  std::shared_ptr<Launch> takeLaunch();                   // pooled events for the next launch
  void settle(const Request* request, const char* what);  // waits out ncclInProgress, bounded
  void finish(Request& request);                          // a completed request's busy time and trace span
  // Ends `request` with a failure, naming the rank and the collective.
  void failRequest(Request& request, dtb_status_t status, const std::string& what) const;
  void abortBecause(const std::string& reason);
  void checkUsable() const;
  [[noreturn]] void fail(dtb_status_t status, const std::string& what) const;
  void checkTensor(const dtb_tensor_t& t, const char* what) const;

  int device_;
  Options options_;
  std::chrono::milliseconds timeout_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;                  // where the collectives run by default
  cudaStream_t userStream_ = nullptr;              // set_stream's, where they run instead
  std::vector<std::shared_ptr<Launch>> launches_;  // their events, reused
  GpuClock clock_;                                 // their times on the host's clock, for the trace
  float* barrierScratch_ = nullptr;                // one float the barrier all-reduces
  Health health_;
  uint64_t issued_ = 0;

  struct Pending {
    Call call;
    std::shared_ptr<Request> request;
  };
  std::vector<Pending> pending_;
};

}  // namespace dtb::backend::nccl
