#include "worker/evaluation.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/data_loader.h"
#include "host/blocking_collective.h"
#include "worker/batch_view.h"

namespace dtb::core {
namespace {

struct Totals {
  double lossSum = 0, correct = 0, samples = 0;
};

// This rank's strided share of the test split, unpadded: every test sample counts once.
Totals evaluateShare(RankPlugins& plugins, const dtb_dataset_info_t& info, uint32_t batch, int rank,
                     int world, TrainingStep& step) {
  PluginInstance& model = plugins.model();
  const dtb_model_plugin_v1_t& api = plugins.modelApi();
  model.check("set_mode", api.set_mode(model.context(), DTB_MODE_EVAL));
  SamplerConfig shard{plugins.splitSamples(1), 1, world, rank, false, false, 0};
  shard.pad = false;
  DataLoader test(plugins.dataset(), {1, batch, 0, false}, DistributedSampler(shard));
  std::vector<double> passes = {static_cast<double>(test.batchesPerEpoch())};
  allreduceDoubles(plugins.comm(), passes, DTB_REDUCE_MAX);
  test.startEpoch(0);
  Totals totals;
  std::optional<Batch> last;
  for (uint64_t pass = 0; pass < static_cast<uint64_t>(passes[0]); ++pass) {
    std::optional<Batch> b = test.next();
    const bool counted = b.has_value();
    if (counted) last = std::move(b);
    if (!last) throw std::runtime_error("rank " + std::to_string(rank) + " has no test samples to evaluate");
    dtb_batch_t view = batchView(*last, info);
    dtb_forward_result_t out{};
    out.struct_size = sizeof(out);
    step.checkModel("forward", api.forward(model.context(), &view, step.hooks(), &out));
    if (!counted) continue;
    totals.lossSum += out.loss * last->size;
    totals.correct += out.correct;
    totals.samples += last->size;
  }
  return totals;
}

}  // namespace

Evaluation evaluateTestSplit(RankPlugins& plugins, const dtb_dataset_info_t& info, uint32_t batch, int rank,
                             int world, TrainingStep& step) {
  Totals share;
  if (info.split_count > 1) share = evaluateShare(plugins, info, batch, rank, world, step);
  std::vector<double> totals = {share.lossSum, share.correct, share.samples};
  allreduceDoubles(plugins.comm(), totals, DTB_REDUCE_SUM);
  if (totals[2] == 0) return {NAN, NAN};
  return {totals[0] / totals[2], totals[1] / totals[2]};
}

}  // namespace dtb::core
