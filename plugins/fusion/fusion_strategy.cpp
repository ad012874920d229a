#include "fusion_strategy.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "dtbench/strategy.hpp"
#include "dtbench/wait_mark.hpp"
#include "fusion_plan.h"
#include "fusion_settings.h"

namespace dtb::strategy::fusion {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// Coordination flags, combined with a bitwise AND across ranks: a flag
// survives only if every rank set it.
constexpr int32_t kNothingUncached = 0x1;  // no rank has a new tensor to ask for, none waits at rank 0
constexpr int32_t kNoAbort = 0x2;          // no rank gives up (stall, shutdown)

FusionOptions readOptions(const dtb_host_t* host) {
  double thresholdMb = kFusionThresholdMb.get(host), cycleMs = kCycleTimeMs.get(host);
  // Horovod's defaults today, and before v0.21 (64 MiB, 5 ms).
  const bool legacy = kPreset.get(host) == "horovod-legacy";
  if (thresholdMb < 0) thresholdMb = legacy ? 64 : 128;
  if (cycleMs < 0) cycleMs = legacy ? 5 : 1;
  const int world = host->comm_size(host->ctx);  // the local launcher puts every rank on this host
  return {roundThreshold(static_cast<uint64_t>(thresholdMb * kMiB), world), cycleMs,
          static_cast<uint32_t>(kCacheCapacity.get(host)), kStallTimeoutS.get(host)};
}

// CPU time this thread has used, in ms: what the cycle thread takes from the
// rank's cores (compute shares them).
double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace

FusionStrategy::FusionStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
    : host_(host),
      params_("fusion", setup, ParamSet::Place::kHostOrGpu, ParamSet::Dtypes::kF32OrHalf),
      sums_(host, params_, setup.accumulation_steps),
      optimizer_(host, params_),
      options_(readOptions(host)),
      rank_(host->comm_rank(host->ctx)),
      world_(host->comm_size(host->ctx)),
      table_(world_),
      inspector_(options_.stallTimeoutS, world_),
      cache_(options_.cacheCapacity),
      requests_(params_.size()),
      fusionBuffer_(host, options_.thresholdBytes,
                    params_.size() > 0 ? params_[0].grad.device : dtb_device_t{DTB_DEVICE_HOST, 0},
                    params_.dtype()) {
  for (const dtb_param_t* p : params_) names_.emplace_back(p->name);
  if (kAutotune.get(host)) {
    if (kFusionThresholdMb.get(host) >= 0 || kCycleTimeMs.get(host) >= 0) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  "fusion: autotune tunes fusion_threshold_mb and cycle_time_ms itself; leave them unset");
    }
    AutotuneSettings tuning;
    tuning.warmupPoints = static_cast<int>(kAutotuneWarmupSamples.get(host));
    tuning.stepsPerSample = static_cast<int>(kAutotuneStepsPerSample.get(host));
    tuning.maxPoints = static_cast<int>(kAutotuneBayesOptMaxSamples.get(host));
    tuning.noise = kAutotuneGaussianProcessNoise.get(host);
    autotune_.emplace(tuning);
  }
  // Under autotune the threshold and cycle are its points (rank 0's events), not the preset's.
  const std::string detail = (autotune_ ? std::string("fusion threshold and cycle tuned during training")
                                        : "fusion threshold " + std::to_string(options_.thresholdBytes) +
                                              " bytes, cycle " + std::to_string(options_.cycleMs) + " ms") +
                             ", response cache " + std::to_string(options_.cacheCapacity);
  host_->event(host_->ctx, "fusion", detail.c_str());
  thread_ = std::thread([this] { cycleLoop(); });
}

