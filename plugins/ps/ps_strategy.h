// A parameter server (TensorFlow's ParameterServerStrategy, MXNet's
// KVStore, BytePS): the parameters are split into shards (shard_layout.h),
// each held by a server (shard_server.h) on one of the ranks; every worker
// pushes its gradient of each shard to that shard's server and pulls the
// shard's values back, over point-to-point messages (ABI 1.9), not a
// collective. Each worker pushes Psi and pulls Psi per step; a server's
// links carry G x Psi / S each way, which is the bottleneck ring
// all-reduce (2 Psi (G-1)/G per rank, whatever G) was invented to remove.
//
// Per step: finish_backward pushes (after backward, not per layer); in sync
// mode step() has the server apply the average and waits for the replies,
// which it writes into the model. In
// async mode the reply is awaited at the next step's before_forward, so a
// worker computes while the servers apply the others' gradients, and at
// each epoch's end every worker is brought level (before_evaluation), so
// all evaluate, and end with, the same parameters. Servers colocated with a
// worker serve from that rank's training thread whenever a hook runs or a
// wait polls; their work there is the optimizer phase, and the polling
// between their turns is declared as exposed communication.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "dtbench/host_buffer.hpp"
#include "dtbench/param_set.hpp"
#include "shard_layout.h"
#include "shard_server.h"

namespace dtb::strategy::ps {

class PsStrategy {
 public:
  PsStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup);
  ~PsStrategy();
  PsStrategy(const PsStrategy&) = delete;
  PsStrategy& operator=(const PsStrategy&) = delete;

  const dtb_host_t* host() const { return host_; }
  void beforeForward(const dtb_step_info_t& step);
  void layerBegin(uint32_t layer, dtb_pass_t pass);
  void finishBackward();
  void step();
  void beforeEvaluation(uint32_t epoch);
  void memoryReport(dtb_memory_report_t* out) const;
  uint64_t stateSize() const { return server_ ? server_->stateBytes() : 0; }
  void saveState(void* out, uint64_t bytes) const;
  void loadState(const void* in, uint64_t bytes);

 private:
  int serverRank(int shard) const { return shard; }  // shard s lives on rank s
  // Sends this worker's message to every shard's server (the own one
  // locally) and posts the receives of their replies.
  void push(PushKind kind);
  // Waits for every reply posted, giving the own server its turns, then
  // writes them into the model and records the staleness they carry.
  void pull();
  bool replyArrived(int shard);
  // Gives the own server its turns until `done`.
  void await(const std::function<bool()>& done);

  const dtb_host_t* host_;
  ParamSet params_;
  Mode mode_;
  uint32_t staleness_;
  int rank_, world_;
  std::unique_ptr<ShardLayout> layout_;
  std::unique_ptr<ShardServer> server_;                 // when this rank serves a shard
  std::vector<HostBuffer<float>> outgoing_, incoming_;  // by shard: pushes, replies
  std::vector<dtb_request_t> sends_, recvs_;            // by shard, in flight
  std::vector<bool> awaiting_;                          // by shard: a reply is owed
  uint32_t pushed_ = 0;                                 // gradients this worker pushed
};

}  // namespace dtb::strategy::ps
