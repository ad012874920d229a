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

#include "common/communicator_base.h"
#include "common/job_queue.h"
#include "common/request.h"
#include "dtbench/backend.h"

namespace gloo::rendezvous {
class Context;
}

namespace dtb::backend::gloo {

enum class Algorithm { kAuto, kRing, kBcube, kRingChunked, kHalvingDoubling };
Algorithm parseAlgorithm(const std::string& name);

class GlooCommunicator : public CommunicatorBase {
 public:
  static constexpr const char* kName = "gloo";

  // Joins the rendezvous; throws dtb::Error (TIMEOUT, COMM_FAILURE) naming
  // the store and the ranks that did not arrive in time.
  GlooCommunicator(const dtb_host_t* host, const dtb_rendezvous_t& rdv, Algorithm algorithm);
  ~GlooCommunicator();

  DTB_COMMUNICATOR_COLLECTIVES(Request);  // queued for the worker thread

 private:
  using Op = std::function<void(uint32_t tag)>;
  std::shared_ptr<Request> enqueue(Op op, uint64_t bytesSent);
  void work();

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
};

}  // namespace dtb::backend::gloo
