#include "ps_strategy.h"

#include <algorithm>
#include <string>
#include <thread>

#include "dtbench/optimizer_state.hpp"
#include "dtbench/wait_mark.hpp"
#include "ps_settings.h"

namespace dtb::strategy::ps {
namespace {

Mode parseMode(const std::string& text) { return text == "async" ? Mode::kAsync : Mode::kSync; }

// A waiting rank yields its core this many turns, then sleeps between them.
constexpr int kSpinTurns = 64;
constexpr std::chrono::microseconds kIdleSleep{50};

}  // namespace

PsStrategy::PsStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
    : host_(host),
      params_("ps", setup),
      mode_(parseMode(kMode.get(host))),
      staleness_(static_cast<uint32_t>(kStaleness.get(host))),
      rank_(host->comm_rank(host->ctx)),
      world_(host->comm_size(host->ctx)) {
  if (setup.accumulation_steps > 1) {
    throw Error(
        DTB_STATUS_UNSUPPORTED,
        "ps: gradient accumulation (accumulation_steps > 1) is not supported by the parameter server yet");
  }
  if (world_ > 1 && !(DTB_HAS_SERVICE(host, comm_send) && DTB_HAS_SERVICE(host, comm_recv))) {
    throw Error(DTB_STATUS_UNSUPPORTED, "ps: this host has no point-to-point messages (ABI 1.9's comm_send)");
  }
  // More servers than ranks is what a matrix crossing `servers` with
  // world_size asks at its smaller worlds: every rank serves then.
  const int64_t servers = kServers.get(host);
  const int shards = servers == 0 || servers > world_ ? world_ : static_cast<int>(servers);
  std::vector<uint64_t> counts;
  for (const dtb_param_t* p : params_) counts.push_back(p->value.count);
  layout_ = std::make_unique<ShardLayout>(counts, shards);
  if (rank_ < shards)
    server_ = std::make_unique<ShardServer>(host, *layout_, rank_, params_.all().data(), mode_, staleness_);
  for (int s = 0; s < shards; ++s) {
    const uint64_t floats = kHeaderFloats + layout_->shard(s).elements;
    outgoing_.emplace_back(host, floats, DTB_MEM_BUFFERS);
    incoming_.emplace_back(host, floats, DTB_MEM_BUFFERS);
  }
  sends_.assign(static_cast<size_t>(shards), nullptr);
  recvs_.assign(static_cast<size_t>(shards), nullptr);
  awaiting_.assign(static_cast<size_t>(shards), false);
  host->event(host->ctx, "ps",
              ("servers on ranks 0-" + std::to_string(shards - 1) + ", " + kMode.get(host) +
               (mode_ == Mode::kAsync ? ", staleness " + std::to_string(staleness_) : std::string()) + ", " +
               std::to_string(layout_->elements()) + " elements in " + std::to_string(shards) + " shards")
                  .c_str());
  // Every worker starts from the servers' values, as TensorFlow's workers
  // read the variables from the ps tasks.
  for (int s = 0; s < shards; ++s) {
    awaiting_[static_cast<size_t>(s)] = true;
    if (serverRank(s) == rank_) continue;
    dtb_tensor_t in = hostTensor(incoming_[static_cast<size_t>(s)].data(),
                                 incoming_[static_cast<size_t>(s)].size(), DTB_DTYPE_F32);
    check(host->comm_recv(host->ctx, &in, serverRank(s), kReplyTag, &recvs_[static_cast<size_t>(s)]),
          "ps: receive the initial values");
  }
  pull();
}

PsStrategy::~PsStrategy() {
  for (dtb_request_t& r : sends_) releaseAtTeardown(host_, r);
  for (dtb_request_t& r : recvs_) releaseAtTeardown(host_, r);
}

void PsStrategy::beforeForward(const dtb_step_info_t&) {
  if (server_) server_->expectPushes();
  if (mode_ == Mode::kAsync) pull();  // the values pushed at the last step asked for
}

void PsStrategy::layerBegin(uint32_t, dtb_pass_t) {
  if (server_) server_->progress();  // serve the other workers while this one computes
}

void PsStrategy::finishBackward() {
  push(PushKind::kGradient);
  ++pushed_;
}

void PsStrategy::step() {
  if (mode_ == Mode::kAsync) return;  // the servers apply each gradient as it arrives
  // sync: this rank's server applies its shard's average here, in step(),
  // where the host's optimizer counts the step and sets its clipping.
  if (server_) {
    await([&] { return server_->mergeReady(); });
    // optim_check once a step with the shard's gradient, when every rank
    // serves one: the host adds the shards' squares over the ranks, which
    // it does only where every rank holds a shard alike. With ranks that
    // serve nothing it is not asked, and a run with gradient_clipping is
    // refused by the host at the first update, naming the reason.
    const bool apply = layout_->shards() < world_ || stepApplies(host_, server_->mergedGradient());
    server_->applyMerged(apply);
  }
  pull();
}

void PsStrategy::beforeEvaluation(uint32_t) {
  if (mode_ == Mode::kSync) return;  // every worker holds the same values already
  pull();                            // the last step's reply
  push(PushKind::kLevel);            // then level with every worker's last gradient
  pull();
  if (!server_) return;
  // The others may still wait for this rank's server to level them.
  await([&] { return server_->everyoneLevelled(); });
  server_->forgetLevels();
}

void PsStrategy::push(PushKind kind) {
  for (int s = 0; s < layout_->shards(); ++s) {
    const auto i = static_cast<size_t>(s);
    if (sends_[i])
      check(host_->comm_wait(host_->ctx, std::exchange(sends_[i], nullptr), DTB_TIMEOUT_DEFAULT), "ps: push");
    float* message = outgoing_[i].data();
    writeHeader(message, Header{static_cast<uint32_t>(kind), pushed_, 0, 0});
    if (kind == PushKind::kGradient)
      layout_->gather(s, params_.all().data(), &dtb_param_t::grad, message + kHeaderFloats);
    awaiting_[i] = true;
    if (serverRank(s) == rank_) {
      server_->pushLocal(message);
      continue;
    }
    dtb_tensor_t out = hostTensor(message, outgoing_[i].size(), DTB_DTYPE_F32);
    check(host_->comm_send(host_->ctx, &out, serverRank(s), kPushTag, &sends_[i]), "ps: push");
    dtb_tensor_t in = hostTensor(incoming_[i].data(), incoming_[i].size(), DTB_DTYPE_F32);
    check(host_->comm_recv(host_->ctx, &in, serverRank(s), kReplyTag, &recvs_[i]), "ps: pull");
    const double bytes = static_cast<double>(outgoing_[i].bytes());
    host_->metric_add(host_->ctx, "ps.push_bytes", bytes);
    host_->metric_add(host_->ctx, "ps.pull_bytes", bytes);
  }
}

bool PsStrategy::replyArrived(int shard) {
  const auto i = static_cast<size_t>(shard);
  if (serverRank(shard) == rank_) return server_->takeLocalReply(incoming_[i].data());
  return arrived(host_, recvs_[i], "ps: pull");
}

void PsStrategy::await(const std::function<bool()>& done) {
  // Turns with nothing to serve or take are waits for peers: declared as
  // such (the server's turns stay in the optimizer phase), and after a few
  // of them the thread sleeps a little, leaving the core to the ranks it
  // waits for. Bounded: every message has the run's timeout, which
  // comm_test reports as a failure.
  int idle = 0;
  for (;;) {
    const bool served = server_ && server_->progress();
    if (done()) return;
    if (served) {
      idle = 0;
      continue;
    }
    WaitMark waiting(host_);
    if (++idle < kSpinTurns)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(kIdleSleep);
  }
}

void PsStrategy::pull() {
  if (!server_) {
    // Nothing to serve: block on each reply (the host counts the wait).
    for (size_t i = 0; i < awaiting_.size(); ++i) {
      if (!awaiting_[i]) continue;
      check(host_->comm_wait(host_->ctx, std::exchange(recvs_[i], nullptr), DTB_TIMEOUT_DEFAULT), "ps: pull");
      awaiting_[i] = false;
    }
  } else {
    await([&] {
      bool owed = false;
      for (int s = 0; s < layout_->shards(); ++s) {
        const auto i = static_cast<size_t>(s);
        if (awaiting_[i] && replyArrived(s)) awaiting_[i] = false;
        owed = owed || awaiting_[i];
      }
      return !owed;
    });
  }
  uint32_t staleness = 0;
  for (int s = 0; s < layout_->shards(); ++s) {
    const float* reply = incoming_[static_cast<size_t>(s)].data();
    const Header h = readHeader(reply);
    staleness = std::max(staleness, pushed_ > h.minClock ? pushed_ - h.minClock : 0);
    layout_->scatter(s, reply + kHeaderFloats, params_.all().data(), &dtb_param_t::value);
  }
  host_->metric_add(host_->ctx, "ps.staleness", staleness);
}

void PsStrategy::memoryReport(dtb_memory_report_t* out) const {
  uint64_t buffers = 0;
  for (const auto& b : outgoing_) buffers += b.bytes();
  for (const auto& b : incoming_) buffers += b.bytes();
  out->param_bytes = params_.bytes() + (server_ ? server_->messageFloats() * sizeof(float) : 0);
  out->grad_bytes = params_.bytes();
  out->optimizer_bytes = server_ ? server_->optimizerBytes() : 0;
  out->buffer_bytes = buffers + (server_ ? server_->bufferBytes() : 0);
}

void PsStrategy::saveState(void* out, uint64_t bytes) const {
  if (bytes != stateSize()) throw Error(DTB_STATUS_INVALID_ARGUMENT, "ps: state of another size");
  if (server_) server_->saveState(out);
}

void PsStrategy::loadState(const void* in, uint64_t bytes) {
  if (bytes != stateSize()) throw Error(DTB_STATUS_INVALID_ARGUMENT, "ps: state of another size");
  if (server_) server_->loadState(in);
}

}  // namespace dtb::strategy::ps
