// Loss and accuracy on the dataset's test split, sharded over the ranks
// (rank r takes samples r, r + world, ...; no padding, so every sample counts
// once). Forward passes go through the strategy's hooks, and every rank makes
// as many as the busiest one (repeating its last batch, results discarded): a
// strategy may issue collectives in forward (ZeRO-3's gathers).
#pragma once

#include <cstdint>

#include "train/training_step.h"
#include "worker/rank_plugins.h"

namespace dtb::core {

struct Evaluation {
  double loss;
  double accuracy;  // both NaN where the dataset has no test split
};

// Every rank calls it at the same point: it all-reduces the totals. Where
// there is a test split, it leaves the model in eval mode.
Evaluation evaluateTestSplit(RankPlugins& plugins, const dtb_dataset_info_t& info, uint32_t batch, int rank,
                             int world, TrainingStep& step);

}  // namespace dtb::core
