// The run's communicator as the host wraps it for strategies: the backend
// plugin instance underneath, the run's default timeout for waits, and the
// counts every backend is measured by (collectives, their data size S and
// bus bytes, as nccl-tests defines them: see collectives() below).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "host/gpu_staging.h"
#include "host/plugin_instance.h"
#include "host/trace_recorder.h"
#include "host/wait_guard.h"

namespace dtb::core {

class Communicator {
 public:
  // `device`: the GPU the backend works on (rendezvous.device), or host.
  Communicator(std::unique_ptr<PluginInstance> backend, int rank, int world,
               std::chrono::milliseconds defaultTimeout, dtb_device_t device = {DTB_DEVICE_HOST, 0});
  // Frees the requests a strategy never waited for (an ABI violation that
  // would otherwise leak them), then destroys the backend.
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int size() const { return world_; }
  PluginInstance& backend() { return *backend_; }

  // Each returns the backend's status; on failure `*error` gets its message,
  // prefixed with the backend and rank, and `*out` is null. GPU tensors of
  // a collective over a backend that moves host memory only are staged
  // through pinned host memory (gpu_staging.h): their result is on the GPU
  // when wait() returns.
  //
  // Thread-safe: a strategy may call from threads of its own. Calls into the
  // backend are serialised (backend.h promises a backend one thread at a time
  // per communicator), a wait included: while one thread waits, another
  // thread's issue or test on this communicator waits for it.
  dtb_status_t allreduce(dtb_tensor_t* buffer, dtb_reduce_op_t op, dtb_request_t* out, std::string* error);
  dtb_status_t reduceScatter(const dtb_tensor_t* input, dtb_tensor_t* output, dtb_reduce_op_t op,
                             dtb_request_t* out, std::string* error);
  dtb_status_t allgather(const dtb_tensor_t* input, dtb_tensor_t* output, dtb_request_t* out,
                         std::string* error);
  dtb_status_t broadcast(dtb_tensor_t* buffer, int32_t root, dtb_request_t* out, std::string* error);
  dtb_status_t barrier(dtb_request_t* out, std::string* error);
  // Point-to-point (dtbench.h's comm_send / comm_recv, ABI 1.9): host
  // tensors only, to or from another rank of the world; UNSUPPORTED, naming
  // the backend, where it has no send and recv.
  dtb_status_t send(const dtb_tensor_t* buffer, int32_t peer, uint32_t tag, dtb_request_t* out,
                    std::string* error);
  dtb_status_t recv(dtb_tensor_t* buffer, int32_t peer, uint32_t tag, dtb_request_t* out, std::string* error);
  // Orders later collectives with a CUDA stream (backend.h's set_stream);
  // UNSUPPORTED for a non-NULL stream when the backend has no streams.
  dtb_status_t setStream(void* stream, std::string* error);
  // The stream a strategy chose with setStream (a cudaStream_t); null when
  // none was, or it chose the backend's own again.
  void* strategyStream() const { return strategyStream_.load(); }
  // Whether the host knows the stream a GPU backend's collectives run on,
  // so that ordering it after a model's queued work orders them
  // (train/gpu_hand_off.h): the host's own stream (set at the first GPU
  // collective) or strategyStream(). Not where a strategy chose the
  // backend's own stream again (NULL), the backend refused the host's, or a
  // backend of GPU memory has no set_stream. A backend of host memory only
  // always: its GPU tensors are staged by copies that follow the host's stream.
  bool collectivesStreamKnown() const;
  // Where the backend takes tensors: DTB_DEVICE_CUDA for a GPU-only one.
  dtb_device_type_t memory() const;
  // Host tensors given to a backend that moves GPU memory only (NCCL) go
  // over `control` instead, a host-memory communicator of the same ranks:
  // Horovod's controller over Gloo or MPI beside NCCL's data plane, for a
  // strategy that negotiates on the host. Its requests are tested and
  // waited for through this communicator; its traffic is counted apart (in
  // `control`), not among this backend's collectives.
  void attachControl(std::unique_ptr<Communicator> control) { control_ = std::move(control); }
  // The GPU a GPU backend works on; host for the others.
  dtb_device_t device() const { return device_; }
  // A request this communicator did not issue, or one already waited for,
  // is DTB_STATUS_INVALID_ARGUMENT: the backend never sees it (it would be a
  // use after free there).
  dtb_status_t test(dtb_request_t request, int32_t* done, std::string* error);
  // Waits (any negative timeout, DTB_TIMEOUT_DEFAULT: the run's timeout) and
  // releases the request, whatever the outcome.
  dtb_status_t wait(dtb_request_t request, int64_t timeoutMs, std::string* error);

