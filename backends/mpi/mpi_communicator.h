// An MPI communicator: a duplicate of MPI_COMM_WORLD (errors returned, not
// fatal) and one thread of its own. Callers queue collectives; the thread
// runs them in queue order with MPI's blocking calls (MPI_Allreduce,
// MPI_Reduce_scatter_block, MPI_Allgather, MPI_Bcast, MPI_Barrier) while
// the caller computes — as Horovod's background thread does: Open MPI's
// tuned blocking algorithms move up to twice the bandwidth of its
// non-blocking ones (bench/mpi_allreduce). A blocking call cannot be
// cancelled: a waiter that finds the collective in MPI older than the
// timeout fails with DTB_STATUS_TIMEOUT and abandons the communicator —
// every later call fails at once, the thread is left inside MPI (detached,
// not joined, when the communicator goes), and MPI is not finalised at exit.
//
// Where the host guards its waits (ABI 1.5), a caller that waits for a
// collective the thread has not started runs it, and every one queued
// before it, itself (common/caller_runs_queue.h: two hand-offs between
// threads cost more than a collective below 1 MiB, issue 14). The training
// thread's own wait polls MPI hard (the rank has nothing else to do); every
// other waits yielding the core (runtime.h). Without the guard, callers never
// run a collective (a caller inside a blocking MPI call cannot keep its
// timeout), and a non-blocking call cannot stand in for the blocking one on
// one rank only — they never match each other (MPI-3.1, 5.12; tried: the
// ranks deadlock), and Open MPI's are slower anyway (2.3x at 4 KiB, 1.8x at
// 64 KiB here). Figures: docs/benchmarks.md.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/caller_runs_queue.h"
#include "common/communicator_base.h"
#include "common/request.h"
#include "dtbench/backend.h"

namespace dtb::backend::mpi {

class MpiCommunicator : public CommunicatorBase {
 public:
  static constexpr const char* kName = "mpi";

  // Joins MPI_COMM_WORLD's ranks; throws dtb::Error when this process's MPI
  // rank or size differ from the rendezvous', or the ranks do not all arrive
  // within rdv.timeout_ms.
  MpiCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv);
  ~MpiCommunicator();

  DTB_COMMUNICATOR_COLLECTIVES(Request);  // queued; see above for who runs them

  // The ABI's wait(): up to `timeoutMs`, and never past the collective
  // timeout of the collective in MPI now (which abandons the communicator).
  dtb_status_t wait(dtb_request_t handle, int64_t timeoutMs);

  // Fails what is still queued, waits for the collective in MPI up to the
  // timeout and frees the MPI communicator. False when that collective had to
  // be abandoned: the thread stays inside MPI using this object, which must
  // then never be freed (the plugin's destroy leaks it; the process is ending).
  bool close();

 private:
  // Makes the blocking MPI call (under mpiLock) and returns its code; empty
  // for nothing to move.
  using Run = std::function<int()>;
  using Finish = std::function<void()>;  // after success, e.g. AVG's postscale
  struct Job {
    Run run;
    Finish finish;
    std::shared_ptr<Request> request;
    std::chrono::steady_clock::time_point queuedAt;
  };

  std::shared_ptr<Request> enqueue(Run run, Finish finish, uint64_t bytesSent);
  // Runs one job in the calling thread (the run lock held). MPI polls hard
  // only for the training thread's own wait: a strategy's thread that waits
  // (fusion's cycle) does so while the training thread computes, and the
  // communicator's thread runs what nobody waits for: those yield the core.
  void execute(Job& job);
  // The collective in MPI now, if any, has been there longer than the timeout.
  bool collectiveOverdue() const;
  // A collective stayed in MPI past the timeout: nothing can stop it.
  void abandon();
  std::string errorText(int code) const;

  std::chrono::milliseconds timeout_;
  MPI_Comm comm_ = MPI_COMM_NULL;

  // How long the thread looks for the next collective, and a waiter for the
  // end of its own, before sleeping (job_queue.h).
  static constexpr std::chrono::microseconds kSpin{50};
  // The thread that created the communicator: the rank's training thread
  // (as the host's Communicator counts exposed waits).
  const std::thread::id trainingThread_ = std::this_thread::get_id();
  CallerRunsQueue<Job> queue_;              // callers may block in MPI where the host guards waits
  std::atomic<bool> broken_{false};         // a collective failed or was abandoned
  std::atomic<bool> closing_{false};        // close() began: queued collectives fail
  std::atomic<bool> serving_{true};         // the thread has not left serve()
  std::atomic<bool> abandoned_{false};      // the thread is inside MPI for good
  std::atomic<int64_t> runningSinceNs_{0};  // when the collective in MPI now started; 0: none
  std::thread thread_;
};

}  // namespace dtb::backend::mpi
