// An MPI communicator: a duplicate of MPI_COMM_WORLD (errors returned, not
// fatal) and one progress thread. Callers queue collectives; the thread
// starts them in queue order with MPI's non-blocking calls (MPI_Iallreduce,
// MPI_Ireduce_scatter_block, MPI_Iallgather, MPI_Ibcast, MPI_Ibarrier) and
// drives them with MPI_Test until they finish, so they progress while the
// caller computes (Open MPI's non-blocking collectives only advance inside
// MPI calls). A collective still running after the timeout fails its request
// with DTB_STATUS_TIMEOUT and leaves the communicator broken: every later
// call fails at once, and MPI is not finalised at exit.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/request.h"
#include "dtbench/backend.h"

namespace dtb::backend::mpi {

class Communicator {
 public:
  static constexpr const char* kName = "mpi";

  // Joins MPI_COMM_WORLD's ranks; throws dtb::Error when this process's MPI
  // rank or size differ from the rendezvous', or the ranks do not all arrive
  // within rdv.timeout_ms.
  Communicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  const dtb_host_t* host() const { return host_; }
  int rank() const { return rank_; }

  // Each checks its arguments at once (throwing dtb::Error) and queues the
  // collective; tensors must stay valid until the request completes.
  std::shared_ptr<Request> allreduce(const dtb_tensor_t& buffer, dtb_reduce_op_t op);
  std::shared_ptr<Request> reduceScatter(const dtb_tensor_t& input, const dtb_tensor_t& output,
                                         dtb_reduce_op_t op);
  std::shared_ptr<Request> allgather(const dtb_tensor_t& input, const dtb_tensor_t& output);
  std::shared_ptr<Request> broadcast(const dtb_tensor_t& buffer, int root);
  std::shared_ptr<Request> barrier();

  dtb_comm_counters_t counters() const;

 private:
  // Starts the MPI call (under mpiLock) and returns its request; MPI_REQUEST_NULL
  // for nothing to do.
  using Start = std::function<MPI_Request()>;
  using Finish = std::function<void()>;  // after success, e.g. AVG's postscale
  struct Job {
    Start start;
    Finish finish;
    std::shared_ptr<Request> request;
    MPI_Request handle = MPI_REQUEST_NULL;
    std::chrono::steady_clock::time_point started;
  };

  std::shared_ptr<Request> enqueue(Start start, Finish finish, uint64_t bytesSent);
  void progress();
  void startQueued(std::vector<Job>& active);
  // Tests the active jobs once, finishing those done, failed or overdue.
  void testActive(std::vector<Job>& active);
  std::string errorText(int code) const;

  const dtb_host_t* host_;
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  MPI_Comm comm_ = MPI_COMM_NULL;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::atomic<bool> broken_{false};  // a collective was abandoned
  std::thread thread_;

  std::atomic<uint64_t> bytesSent_{0};
  std::atomic<uint64_t> collectives_{0};
  std::atomic<uint64_t> busyNs_{0};  // time with at least one collective in flight
};

}  // namespace dtb::backend::mpi
