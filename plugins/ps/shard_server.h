// One server's side of the parameter server: the shard it holds (values
// and optimizer state, its own copy: in async mode the workers' replicas
// lag behind it), the pushes it receives from every worker and the replies
// it sends back. Colocated with a worker (BytePS, TensorFlow with ps tasks
// on the workers' machines), it runs on that rank's training thread,
// whenever the strategy gives it a turn (progress()): in every hook and in
// every wait, so it serves while its own worker waits.
//
// sync: it waits for one gradient from every worker and averages them; its
// worker's step() applies the average once (applyMerged: the same update as
// all-reduce's, over the shard, in step() as the host's optimizer and its
// clipping expect) and the server replies to all. async (TensorFlow's
// default): each gradient is applied on arrival, scaled by 1/G, as its own
// optimizer update — for plain SGD G of them move the parameters as one
// averaged step would; with momentum, weight decay or Adam they do not (the
// momentum decays G times a step, decay is applied G times, Adam undoes the
// scale). A worker's reply waits until the slowest worker is at most
// `staleness` steps behind it (stale synchronous parallel, Ho et al. 2013),
// and the staleness the reply carries is stored.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "dtbench/host_buffer.hpp"
#include "messages.h"
#include "shard_layout.h"

namespace dtb::strategy::ps {

enum class Mode { kSync, kAsync };

class ShardServer {
 public:
  ShardServer(const dtb_host_t* host, const ShardLayout& layout, int shard, dtb_param_t* const* params,
              Mode mode, uint32_t staleness);
  // Waits (bounded) for the messages still in flight.
  ~ShardServer();
  ShardServer(const ShardServer&) = delete;
  ShardServer& operator=(const ShardServer&) = delete;

  uint64_t messageFloats() const { return kHeaderFloats + elements_; }
  // The own worker's push (a message of messageFloats()).
  void pushLocal(const float* message);
  // Posts a receive for each remote worker that has none and has not been
  // levelled this epoch: before the own worker's step (its peers' pushes
  // may come any time after). None is ever left posted for a worker that
  // will not push again: a posted message has the run's timeout.
  void expectPushes();
  // sync: every worker's gradient of the step is in (progress() merges).
  bool mergeReady() const { return merged_; }
  // The averaged gradient's slices, per parameter (optim_check's input).
  std::vector<dtb_tensor_t> mergedGradient();
  // sync, from the worker's step(): applies the average (unless the step
  // is skipped) and replies to every worker.
  void applyMerged(bool apply);
  // Tests the messages in flight, applies the gradients that arrived and
  // sends the replies now due. True when something happened.
  bool progress();
  // The own worker's reply, once due: copied to `out` (messageFloats()).
  bool takeLocalReply(float* out);
  // Whether every worker's level request of this epoch was answered: a
  // server's rank leaves the epoch's end only then, since the others may
  // still need it. forgetLevels() starts the next epoch's count.
  bool everyoneLevelled() const { return levelled_ == world_; }
  void forgetLevels();

  // The shard's values and optimizer state: checkpoints (the values too,
  // since in async mode the workers' copies lag behind them).
  uint64_t stateBytes() const { return values_.bytes() + state_.bytes(); }
  void saveState(void* out) const;
  void loadState(const void* in);
  uint64_t bufferBytes() const;
  uint64_t optimizerBytes() const { return state_.bytes(); }

 private:
  struct Peer {
    HostBuffer<float> inbox, outbox;
    dtb_request_t recv = nullptr, send = nullptr;
    uint32_t clock = 0;      // gradients received
    bool replyDue = false;   // a reply is owed
    uint32_t replyWhen = 0;  // once every worker's clock is this
    bool levelling = false;  // the reply owed answers a level request
    bool levelled = false;   // it asked to be levelled this epoch: it pushes no more
  };
  void receive(int worker, const float* message);
  void applyGradient(const float* gradient, float scale);
  void update();  // the optimizer over the shard, from scaled_
  void postReceive(int worker);
  // The server's work since `start`: the step's ps.server_ms.
  void countServerTime(std::chrono::steady_clock::time_point start);
  void sendDueReplies();
  uint32_t minClock() const;
  void waitSend(Peer& peer);

  const dtb_host_t* host_;
  const ShardLayout& layout_;
  const int shard_;
  const Mode mode_;
  const uint32_t staleness_;
  const int rank_, world_;
  const uint64_t elements_;
  HostBuffer<float> values_, state_, sum_;
  std::vector<float> scaled_;
  std::vector<Peer> peers_;       // by worker rank
  uint32_t version_ = 0;          // updates applied
  uint32_t arrivedThisStep_ = 0;  // sync: gradients in the inboxes
  bool localReady_ = false;       // the own worker's reply is in its outbox
  int levelled_ = 0;              // level requests answered this epoch
  bool merged_ = false;           // sync: scaled_ holds the step's average, not yet applied
};

}  // namespace dtb::strategy::ps
