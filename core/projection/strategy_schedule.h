// How each built-in strategy schedules its communication, with its anchor's
// defaults (ANCHORS.md), for the step simulation: what the plugins do, in
// the few numbers that decide when each collective starts.
#pragma once

#include <string>
#include <vector>

namespace dtb::core {

struct StrategySchedule {
  enum class Kind {
    kAllreduce,  // one all-reduce per gradient, after backward
    kBucketed,   // PyTorch DDP: buckets in ready order, launched in order as they fill
    kFusion,     // Horovod: a cycle thread fuses what is ready, up to a threshold
    kZero,       // DeepSpeed ZeRO, stages 1-3
  };
  Kind kind = Kind::kAllreduce;
  std::string name;  // as a matrix names it: "bucketed", "zero-2"

  double firstBucketBytes = 1 << 20;      // DDP: 1 MiB
  double bucketBytes = 25.0 * (1 << 20);  // DDP: bucket_cap_mb = 25

  double fusionBytes = 128.0 * (1 << 20);  // Horovod: HOROVOD_FUSION_THRESHOLD (v0.21 on)
  double cycleS = 1e-3;                    // Horovod: HOROVOD_CYCLE_TIME
  double cacheBitsBytes = 1024.0 / 8;      // the response cache's 1,024 bits, AND-all-reduced each cycle

  int zeroStage = 1;
  double reduceBucketBytes = 5e8 * 4;  // reduce_bucket_size: 5e8 f32 elements
  double persistenceBytes = 1e5 * 4;   // stage 3: smaller parameters stay whole on every rank
  bool prefetch = true;                // stage 3: the next layer's gather issued as a layer begins
};

// allreduce, bucketed, fusion, zero-1, zero-2, zero-3 with their defaults.
std::vector<StrategySchedule> builtInSchedules();

// A built-in schedule with some of its plugin's parameters set, as
// "NAME[:KEY=VALUE]...": "bucketed:bucket_cap_mb=5", "fusion:preset=horovod-legacy",
// "zero-3:prefetch=false". The keys are the plugin's (dtbench plugins NAME):
//   bucketed   bucket_cap_mb, first_bucket_mb
//   fusion     fusion_threshold_mb, cycle_time_ms, cache_capacity, preset
//   zero-N     reduce_bucket_size, param_persistence_threshold, prefetch
// Throws std::invalid_argument naming an unknown schedule, key or value.
StrategySchedule parseSchedule(const std::string& spec);

}  // namespace dtb::core
