// The plugins one rank trains with and what joins them: its dataset, its
// model (sized from the dataset's samples), its communicator, the optimizer
// and its strategy, which points into the model, communicator and optimizer.
// Built step by step in that order, each step needing the ones before, by
// the worker and by the tests that drive ranks as threads (the strategy
// equivalence test): both set a rank up the same way. The worker puts its
// own steps between them (it checks the initial weights once connected).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "host/communicator.h"
#include "host/plugin_config.h"
#include "host/plugin_instance.h"
#include "plugin/loader.h"
#include "train/master_weights.h"
#include "train/mixed_precision.h"
#include "train/optimizer.h"

namespace dtb::core {

// One plugin of a rank: its name on the loader's path and its parameters.
struct PluginChoice {
  std::string name;
  ParamValues params;
};

// What the model is built for, beside the dataset's sample shape and classes.
struct ModelOptions {
  uint32_t maxBatch = 1;  // the largest micro-batch forward() will see
  uint64_t seed = 0;      // the initial weights: the same seed, the same model on every rank
  float labelSmoothing = 0;
  int32_t threads = 1;                      // compute threads this rank may use
  dtb_device_t device{DTB_DEVICE_HOST, 0};  // where the model computes (and the strategy's tensors live)
};

class RankPlugins {
 public:
  // Each step throws what creating its plugin throws: PluginCallError, or
  // std::invalid_argument for parameters the plugin does not take.
  void openDataset(PluginLoader& loader, const PluginChoice& dataset);
  void createModel(PluginLoader& loader, const PluginChoice& model, const dtb_dataset_info_t& samples,
                   const ModelOptions& options);
  // Takes the rank's communicator (connect.h makes it).
  void connect(std::unique_ptr<Communicator> comm);
  // The optimizer the strategy steps with (throws std::invalid_argument for
  // a bad config), then the strategy over the model's parameters. In bf16
  // or fp16 the strategy gets the low-precision records of a MixedPrecision
  // made with it, and the optimizer is bound through master weights.
  void createOptimizer(const OptimizerConfig& config, Precision precision = Precision::kFp32,
                       LossScalerConfig scaler = {});
  void createStrategy(PluginLoader& loader, const PluginChoice& strategy, uint32_t accumulationSteps);
  // The model's values were set from outside (a checkpoint, rank 0's):
  // the strategy's low-precision records follow them.
  void modelValuesChanged();
  // Elastic training leaves a world: the strategy (which holds the world's
  // size and its requests) and then the communicator go; connect() and
  // createStrategy() make the next world's.
  void leaveWorld();
  // Connected, and not left since.
  bool inWorld() const { return comm_ != nullptr; }
  // The strategy is made (it is not until the first world formed).
  bool hasStrategy() const { return strategy_ != nullptr; }

  PluginInstance& dataset() { return *dataset_; }
  PluginInstance& model() { return *model_; }
  Communicator& comm() { return *comm_; }
  Optimizer& optimizer() { return *optimizer_; }
  PluginInstance& strategy() { return *strategy_; }
  // Null in an fp32 run.
  MixedPrecision* mixedPrecision() { return mixed_.get(); }
  // f32 values of optimizer state per parameter element, as the strategy
  // keeps them: in mixed precision the master copy is one of them.
  uint32_t stateFloats() const;

  const dtb_model_plugin_v1_t& modelApi() const;
  // The model's parameters, as its params() and layers() gave them at creation.
  dtb_param_t* const* params() const { return params_; }
  uint32_t paramCount() const { return paramCount_; }
  uint32_t layerCount() const { return layerCount_; }

  // Samples in the dataset's split `split` (0 train, 1 test).
  uint64_t splitSamples(uint32_t split);

 private:
  // Destroyed in reverse: the strategy before the optimizer, communicator and
  // model it points into, then the dataset.
  std::unique_ptr<PluginInstance> dataset_;
  std::unique_ptr<PluginInstance> model_;
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<Optimizer> optimizer_;
  Precision precision_ = Precision::kFp32;
  LossScalerConfig scaler_;
  std::unique_ptr<MixedPrecision> mixed_;
  std::unique_ptr<MasterWeightOptimizer> masterWeights_;
  std::unique_ptr<PluginInstance> strategy_;
  dtb_param_t* const* params_ = nullptr;
  uint32_t paramCount_ = 0;
  uint32_t layerCount_ = 0;
};

}  // namespace dtb::core
