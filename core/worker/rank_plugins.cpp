#include "worker/rank_plugins.h"

namespace dtb::core {

void RankPlugins::openDataset(PluginLoader& loader, const PluginChoice& dataset) {
  dataset_ = core::openDataset(loader.load(PluginKind::kDataset, dataset.name), dataset.params);
}

void RankPlugins::createModel(PluginLoader& loader, const PluginChoice& model,
                              const dtb_dataset_info_t& samples, const ModelOptions& options) {
  dtb_model_setup_t setup{};
  setup.struct_size = sizeof(setup);
  setup.device = options.device;
  setup.input_ndim = samples.sample_ndim;
  for (int d = 0; d < samples.sample_ndim; ++d) setup.input_shape[d] = samples.sample_shape[d];
  setup.num_classes = samples.num_classes;
  setup.max_batch = options.maxBatch;
  setup.seed = options.seed;
  setup.label_smoothing = options.labelSmoothing;
  setup.threads = options.threads;
  model_ = core::createModel(loader.load(PluginKind::kModel, model.name), model.params, setup);
  const dtb_model_plugin_v1_t& api = modelApi();
  model_->check("params", api.params(model_->context(), &params_, &paramCount_));
  const char* const* layerNames = nullptr;
  model_->check("layers", api.layers(model_->context(), &layerNames, &layerCount_));
}

void RankPlugins::connect(std::unique_ptr<Communicator> comm) { comm_ = std::move(comm); }

void RankPlugins::leaveWorld() {
  strategy_.reset();
  comm_.reset();
}

void RankPlugins::createOptimizer(const OptimizerConfig& config, Precision precision,
                                  LossScalerConfig scaler) {
  optimizer_ = std::make_unique<Optimizer>(config);
  precision_ = precision;
  scaler_ = scaler;
}

void RankPlugins::createStrategy(PluginLoader& loader, const PluginChoice& strategy,
                                 uint32_t accumulationSteps) {
  strategy_.reset();  // before the records it points into
  masterWeights_.reset();
  mixed_.reset();
  OptimizerKernels* optimizer = optimizer_.get();
  dtb_param_t* const* params = params_;
  std::shared_ptr<const LoadedPlugin> plugin = loader.load(PluginKind::kStrategy, strategy.name);
  if (optimizer_->clipNorm() > 0 && plugin->header().abi_version < DTB_ABI_MAKE_VERSION(1, 8)) {
    throw std::invalid_argument("strategy '" + strategy.name + "' was built for ABI " + plugin->abiVersion() +
                                ", before optim_check (1.8), where the host measures the gradients' norm: "
                                "it cannot clip them. Rebuild it against this dtbench's headers, or set "
                                "gradient_clipping = 0");
  }
  if (precision_ != Precision::kFp32) {
    if (plugin->header().abi_version < DTB_ABI_MAKE_VERSION(1, 8)) {
      throw std::invalid_argument(
          "strategy '" + strategy.name + "' was built for ABI " + plugin->abiVersion() +
          ", before mixed precision (1.8): it may take bf16 parameters for f32. Rebuild "
          "it against this dtbench's headers, checking dtypes as dtb::ParamSet does, "
          "or train with precision = \"fp32\"");
    }
    mixed_ = std::make_unique<MixedPrecision>(precision_, params_, paramCount_, scaler_);
    masterWeights_ = std::make_unique<MasterWeightOptimizer>(*optimizer_, *mixed_);
    optimizer = masterWeights_.get();
    params = mixed_->params();
  }
  dtb_strategy_setup_t setup{};
  setup.struct_size = sizeof(setup);
  setup.params = params;
  setup.param_count = paramCount_;
  setup.layer_count = layerCount_;
  // Where the model put its parameters.
  setup.device = paramCount_ > 0 ? params_[0]->value.device : dtb_device_t{DTB_DEVICE_HOST, 0};
  setup.accumulation_steps = accumulationSteps;
  strategy_ =
      core::createStrategy(std::move(plugin), strategy.params, setup, comm_.get(), optimizer, model_.get());
}

uint32_t RankPlugins::stateFloats() const {
  return masterWeights_ ? masterWeights_->stateFloats() : optimizer_->stateFloats();
}

void RankPlugins::modelValuesChanged() {
  if (mixed_) mixed_->valuesFromModel();
}

const dtb_model_plugin_v1_t& RankPlugins::modelApi() const {
  return model_->plugin().descriptor<dtb_model_plugin_v1_t>();
}

uint64_t RankPlugins::splitSamples(uint32_t split) {
  dtb_split_info_t info{};
  info.struct_size = sizeof(info);
  const auto& api = dataset_->plugin().descriptor<dtb_dataset_plugin_v1_t>();
  dataset_->check("split_info", api.split_info(dataset_->context(), split, &info));
  return info.samples;
}

}  // namespace dtb::core