FusionStrategy::~FusionStrategy() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void FusionStrategy::beforeForward(const dtb_step_info_t& step) {
  sums_.beforeForward(step);
  if (!sums_.lastMicroStep()) return;
  if (autotune_) tune();
  {
    std::lock_guard lock(mutex_);
    if (!error_.empty()) throw Error(DTB_STATUS_COMM_FAILURE, error_);
    remaining_ = static_cast<uint32_t>(params_.size());
    active_ = remaining_ > 0;
  }
  wake_.notify_all();
}

void FusionStrategy::gradReady(dtb_param_t* param) {
  const uint32_t i = params_.indexOf(param);
  if (sums_.accumulating()) {
    if (!sums_.lastMicroStep()) {
      sums_.add(i);
      return;
    }
    // The mean over the step's micro-batches is what gets reduced.
    sums_.takeSum(i, param->grad.data, 1.0f / static_cast<float>(sums_.steps()));
  }
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(i);
  }
}

void FusionStrategy::finishBackward() {
  if (!sums_.lastMicroStep()) return;
  std::unique_lock lock(mutex_);
  // The thread ends every step by itself: all reduced, a failed collective
  // (each has the run's timeout) or rank 0's stall verdict. The deadline
  // here only guards against a bug in that promise.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(2 * options_.stallTimeoutS + 60);
  bool finished = false;
  {
    // The collectives run on the cycle thread, where the host does not see
    // this thread wait for them: it is told (exposed communication).
    const WaitMark waiting(host_);
    finished = done_.wait_until(lock, deadline, [&] { return !active_; });
  }
  if (!finished) {
    error_ =
        "fusion: the step did not finish within " + std::to_string(2 * options_.stallTimeoutS + 60) + " s";
    stopping_ = true;
  }
  if (!error_.empty()) throw Error(DTB_STATUS_COMM_FAILURE, error_);
}

void FusionStrategy::tune() {
  const int64_t step = syncSteps_++;
  // Decided before rank 0 scores: its verdict may end tuning at this very
  // boundary, and every rank must broadcast here all the same.
  const bool boundary = autotune_->atBoundary(step);
  if (rank_ == 0) {
    const std::string line =
        autotune_->stepBegins(step, static_cast<double>(host_->now_ns(host_->ctx)) / 1e9);
    if (!line.empty()) host_->event(host_->ctx, "fusion", line.c_str());
  }
  if (boundary) {
    const FusionPoint chosen = autotune_->current();
    double point[3] = {autotune_->active() ? 1.0 : 0.0, chosen.thresholdMb, chosen.cycleMs};
    dtb_tensor_t tensor = hostTensor(point, 3, DTB_DTYPE_F64);
    dtb_request_t request = nullptr;
    check(host_->comm_broadcast(host_->ctx, &tensor, 0, &request), "fusion: autotune broadcast");
    waitFor(request, "autotune broadcast");
    autotune_->adopt({point[1], point[2]}, point[0] != 0);
  }
  const FusionPoint now = autotune_->current();
  options_.thresholdBytes = roundThreshold(static_cast<uint64_t>(now.thresholdMb * kMiB), world_);
  options_.cycleMs = now.cycleMs;
  host_->metric_add(host_->ctx, "fusion.threshold_mb", now.thresholdMb);
  host_->metric_add(host_->ctx, "fusion.cycle_time_ms", now.cycleMs);
}

void FusionStrategy::cycleLoop() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return active_ || stopping_; });
      if (!active_) return;  // stopping between steps
    }
    const double cpuStart = threadCpuMs();
    auto next = std::chrono::steady_clock::now();
    bool more = true;
    while (more) {
      // Horovod sleeps out the rest of the cycle before each round, counted
      // from the previous round's start; a round that overran its cycle is
      // followed at once by one more, not by rounds that catch up.
      next = std::max(next + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double, std::milli>(options_.cycleMs)),
                      std::chrono::steady_clock::now());
      std::this_thread::sleep_until(next);
      try {
        more = cycle();
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex_);
        if (error_.empty()) error_ = e.what();  // rank 0's stall verdict stays
        more = false;
      }
    }
    // Before the step is released: counted with its own metrics.
    host_->metric_add(host_->ctx, "fusion.cycle_cpu_ms", threadCpuMs() - cpuStart);
    {
      std::lock_guard lock(mutex_);
      active_ = false;
      pending_.clear();
      requests_.clear();
      queue_.clear();
    }
    done_.notify_all();
  }
}

