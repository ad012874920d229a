// What every backend's communicator class holds and answers alike, so that
// gloo, mpi and nccl write only what is theirs: the host it reports to, its
// rank and the world's size (from the rendezvous), and the traffic counters
// the host reads around each step (wiring.h's counters()). Not copyable:
// requests and threads point back at it.
#pragma once

#include <memory>

#include "common/traffic.h"
#include "dtbench/backend.h"

namespace dtb::backend {

class CommunicatorBase {
 public:
  CommunicatorBase(const CommunicatorBase&) = delete;
  CommunicatorBase& operator=(const CommunicatorBase&) = delete;

  const dtb_host_t* host() const { return host_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  dtb_comm_counters_t counters() const { return traffic_.counters(); }

 protected:
  CommunicatorBase(const dtb_host_t* host, const dtb_rendezvous_t& rdv)
      : host_(host), rank_(rdv.rank), size_(rdv.world_size) {}
  ~CommunicatorBase() = default;

  const dtb_host_t* const host_;
  const int rank_;
  const int size_;
  // What the collectives moved and how long the backend was busy running
  // them: gloo's worker thread, inside MPI, on the GPU (nccl, whose bytes
  // are nccl-tests' bus bytes). A member of the base, it outlives the
  // derived class's threads, which count into it to the end.
  Traffic traffic_;
};

}  // namespace dtb::backend

// The collectives wireIssue() wires (wiring.h), declared once for every
// communicator class, each with its own request type. Each checks its
// arguments at once (throwing dtb::Error) and starts or queues the
// collective; the tensors must stay valid until the request completes.
#define DTB_COMMUNICATOR_COLLECTIVES(RequestType)                                                   \
  std::shared_ptr<RequestType> allreduce(const dtb_tensor_t& buffer, dtb_reduce_op_t op);           \
  std::shared_ptr<RequestType> reduceScatter(const dtb_tensor_t& input, const dtb_tensor_t& output, \
                                             dtb_reduce_op_t op);                                   \
  std::shared_ptr<RequestType> allgather(const dtb_tensor_t& input, const dtb_tensor_t& output);    \
  std::shared_ptr<RequestType> broadcast(const dtb_tensor_t& buffer, int root);                     \
  std::shared_ptr<RequestType> barrier()
