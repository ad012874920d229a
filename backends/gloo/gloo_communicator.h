// A Gloo communicator: rendezvous through a file store, a full mesh of TCP
// pairs, and one worker thread that runs the collectives in the order they
// were issued, so callers get asynchronous requests (as PyTorch's
// ProcessGroupGloo does with its work queue). Where the host guards waits, a
// caller that waits for a collective not started yet runs it itself
// (common/caller_runs_queue.h): Gloo's calls block, with the rendezvous
// timeout, in whichever thread makes them, and each hand-off to the worker
// and back cost a thread wake-up (LeNet at 2 ranks: docs/benchmarks.md).
//
// In sync mode the thread running an all-reduce reads its own sockets
// (Gloo's pairs in sync mode, busy polling or not), as Gloo's own benchmark
// does with --sync: without it every message Gloo's device thread reads
// wakes the waiting thread, a quarter of a millisecond or more on a 2-core
// VM. Only Gloo's legacy algorithm classes work on such pairs, so those
// all-reduces go over a second mesh of pairs; the rest stay on the first.
// Every Gloo call has the rendezvous timeout, so no wait is unbounded.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/caller_runs_queue.h"
#include "common/communicator_base.h"
#include "common/request.h"
#include "dtbench/backend.h"
#include "gloo_options.h"
#include "point_to_point.h"

namespace gloo::rendezvous {
class Context;
}

namespace dtb::backend::gloo {

class GlooCommunicator : public CommunicatorBase {
 public:
  static constexpr const char* kName = "gloo";

  // Joins the rendezvous; throws dtb::Error (TIMEOUT, COMM_FAILURE) naming
  // the store and the ranks that did not arrive in time.
  GlooCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv, const GlooOptions& options);
  ~GlooCommunicator();

  DTB_COMMUNICATOR_COLLECTIVES(Request);  // queued for the worker thread or the waiting caller

  // The ABI's wait(): a wait of the run's own timeout (every default wait)
  // may run the collective, and those queued before it, in this thread.
  dtb_status_t wait(dtb_request_t handle, int64_t timeoutMs);

  // Point-to-point messages (ABI 1.9) over the first mesh: point_to_point.h.
  std::shared_ptr<Request> send(const dtb_tensor_t& buffer, int peer, uint32_t tag);
  std::shared_ptr<Request> recv(const dtb_tensor_t& buffer, int peer, uint32_t tag);

 private:
  using Op = std::function<void(uint32_t tag)>;
  struct Job {
    Op op;
    uint32_t tag;
    std::shared_ptr<Request> request;
    std::chrono::steady_clock::time_point queuedAt;
  };
  std::shared_ptr<Request> enqueue(Op op, uint64_t bytesSent);
  void execute(Job& job);  // in the worker or a waiting caller

  // Whether an all-reduce of `bytes` of `dtype` with `op` runs on the sync
  // mesh: the same answer on every rank (no local setting enters it).
  bool runsSync(dtb_dtype_t dtype, dtb_reduce_op_t op, uint64_t bytes) const;

  std::chrono::milliseconds timeout_;
  GlooOptions options_;
  std::shared_ptr<::gloo::rendezvous::Context> context_;
  std::shared_ptr<::gloo::rendezvous::Context> syncContext_;  // sync mode's mesh; null when async
  CallerRunsQueue<Job> queue_;
  uint32_t nextTag_ = 0;  // issue order, equal on every rank
  std::unique_ptr<PointToPoint> p2p_;
  std::thread worker_;
};

}  // namespace dtb::backend::gloo
