// A Gloo communicator: rendezvous through a file store, a full mesh of TCP
// pairs, and one worker thread that runs the collectives in the order they
// were issued, so callers get asynchronous requests (as PyTorch's
// ProcessGroupGloo does with its work queue). Every Gloo call has the
// rendezvous timeout, so no wait is unbounded.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/job_queue.h"
#include "common/request.h"
#include "common/traffic.h"
#include "dtbench/backend.h"

namespace gloo::rendezvous {
class Context;
}

namespace dtb::backend::gloo {

enum class Algorithm { kAuto, kRing, kBcube, kRingChunked, kHalvingDoubling };
Algorithm parseAlgorithm(const std::string& name);

class GlooCommunicator {
 public:
  static constexpr const char* kName = "gloo";

  // Joins the rendezvous; throws dtb::Error (TIMEOUT, COMM_FAILURE) naming
  // the store and the ranks that did not arrive in time.
  GlooCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv, Algorithm algorithm);
  ~GlooCommunicator();
  GlooCommunicator(const GlooCommunicator&) = delete;
  GlooCommunicator& operator=(const GlooCommunicator&) = delete;

  const dtb_host_t* host() const { return host_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Each checks its arguments at once (throwing dtb::Error) and queues the
  // collective; tensors must stay valid until the request completes.
  std::shared_ptr<Request> allreduce(const dtb_tensor_t& buffer, dtb_reduce_op_t op);
  std::shared_ptr<Request> reduceScatter(const dtb_tensor_t& input, const dtb_tensor_t& output,
                                         dtb_reduce_op_t op);
  std::shared_ptr<Request> allgather(const dtb_tensor_t& input, const dtb_tensor_t& output);
  std::shared_ptr<Request> broadcast(const dtb_tensor_t& buffer, int root);
  std::shared_ptr<Request> barrier();

  dtb_comm_counters_t counters() const { return traffic_.counters(); }

 private:
  using Op = std::function<void(uint32_t tag)>;
  std::shared_ptr<Request> enqueue(Op op, uint64_t bytesSent);
  void work();

  const dtb_host_t* host_;
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  Algorithm algorithm_;
  std::shared_ptr<::gloo::rendezvous::Context> context_;

  struct Job {
    Op op;
    uint32_t tag;
    std::shared_ptr<Request> request;
  };
  JobQueue<Job> queue_;
  uint32_t nextTag_ = 0;  // issue order, equal on every rank
  std::thread worker_;

  Traffic traffic_;  // busy: the worker thread's time in collectives
};

}  // namespace dtb::backend::gloo