bool FusionStrategy::cycle() {
  bool stopping = false;
  {
    std::lock_guard lock(mutex_);
    pending_.insert(pending_.end(), queue_.begin(), queue_.end());
    queue_.clear();
    stopping = stopping_;
  }
  const std::vector<uint32_t> uncached = requests_.take(pending_, cache_);
  // One bitwise-AND all-reduce: the flags, and the cache bits of the cached
  // tensors ready here.
  const int64_t negotiateStart = host_->now_ns(host_->ctx);
  std::vector<int32_t> words(1 + cache_.words(), 0);
  // Rank 0 keeps negotiating while tensors wait for some rank's request:
  // its stall inspector runs in the negotiation.
  const bool nothingToNegotiate = uncached.empty() && (rank_ != 0 || table_.waiting().empty());
  words[0] = (nothingToNegotiate ? kNothingUncached : 0) | (stopping ? 0 : kNoAbort);
  std::vector<int32_t> bits(cache_.words(), 0);
  cache_.setBits(pending_, bits);
  std::copy(bits.begin(), bits.end(), words.begin() + 1);
  dtb_tensor_t tensor = hostTensor(words.data(), words.size(), DTB_DTYPE_I32);
  dtb_request_t request = nullptr;
  check(host_->comm_allreduce(host_->ctx, &tensor, DTB_REDUCE_BAND, &request),
        "fusion: cache bits all-reduce");
  host_->metric_add(host_->ctx, "fusion.cycles", 1);  // stored per step (step_metric)
  waitFor(request, "cache bits all-reduce");
  if (!(words[0] & kNoAbort)) {
    throw Error(DTB_STATUS_COMM_FAILURE,
                stopping ? "fusion: stopped while gradients were being reduced"
                         : "fusion: another rank stopped the negotiation (see its error)");
  }
  std::vector<int32_t> agreed(words.begin() + 1, words.end());
  std::vector<uint32_t> responses = cache_.tensorsWithBits(agreed);
  if (!(words[0] & kNothingUncached)) {
    bool abort = false;
    const std::vector<uint32_t> negotiated = negotiate(uncached, &abort);
    if (abort) {
      throw Error(DTB_STATUS_COMM_FAILURE, "fusion: rank 0 gave up waiting for tensors (see its error)");
    }
    for (uint32_t t : negotiated) cache_.put(t);
    responses.insert(responses.end(), negotiated.begin(), negotiated.end());
  }
  host_->trace_span(host_->ctx, "NEGOTIATE", "fusion", negotiateStart, host_->now_ns(host_->ctx));
  if (!responses.empty()) execute(responses);
  std::lock_guard lock(mutex_);
  return remaining_ > 0;
}

