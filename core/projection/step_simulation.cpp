#include "projection/step_simulation.h"

#include <algorithm>
#include <map>
#include <vector>

namespace dtb::core {
namespace {

// One communicator's collectives, run one after another in the order they
// are issued.
class CommStream {
 public:
  // A collective of `costS` issued at `issuedS`; returns when it ends.
  double run(double issuedS, double costS) {
    end_ = std::max(end_, issuedS) + costS;
    busy_ += costS;
    return end_;
  }
  double end() const { return end_; }
  double busy() const { return busy_; }

 private:
  double end_ = 0;
  double busy_ = 0;
};

// Gradients grouped, in the order they became ready, into buckets that
// close once they reach their cap (the first bucket `firstCap`, the rest
// `cap`; one large gradient may overshoot alone): each bucket's bytes and
// when its last gradient was ready.
struct Bucket {
  double bytes = 0;
  double readyS = 0;
};

std::vector<Bucket> bucketsInReadyOrder(const std::vector<ProfiledGradient>& gradients, double firstCap,
                                        double cap) {
  std::vector<Bucket> buckets;
  Bucket current;
  for (const ProfiledGradient& g : gradients) {
    current.bytes += g.bytes;
    current.readyS = std::max(current.readyS, g.readyS);
    if (current.bytes >= (buckets.empty() ? firstCap : cap)) {
      buckets.push_back(current);
      current = {};
    }
  }
  if (current.bytes > 0) buckets.push_back(current);
  return buckets;
}

// The step around the communication a strategy leaves exposed, with the
// optimizer's share of the update (a ZeRO rank updates 1/G of it).
SimulatedStep stepWith(const StepProfile& p, double exposedS, double commS, double optimizerS) {
  return {p.dataS + p.forwardS + p.backwardS + exposedS + optimizerS + p.otherS, commS, exposedS};
}

// The baseline: every gradient all-reduced alone once backward is over.
SimulatedStep perTensor(const StepProfile& p, const CollectiveCosts& costs) {
  CommStream stream;
  for (const ProfiledGradient& g : p.gradients) stream.run(p.backwardS, costs.allreduceS(g.bytes));
  return stepWith(p, std::max(0.0, stream.end() - p.backwardS), stream.busy(), p.optimizerS);
}

// DDP: buckets as the gradients became ready (the order DDP rebuilds its
// buckets in after the first step), each all-reduced once its last
// gradient is in, strictly in bucket order, overlapping the rest of
// backward; after backward, the wait for them all.
SimulatedStep bucketed(const StepProfile& p, const StrategySchedule& s, const CollectiveCosts& costs) {
  CommStream stream;
  for (const Bucket& b : bucketsInReadyOrder(p.gradients, s.firstBucketBytes, s.bucketBytes))
    stream.run(b.readyS, costs.allreduceS(b.bytes));
  return stepWith(p, std::max(0.0, stream.end() - p.backwardS), stream.busy(), p.optimizerS);
}

// Horovod: the background thread's cycles, a cycle time apart (or later,
// when the last cycle's all-reduces ran longer). Each agrees on what is
// ready on every rank (with the response cache: one AND-all-reduce of its
// bits), then all-reduces what was ready when it began, fused greedily in
// that order into batches within the threshold (0: each tensor alone).
SimulatedStep fusion(const StepProfile& p, const StrategySchedule& s, const CollectiveCosts& costs) {
  CommStream stream;
  const std::vector<ProfiledGradient>& g = p.gradients;
  size_t next = 0;
  double cycleS = 0;
  while (next < g.size()) {
    cycleS = std::max(cycleS + s.cycleS, stream.end());
    stream.run(cycleS, costs.allreduceS(s.cacheBitsBytes));
    double batch = 0;
    for (; next < g.size() && g[next].readyS <= cycleS; ++next) {
      if (batch > 0 && batch + g[next].bytes > s.fusionBytes) {
        stream.run(cycleS, costs.allreduceS(batch));
        batch = 0;
      }
      batch += g[next].bytes;
    }
    if (batch > 0) stream.run(cycleS, costs.allreduceS(batch));
  }
  return stepWith(p, std::max(0.0, stream.end() - p.backwardS), stream.busy(), p.optimizerS);
}

// ZeRO stages 1 and 2: gradients reduce-scattered in reduce buckets (stage
// 1 after backward, stage 2 as each bucket fills), each rank's update of
// its 1/G, then the updated parameters all-gathered in buckets as large.
SimulatedStep zeroSharded(const StepProfile& p, const StrategySchedule& s, const CollectiveCosts& costs,
                          int gpus) {
  CommStream stream;
  const std::vector<Bucket> buckets =
      bucketsInReadyOrder(p.gradients, s.reduceBucketBytes, s.reduceBucketBytes);
  for (const Bucket& b : buckets)
    stream.run(s.zeroStage == 1 ? p.backwardS : b.readyS, costs.reduceScatterS(b.bytes));
  const double reducedS = std::max(stream.end(), p.backwardS);
  const double optimizerS = p.optimizerS / gpus;
  const double updatedS = reducedS + optimizerS;
  for (const Bucket& b : buckets) stream.run(updatedS, costs.allgatherS(b.bytes));
  const double exposedS = (reducedS - p.backwardS) + (stream.end() - updatedS);
  return stepWith(p, exposedS, stream.busy(), optimizerS);
}

// A layer as ZeRO-3 sees it: what it gathers (all its parameters, when they
// are the persistence threshold or more; else none: the layer stays whole,
// as dtbench's plugin decides it a layer at a time), what it reduces (every
// gradient), and its compute
// in backward (the time since the layer before it finished its gradients)
// and in forward (forward's time in the same shares).
struct Layer {
  double gatherBytes = 0;
  double gradientBytes = 0;
  double backwardS = 0;
  double forwardS = 0;
};

// The layers in backward's order (the order their last gradients became ready).
std::vector<Layer> layersInBackwardOrder(const StepProfile& p, double persistenceBytes) {
  std::map<int64_t, Layer> byLayer;
  std::map<int64_t, double> lastReady;
  for (const ProfiledGradient& g : p.gradients) {
    Layer& l = byLayer[g.layer];
    l.gradientBytes += g.bytes;
    lastReady[g.layer] = std::max(lastReady[g.layer], g.readyS);
  }
  std::vector<std::pair<double, int64_t>> order;
  for (const auto& [layer, ready] : lastReady) order.emplace_back(ready, layer);
  std::sort(order.begin(), order.end());
  std::vector<Layer> layers;
  double before = 0;
  for (const auto& [ready, layer] : order) {
    Layer l = byLayer[layer];
    l.gatherBytes = l.gradientBytes >= persistenceBytes ? l.gradientBytes : 0;
    l.backwardS = ready - before;
    l.forwardS = p.backwardS > 0 ? p.forwardS * l.backwardS / p.backwardS : 0;
    before = ready;
    layers.push_back(l);
  }
  return layers;
}

// One pass of ZeRO-3 over `layers` in order: each layer's gather before it
// computes (issued as the layer before it begins, with prefetch; as it
// ends, without), and after backward's compute of a layer the reduce-scatter
// of its gradients. Returns when the pass ends, the stream included.
double zeroPass(const std::vector<Layer>& layers, bool backward, const StrategySchedule& s,
                const CollectiveCosts& costs, CommStream& stream) {
  if (layers.empty()) return 0;
  auto gather = [&](size_t i, double issuedS) {
    return layers[i].gatherBytes > 0 ? stream.run(issuedS, costs.allgatherS(layers[i].gatherBytes)) : issuedS;
  };
  double clockS = 0;
  double gathered = gather(0, 0);
  for (size_t i = 0; i < layers.size(); ++i) {
    const double startS = std::max(clockS, gathered);
    const bool more = i + 1 < layers.size();
    if (more && s.prefetch) gathered = gather(i + 1, startS);
    clockS = startS + (backward ? layers[i].backwardS : layers[i].forwardS);
    if (backward) stream.run(clockS, costs.reduceScatterS(layers[i].gradientBytes));
    if (more && !s.prefetch) gathered = gather(i + 1, clockS);
  }
  return std::max(clockS, backward ? stream.end() : clockS);
}

// ZeRO stage 3: parameters gathered layer by layer in forward and again in
// backward, gradients reduce-scattered layer by layer, each rank's update
// of its 1/G; after the step the persistent layers (below the threshold,
// kept whole) get their updated slices all-gathered, one all-gather a
// layer (DeepSpeed's _post_step gathers its persistent parameters; dtbench's
// plugin issues them layer by layer), nothing to overlap them with.
SimulatedStep zeroPartitioned(const StepProfile& p, const StrategySchedule& s, const CollectiveCosts& costs,
                              int gpus) {
  std::vector<Layer> layers = layersInBackwardOrder(p, s.persistenceBytes);
  CommStream forwardStream;
  std::vector<Layer> forwardOrder(layers.rbegin(), layers.rend());
  const double forwardS = zeroPass(forwardOrder, false, s, costs, forwardStream);
  CommStream backwardStream;
  const double backwardS = zeroPass(layers, true, s, costs, backwardStream);
  CommStream afterStep;
  for (const Layer& l : layers) {
    if (l.gradientBytes > l.gatherBytes) afterStep.run(0, costs.allgatherS(l.gradientBytes - l.gatherBytes));
  }
  const double exposedS =
      std::max(0.0, forwardS - p.forwardS) + std::max(0.0, backwardS - p.backwardS) + afterStep.end();
  return stepWith(p, exposedS, forwardStream.busy() + backwardStream.busy() + afterStep.busy(),
                  p.optimizerS / gpus);
}

}  // namespace

SimulatedStep simulateStep(const StepProfile& profile, const StrategySchedule& schedule,
                           const CollectiveCosts& costs, int gpus) {
  switch (schedule.kind) {
    case StrategySchedule::Kind::kBucketed:
      return bucketed(profile, schedule, costs);
    case StrategySchedule::Kind::kFusion:
      return fusion(profile, schedule, costs);
    case StrategySchedule::Kind::kZero:
      return schedule.zeroStage == 3 ? zeroPartitioned(profile, schedule, costs, gpus)
                                     : zeroSharded(profile, schedule, costs, gpus);
    case StrategySchedule::Kind::kAllreduce:
      break;
  }
  return perTensor(profile, costs);
}

}  // namespace dtb::core
