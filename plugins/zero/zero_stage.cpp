#include "zero_stage.h"

#include <vector>

namespace dtb::strategy::zero {

Layout stageLayout(const StageSettings& settings, const ParamSet& params, uint32_t layerCount, int rank,
                   int world) {
  std::vector<uint64_t> counts;
  std::vector<uint32_t> layers;
  for (const dtb_param_t* p : params) {
    counts.push_back(p->value.count);
    layers.push_back(p->layer);
  }
  if (settings.stage == 3) {  // layers in forward order: backward completes them in reverse
    return Layout(params, layerCount,
                  layerUnits(counts, layers, layerCount, settings.persistenceThreshold, world),
                  Layout::Order::kForward, rank, world);
  }
  return Layout(params, layerCount, bucketUnits(counts, settings.reduceBucketElements, world),
                Layout::Order::kBackward, rank, world);
}

Stage makeStage(const StageSettings& settings, const dtb_host_t* host, const Layout& layout,
                ModelViews& views, bool releasing) {
  Stage stage;
  // The parameters first: the model's own arrays are released as they are
  // copied, before anything else is allocated (else the peak is the sum).
  switch (settings.stage) {
    case 1:
      stage.parameters = std::make_unique<Parameters>(host, layout, views, releasing);
      stage.gradients = std::make_unique<WholeGradients>(host, layout, views, settings.gradients);
      break;
    case 2:
      stage.parameters = std::make_unique<Parameters>(host, layout, views, releasing);
      stage.gradients = std::make_unique<PartitionedGradients>(host, layout, views, settings.gradients);
      break;
    default:
      stage.parameters =
          std::make_unique<PartitionedParameters>(host, layout, views, releasing, settings.prefetch);
      stage.gradients = std::make_unique<PartitionedGradients>(host, layout, views, settings.gradients);
      break;
  }
  return stage;
}

}  // namespace dtb::strategy::zero