std::vector<uint32_t> FusionStrategy::negotiate(const std::vector<uint32_t>& uncached, bool* abort) {
  const uint32_t slots = static_cast<uint32_t>(params_.size()) + 1;
  // Every rank's request list (count, then tensors) to rank 0.
  std::vector<int32_t> mine(slots, -1), all(static_cast<size_t>(slots) * world_, -1);
  mine[0] = static_cast<int32_t>(uncached.size());
  for (size_t k = 0; k < uncached.size(); ++k) mine[k + 1] = static_cast<int32_t>(uncached[k]);
  dtb_tensor_t in = hostTensor(mine.data(), mine.size(), DTB_DTYPE_I32),
               out = hostTensor(all.data(), all.size(), DTB_DTYPE_I32);
  dtb_request_t request = nullptr;
  check(host_->comm_allgather(host_->ctx, &in, &out, &request), "fusion: request gather");
  waitFor(request, "request gather");
  // Rank 0 decides; the plan goes out with a broadcast (Horovod's response list).
  std::vector<int32_t> plan(slots + 1, 0);  // [abort, count, tensors...]
  if (rank_ == 0) {
    std::vector<std::vector<uint32_t>> reported(world_);
    for (int r = 0; r < world_; ++r) {
      const int32_t* list = all.data() + static_cast<size_t>(r) * slots;
      for (int32_t k = 0; k < list[0]; ++k) reported[r].push_back(static_cast<uint32_t>(list[k + 1]));
    }
    const std::vector<uint32_t> ready = table_.add(reported);
    if (auto stalled = inspector_.inspect(ready, table_.waiting(), host_->now_ns(host_->ctx), names_)) {
      {
        std::lock_guard lock(mutex_);
        error_ = std::move(*stalled);
      }
      plan[0] = 1;
    }
    plan[1] = static_cast<int32_t>(ready.size());
    for (size_t k = 0; k < ready.size(); ++k) plan[k + 2] = static_cast<int32_t>(ready[k]);
  }
  dtb_tensor_t planTensor = hostTensor(plan.data(), plan.size(), DTB_DTYPE_I32);
  check(host_->comm_broadcast(host_->ctx, &planTensor, 0, &request), "fusion: response broadcast");
  waitFor(request, "response broadcast");
  *abort = plan[0] != 0;
  std::vector<uint32_t> responses;
  for (int32_t k = 0; k < plan[1]; ++k) responses.push_back(static_cast<uint32_t>(plan[k + 2]));
  return responses;
}

void FusionStrategy::execute(const std::vector<uint32_t>& responses) {
  std::vector<uint64_t> bytes;
  for (uint32_t t : responses) bytes.push_back(params_[t].grad.count * dtypeSize(params_[t].grad.dtype));
  for (const std::vector<uint32_t>& group : fuse(bytes, options_.thresholdBytes)) {
    dtb_request_t request = nullptr;
    if (group.size() == 1) {  // a lone tensor is reduced in place
      dtb_param_t* p = &params_[responses[group[0]]];
      const int64_t start = host_->now_ns(host_->ctx);
      check(host_->comm_allreduce(host_->ctx, &p->grad, DTB_REDUCE_AVG, &request), "fusion: all-reduce");
      waitFor(request, "all-reduce");
      host_->trace_span(host_->ctx, "ALLREDUCE", "fusion", start, host_->now_ns(host_->ctx));
    } else {
      std::vector<dtb_param_t*> fused;
      for (uint32_t g : group) fused.push_back(&params_[responses[g]]);
      fusionBuffer_.allreduce(fused, [&](dtb_request_t r) { waitFor(r, "all-reduce"); });
    }
  }
  // Done: off the pending list, and counted for this step.
  std::vector<bool> done(params_.size(), false);
  for (uint32_t t : responses) {
    done[t] = true;
    requests_.reduced(t);
  }
  std::erase_if(pending_, [&](uint32_t t) { return done[t]; });
  std::lock_guard lock(mutex_);
  remaining_ -= static_cast<uint32_t>(responses.size());
}

void FusionStrategy::waitFor(dtb_request_t request, const char* what) {
  // The host's own message about the failure stays with this (the cycle)
  // thread, so the one the step fails with says what the status means.
  const dtb_status_t status = host_->comm_wait(host_->ctx, request, DTB_TIMEOUT_DEFAULT);
  if (status == DTB_STATUS_OK) return;
  const char* why =
      status == DTB_STATUS_TIMEOUT ? "timed out (a peer is gone or stuck)" : "failed (a peer is gone)";
  throw Error(status, std::string("fusion: ") + what + " on rank " + std::to_string(rank_) + " " + why);
}

}  // namespace dtb::strategy::fusion
