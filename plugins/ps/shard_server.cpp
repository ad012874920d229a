#include "shard_server.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "dtbench/plugin.hpp"

namespace dtb::strategy::ps {

ShardServer::ShardServer(const dtb_host_t* host, const ShardLayout& layout, int shard,
                         dtb_param_t* const* params, Mode mode, uint32_t staleness)
    : host_(host),
      layout_(layout),
      shard_(shard),
      mode_(mode),
      staleness_(mode == Mode::kSync ? 0 : staleness),
      rank_(host->comm_rank(host->ctx)),
      world_(host->comm_size(host->ctx)),
      elements_(layout.shard(shard).elements),
      values_(host, elements_, DTB_MEM_PARAMS),
      state_(host, elements_ * host->optim_state_floats(host->ctx), DTB_MEM_OPTIMIZER),
      sum_(host, mode == Mode::kSync ? elements_ : 0, DTB_MEM_BUFFERS),
      scaled_(elements_) {
  layout_.gather(shard_, params, &dtb_param_t::value, values_.data());
  for (int w = 0; w < world_; ++w) {
    Peer& p = peers_.emplace_back();
    p.inbox = HostBuffer<float>(host, messageFloats(), DTB_MEM_BUFFERS);
    p.outbox = HostBuffer<float>(host, messageFloats(), DTB_MEM_BUFFERS);
    p.replyDue = true;  // every worker starts from the server's values
  }
  sendDueReplies();
  expectPushes();
}

ShardServer::~ShardServer() {
  for (Peer& p : peers_) {
    releaseAtTeardown(host_, p.send);
    releaseAtTeardown(host_, p.recv);
  }
}

uint64_t ShardServer::bufferBytes() const {
  return sum_.bytes() + scaled_.size() * sizeof(float) + peers_.size() * 2 * messageFloats() * sizeof(float);
}

void ShardServer::saveState(void* out) const {
  auto* at = static_cast<char*>(out);
  if (values_.bytes() > 0) std::memcpy(at, values_.data(), values_.bytes());
  if (state_.bytes() > 0) std::memcpy(at + values_.bytes(), state_.data(), state_.bytes());
}

void ShardServer::loadState(const void* in) {
  const auto* at = static_cast<const char*>(in);
  if (values_.bytes() > 0) std::memcpy(values_.data(), at, values_.bytes());
  if (state_.bytes() > 0) std::memcpy(state_.data(), at + values_.bytes(), state_.bytes());
}

void ShardServer::countServerTime(std::chrono::steady_clock::time_point start) {
  host_->metric_add(
      host_->ctx, "ps.server_ms",
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
}

void ShardServer::expectPushes() {
  for (int w = 0; w < world_; ++w) postReceive(w);
}

void ShardServer::postReceive(int worker) {
  Peer& p = peers_[static_cast<size_t>(worker)];
  if (worker == rank_ || p.recv || p.levelled) return;
  dtb_tensor_t inbox = hostTensor(p.inbox.data(), messageFloats(), DTB_DTYPE_F32);
  check(host_->comm_recv(host_->ctx, &inbox, worker, kPushTag, &p.recv), "ps: receive a push");
}

void ShardServer::forgetLevels() {
  levelled_ = 0;
  for (Peer& p : peers_) p.levelled = false;
}

void ShardServer::pushLocal(const float* message) {
  const auto start = std::chrono::steady_clock::now();
  receive(rank_, message);
  sendDueReplies();
  countServerTime(start);
}

bool ShardServer::progress() {
  bool progressed = false;
  const auto start = std::chrono::steady_clock::now();
  for (int w = 0; w < world_; ++w) {
    Peer& p = peers_[static_cast<size_t>(w)];
    if (!p.recv || !arrived(host_, p.recv, "ps: receive a push")) continue;
    host_->metric_add(host_->ctx, "ps.server_bytes_in", static_cast<double>(messageFloats() * sizeof(float)));
    receive(w, p.inbox.data());
    progressed = true;
  }
  if (progressed) {
    sendDueReplies();
    countServerTime(start);
  }
  return progressed;
}

void ShardServer::receive(int worker, const float* message) {
  Peer& p = peers_[static_cast<size_t>(worker)];
  const Header h = readHeader(message);
  if (h.kind == static_cast<uint32_t>(PushKind::kLevel)) {
    p.replyDue = true;
    p.levelling = true;
    p.levelled = true;  // no receive posted for it again before the next epoch (forgetLevels)
    p.replyWhen = h.step;
    return;
  }
  ++p.clock;
  p.replyDue = true;
  p.replyWhen = h.step + 1 > staleness_ ? h.step + 1 - staleness_ : 0;
  if (mode_ == Mode::kAsync) {
    applyGradient(message + kHeaderFloats, 1.0f / static_cast<float>(world_));
    ++version_;
    // Its next gradient may come while this rank computes: only its own
    // receive, so none is left posted for a worker that is done.
    if (worker != rank_) postReceive(worker);
    return;
  }
  if (worker == rank_) std::memcpy(p.inbox.data(), message, messageFloats() * sizeof(float));
  if (++arrivedThisStep_ < static_cast<uint32_t>(world_)) return;
  // Every worker's gradient of this step is in: their average, summed in
  // rank order (the same on every run), waits for applyMerged().
  arrivedThisStep_ = 0;
  if (elements_ > 0)
    std::memcpy(sum_.data(), peers_[0].inbox.data() + kHeaderFloats, elements_ * sizeof(float));
  for (size_t w = 1; w < peers_.size(); ++w) {
    const float* g = peers_[w].inbox.data() + kHeaderFloats;
    float* sum = sum_.data();
    for (uint64_t i = 0; i < elements_; ++i) sum[i] += g[i];
  }
  const float scale = 1.0f / static_cast<float>(world_);
  for (uint64_t i = 0; i < elements_; ++i) scaled_[i] = sum_.data()[i] * scale;
  merged_ = true;
}

std::vector<dtb_tensor_t> ShardServer::mergedGradient() {
  std::vector<dtb_tensor_t> slices;
  for (const Segment& g : layout_.shard(shard_).segments)
    slices.push_back(hostTensor(scaled_.data() + g.shardOffset, g.count, DTB_DTYPE_F32));
  return slices;
}

void ShardServer::applyMerged(bool apply) {
  const auto start = std::chrono::steady_clock::now();
  merged_ = false;
  if (apply) update();
  ++version_;
  sendDueReplies();
  countServerTime(start);
}

void ShardServer::applyGradient(const float* gradient, float scale) {
  for (uint64_t i = 0; i < elements_; ++i) scaled_[i] = gradient[i] * scale;
  update();
}

void ShardServer::update() {
  const uint32_t floats = host_->optim_state_floats(host_->ctx);
  for (const Segment& g : layout_.shard(shard_).segments) {
    dtb_tensor_t value = hostTensor(values_.data() + g.shardOffset, g.count, DTB_DTYPE_F32);
    dtb_tensor_t grad = hostTensor(scaled_.data() + g.shardOffset, g.count, DTB_DTYPE_F32);
    float* state = floats ? state_.data() + g.shardOffset * floats : nullptr;
    check(host_->optim_update(host_->ctx, &value, &grad, state, g.param), "ps: optim_update");
  }
}

uint32_t ShardServer::minClock() const {
  uint32_t least = peers_[0].clock;
  for (const Peer& p : peers_) least = std::min(least, p.clock);
  return least;
}

void ShardServer::waitSend(Peer& peer) {
  if (!peer.send) return;
  check(host_->comm_wait(host_->ctx, std::exchange(peer.send, nullptr), DTB_TIMEOUT_DEFAULT),
        "ps: send a reply");
}

void ShardServer::sendDueReplies() {
  const uint32_t least = minClock();
  for (int w = 0; w < world_; ++w) {
    Peer& p = peers_[static_cast<size_t>(w)];
    // sync: the step's update applied; async: the slowest worker close enough.
    const uint32_t reached = mode_ == Mode::kSync ? version_ : least;
    if (!p.replyDue || reached < p.replyWhen) continue;
    p.replyDue = false;
    if (std::exchange(p.levelling, false)) ++levelled_;
    waitSend(p);  // its outbox is read until then
    writeHeader(p.outbox.data(), Header{0, 0, version_, least});
    // A shard may be empty (more servers than elements; a check with no
    // parameters): memcpy from its null buffer is undefined even for 0 bytes.
    if (elements_ > 0)
      std::memcpy(p.outbox.data() + kHeaderFloats, values_.data(), elements_ * sizeof(float));
    if (w == rank_) {
      localReady_ = true;
      continue;
    }
    dtb_tensor_t outbox = hostTensor(p.outbox.data(), messageFloats(), DTB_DTYPE_F32);
    check(host_->comm_send(host_->ctx, &outbox, w, kReplyTag, &p.send), "ps: send a reply");
    host_->metric_add(host_->ctx, "ps.server_bytes_out",
                      static_cast<double>(messageFloats() * sizeof(float)));
  }
}

bool ShardServer::takeLocalReply(float* out) {
  if (!localReady_) return false;
  localReady_ = false;
  std::memcpy(out, peers_[static_cast<size_t>(rank_)].outbox.data(), messageFloats() * sizeof(float));
  return true;
}

}  // namespace dtb::strategy::ps