  // Elastic training leaves a broken world and goes on in the same process:
  // it must not free a buffer that a backend operation still reads or
  // writes. With hold set, a wait that times out keeps its request (the
  // backend's operation may still run on the caller's buffer) instead of
  // freeing it.
  void holdTimedOut(bool hold) { holdTimedOut_ = hold; }
  // Tests the requests whose wait timed out until the backend ends each
  // (done, or failed), for at most `within`, and frees those; true when none
  // is left running. A caller whose buffer an operation used calls it
  // before the buffer goes.
  bool settleTimedOut(std::chrono::milliseconds within);
  // The same for every request not waited for yet too: afterwards no
  // operation of this communicator runs (true), and a strategy that waits
  // for one of them later is told it is unknown. False: some still run
  // after `within`, and their buffers must outlive the process.
  bool abandon(std::chrono::milliseconds within);
  std::chrono::milliseconds defaultTimeout() const { return defaultTimeout_; }

  // Every wait from now on is watched by `guard` (dtb_rendezvous_t's
  // wait_guard_ms: the backend was told it may block in a wait): a wait
  // still in the backend `guard.grace()` after the later of its own timeout
  // and the run's ends the process. Once, before the first collective.
  void guardWaits(WaitGuard& guard);

  // Records every collective, from issue to the end of its wait, when set;
  // the backend's own spans too (NCCL's collectives as the GPU ran them).
  void traceTo(TraceRecorder* trace);
  // The counters, defined once, nccl-tests' way, for every collective this
  // rank issued (the store's step.collectives, step.bytes_sent and
  // step.bus_bytes are their differences over a step):
  //   collectives  operations issued, barriers included.
  //   bytes        S, the collective's data size (nccl-tests' "size"): the
  //                buffer of an all-reduce or a broadcast, the whole array
  //                of a reduce-scatter (its input: every rank's block) or an
  //                all-gather (its output: every rank's block, this rank's
  //                own included), 0 for a barrier — at any world size. The
  //                size of the data the strategy asked to move, the same on
  //                every rank; not what crossed the network (algbw = S / t).
  //   busBytes     what a rank sends (and receives) in a bandwidth-optimal
  //                ring algorithm, nccl-tests' bus bytes (busbw = busBytes
  //                / t): S x 2(n-1)/n for all-reduce, S x (n-1)/n for
  //                reduce-scatter and all-gather, S for broadcast (n > 1);
  //                0 at one rank and for a barrier.
  uint64_t collectives() const { return collectives_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t busBytes() const { return busBytes_; }
  // Seconds the backend spent executing collectives (its counters' busy_ns),
  // overlapped or not; nullopt when the backend does not count them.
  std::optional<double> busySeconds() const;
  double waitSeconds() const { return waitNanos_ / 1e9; }

  // Exposed communication, as the training thread lives it: the seconds it
  // spent inside comm_wait, and polling with comm_test (from a test that
  // found a request unfinished to the next test of that same request, while
  // the training thread issued nothing, updated nothing and did not return
  // to the model between), whatever phase of the step it was in, and the
  // spans the strategy declares with waitedElsewhere. Waits on other threads
  // (a strategy's own communication thread) are not the training thread's:
  // they count only where the training thread waits for that thread and the
  // strategy says so (fusion's finish_backward). The training thread is the
  // one that created the communicator (the worker's, or a test's rank
  // thread).
  double trainingWaitSeconds() const { return trainingWaitNanos_ / 1e9; }
  // dtb_host_t.comm_waited: the calling thread was blocked from beginNs to
  // endNs (TraceRecorder::nowNs clock) waiting for communication that runs
  // on a thread of the strategy's own. Counted when the caller is the
  // training thread (and the span not reversed); ignored otherwise.
  void waitedElsewhere(int64_t beginNs, int64_t endNs) {
    if (std::this_thread::get_id() != trainingThread_ || endNs < beginNs) return;
    trainingWaitNanos_ += endNs - beginNs;
    endPolling();
  }
  // The training thread did something else (computed, returned to the
  // model): a poll loop, if any, has ended. No effect on other threads.
  void endPolling() {
    if (std::this_thread::get_id() == trainingThread_) {
      lastUnfinishedTestNs_ = -1;
      polled_ = nullptr;
    }
  }

 private:
  const dtb_backend_plugin_v1_t& api() const {
    return backend_->plugin().descriptor<dtb_backend_plugin_v1_t>();
  }
  // `staged` is copied back to the GPU at the wait; `stagedInput` only
  // returns to the pool.
  dtb_status_t started(dtb_status_t status, dtb_request_t* request, const char* op, uint64_t bytes,
                       double busFactor, std::string* error,
                       std::shared_ptr<GpuStaging::Staged> staged = nullptr,
                       std::shared_ptr<GpuStaging::Staged> stagedInput = nullptr);
  // Starts a collective on `tensor`: `start` calls the backend, one caller
  // at a time, after ordering it with the host's GPU stream.
  template <typename Start>
  dtb_status_t issue(const dtb_tensor_t* tensor, Start&& start) {
    std::lock_guard lock(backendMutex_);
    if (tensor) onHostStreamByDefault(*tensor);
    return start();
  }
  // A collective in place on `buffer` (all-reduce, broadcast), staged
  // through pinned memory where the backend needs it: `call` gets the
  // tensor the backend is given. `bytes` (its data size S) and `busFactor`
  // as started()'s.
  template <typename Call>
  dtb_status_t issueInPlace(const char* op, dtb_tensor_t* buffer, uint64_t bytes, double busFactor,
                            dtb_request_t* out, std::string* error, Call&& call) {
    std::shared_ptr<GpuStaging::Staged> staged;
    if (misplaced(*buffer, out, error, true) || !stageIfNeeded(*buffer, &staged, out, error))
      return DTB_STATUS_UNSUPPORTED;
    dtb_tensor_t* given = staged ? &staged->host : buffer;
    const dtb_status_t status = issue(buffer, [&] { return call(given); });
    return started(status, out, op, bytes, busFactor, error, std::move(staged));
  }
  // A collective from `input` into `output` (reduce-scatter, all-gather),
  // both staged where the backend needs it; `bytes` its data size S.
  template <typename Call>
  dtb_status_t issueInto(const char* op, const dtb_tensor_t* input, dtb_tensor_t* output, uint64_t bytes,
                         dtb_request_t* out, std::string* error, Call&& call) {
    std::shared_ptr<GpuStaging::Staged> stagedIn, stagedOut;
    if (!stageBoth(*input, *output, &stagedIn, &stagedOut, out, error)) return DTB_STATUS_UNSUPPORTED;
    const dtb_tensor_t* in = stagedIn ? &stagedIn->host : input;
    dtb_tensor_t* result = stagedOut ? &stagedOut->host : output;
    const dtb_status_t status = issue(input, [&] { return call(in, result); });
    return started(status, out, op, bytes, double(world_ - 1) / world_, error, std::move(stagedOut),
                   std::move(stagedIn));
  }
  // A GPU backend's collectives on a GPU tensor run on the host's stream for
  // that GPU (gpu_tensor_ops.h), where tensor_copy queues its copies, unless
  // someone chose a stream with setStream: what a strategy copied into a
  // bucket is there before the bucket is reduced, with no host wait.
  void onHostStreamByDefault(const dtb_tensor_t& tensor);
  dtb_status_t failed(dtb_status_t status, std::string* error);
  // A tensor in memory the backend cannot take (host memory to NCCL, GPU
  // memory to Gloo or MPI unless `stageable`), refused before it reaches the
  // backend.
  bool misplaced(const dtb_tensor_t& tensor, dtb_request_t* out, std::string* error,
                 bool stageable = false) const;
  // A GPU tensor the backend cannot take into `*staged`, its pinned
  // stand-in (left null when none is needed); false, with the error, when
  // the copy cannot be made (no GPU behind the pointer, no pinned memory).
  bool stageIfNeeded(const dtb_tensor_t& tensor, std::shared_ptr<GpuStaging::Staged>* staged,
                     dtb_request_t* out, std::string* error, bool copyIn = true);
  // Both tensors of a reduce-scatter or all-gather checked and, where
  // needed, staged (the input copied in); false, with the error, as
  // stageIfNeeded.
  bool stageBoth(const dtb_tensor_t& input, const dtb_tensor_t& output,
                 std::shared_ptr<GpuStaging::Staged>* stagedIn,
                 std::shared_ptr<GpuStaging::Staged>* stagedOut, dtb_request_t* out, std::string* error);
  dtb_status_t unknown(const char* function, std::string* error) const;
  // Why a point-to-point call cannot start (no such backend member, a GPU
  // tensor, a peer outside the world or this rank); nullopt when it can.
  std::optional<dtb_status_t> p2pRefused(const char* op, const dtb_tensor_t& buffer, int32_t peer,
                                         dtb_request_t* out, std::string* error) const;
  bool isOutstanding(dtb_request_t request);
  // Tests `requests` until each has ended or `within` passed, freeing those
  // ended; leaves those still running in `requests`.
  void settle(std::vector<dtb_request_t>& requests, std::chrono::milliseconds within);

  // The control communicator for `tensor`, where it goes there (attachControl).
  Communicator* controlFor(const dtb_tensor_t& tensor) const;
  // A collective the control communicator issued: its request is ours to route.
  dtb_status_t viaControl(dtb_status_t status, dtb_request_t* out);
  // Takes `request` out of the control's requests; false when it is not one.
  // Called only with a control attached: test() is a poll loop's hot path,
  // where a run without one should take no extra lock.
  bool takeControlRequest(dtb_request_t request, bool keep);
  // A wait of `waited` on the calling thread (the training thread's counts
  // as its exposed communication).
  void countWait(std::chrono::steady_clock::duration waited);

  // Before the backend: destroyed after it, so no collective still running
  // in the backend writes to a freed pinned buffer.
  GpuStaging staging_;
  std::unique_ptr<Communicator> control_;
  // In flight on control_ (under mutex_); a multiset, as outstanding_ is a multimap.
  std::multiset<dtb_request_t> controlRequests_;
  std::unique_ptr<PluginInstance> backend_;
  int rank_;
  int world_;
  std::chrono::milliseconds defaultTimeout_;
  dtb_device_t device_;
  bool streamChosen_ = false;  // setStream was called, or the host's stream set (under backendMutex_)
  // Read by the training thread at every hook of a GPU model, without the
  // backend's mutex (fusion's cycle thread holds it while it launches).
  std::atomic<void*> strategyStream_{nullptr};  // the stream setStream was given and took
  std::atomic<bool> streamUnknown_{false};      // see collectivesStreamKnown()
  std::atomic<uint64_t> collectives_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> busBytes_{0};
  std::atomic<int64_t> waitNanos_{0};
  const std::thread::id trainingThread_ = std::this_thread::get_id();
  std::atomic<int64_t> trainingWaitNanos_{0};
  int64_t lastUnfinishedTestNs_ = -1;  // the training thread's last test that found work in flight
  dtb_request_t polled_ = nullptr;     // and the request it tested
  std::mutex mutex_;                   // outstanding_: strategies may issue from their own threads
  mutable std::mutex backendMutex_;    // one call into the backend at a time (backend.h)
  // In flight: what each request is and when it started (for the trace).
  // A multimap: a backend whose requests complete at once may hand out one
  // marker for all of them (tests' "single" does).
  struct InFlight {
    const char* op;
    int64_t beginNs;
    std::shared_ptr<GpuStaging::Staged> staged;  // a GPU tensor's pinned stand-in, copied back at the wait
    std::shared_ptr<GpuStaging::Staged> stagedInput;  // a GPU input's, given back at the wait
  };
  std::multimap<dtb_request_t, InFlight> outstanding_;
  bool holdTimedOut_ = false;
  std::vector<dtb_request_t> timedOut_;  // waited for, timed out, maybe still running (holdTimedOut)
  TraceRecorder* trace_ = nullptr;
  WaitGuard* guard_ = nullptr;
  std::unique_ptr<WaitGuard::Watch> watch_;
};

}  // namespace dtb::core
