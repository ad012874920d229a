// Collectives in issue order, run by whichever thread gets to them first:
// the caller that waits for one not started yet, or the communicator's own
// thread. A blocking collective (MPI_Allreduce, gloo::allreduce) matches its
// peers' whichever thread makes it, and one run lock keeps the calls in issue
// order, so a caller that issues and waits — a sweep's call, the last
// bucket, fusion's cycle thread — makes the call itself, as Horovod's
// background thread calls MPI and Gloo directly, and pays no hand-off to
// the communicator's thread and back (two thread wake-ups: more than a
// 4 KiB all-reduce with MPI, a quarter of a millisecond or more with Gloo on
// a 2-core VM; bench/ratios).
//
// The communicator's thread is then not woken by an issue into an empty
// queue: it looks every cycle (1 ms, Horovod's default) for collectives
// nobody waits for yet, which keeps them overlapping compute, and an issue
// behind one still queued wakes it (the caller is issuing without waiting:
// the next bucket, the next prefetch). A lone collective queued less than
// half a cycle ago is left to its caller, who is most likely about to wait.
//
// Callers run collectives only where the host guards waits (ABI 1.5,
// dtb_rendezvous_t.wait_guard_ms): a caller inside a blocking call cannot
// keep a timeout of its own. Without the guard every collective runs on the
// thread, woken per issue (job_queue.h's spin and no cycle).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "common/job_queue.h"
#include "common/request.h"
#include "dtbench/backend.h"

namespace dtb::backend {

// The host guards this rendezvous' waits (ABI 1.5): callers may run collectives.
inline bool waitsGuarded(const dtb_rendezvous_t& rdv) {
  return rdv.struct_size >= offsetof(dtb_rendezvous_t, wait_guard_ms) + sizeof(int64_t) &&
         rdv.wait_guard_ms > 0;
}

// Job: movable, with `std::shared_ptr<Request> request` and
// `std::chrono::steady_clock::time_point queuedAt`.
template <typename Job>
class CallerRunsQueue {
 public:
  static constexpr std::chrono::microseconds kCycle{1000};

  // `spin`: how long the thread looks for the next job before sleeping,
  // where callers do not run their own (job_queue.h).
  CallerRunsQueue(bool callerRuns, std::chrono::microseconds spin)
      : callerRuns_(callerRuns),
        // With callers running their collectives the thread must not spin after
        // one: it would catch the next caller's too, each then handed off.
        queue_(callerRuns ? std::chrono::microseconds{0} : spin,
               callerRuns ? kCycle : std::chrono::microseconds{0}) {}

  void push(Job job) { queue_.push(std::move(job)); }

  // The communicator's thread, until stop(): runs what callers leave, with
  // `execute(job)` under the run lock.
  template <typename Execute>
  void serve(Execute&& execute) {
    for (bool ran = false; queue_.awaitWork(ran);) {
      // A caller running collectives itself holds the lock: what it leaves is
      // ours at the next cycle. Not waited for here: the caller would wake
      // this thread on every unlock, and find it holding the lock when it
      // comes back for its next collective.
      std::unique_lock run(runLock_, std::try_to_lock);
      ran = false;
      if (!run.owns_lock()) {
        std::this_thread::sleep_for(kCycle);  // the queue is not empty: awaitWork would not sleep
        continue;
      }
      bool left = false;
      const auto ours = [this, &left](const Job& front, size_t queued) {
        left = callerRuns_ && queued == 1 && !front.request->waited() &&
               std::chrono::steady_clock::now() - front.queuedAt < kCycle / 2;
        return !left;
      };
      while (std::optional<Job> job = queue_.tryPopIf(ours)) {
        execute(*job);
        ran = true;
      }
      run.unlock();
      if (left) std::this_thread::sleep_for(kCycle / 2);  // awaitWork would not sleep: the queue is not empty
    }
  }

  // A caller that waits for `request`: runs what is queued up to and
  // including it, with `execute(job)`, unless another thread is running
  // collectives now (then it waits for them as without callers running).
  // The caller marks the request waited first, whether it runs it or not:
  // the thread never leaves a waited-for collective to its caller.
  template <typename Execute>
  void runUpTo(const Request& request, Execute&& execute) {
    if (!callerRuns_) return;
    std::unique_lock run(runLock_, std::try_to_lock);
    if (!run.owns_lock()) return;
    while (!request.done()) {
      std::optional<Job> job = queue_.tryPop();
      if (!job) return;  // taken by the thread just before the lock was
      execute(*job);
    }
  }

  // serve() returns once what is queued has run.
  void stop() { queue_.stop(); }

 private:
  const bool callerRuns_;
  JobQueue<Job> queue_;
  std::mutex runLock_;  // held by whichever thread runs collectives
};

}  // namespace dtb::backend
