#include "worker/rank_checkpoint.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_memory.h"
#include "dtbench/plugin.hpp"

namespace dtb::core {
namespace {

const dtb_strategy_plugin_v1_t& strategyApi(RankPlugins& plugins) {
  return plugins.strategy().plugin().descriptor<dtb_strategy_plugin_v1_t>();
}

uint64_t valueBytes(const dtb_param_t& p) { return p.value.count * dtb::dtypeSize(p.value.dtype); }

// A parameter's values to host bytes and back; a GPU's with a synchronous
// copy. A checkpoint is taken between steps, when nothing is left running
// on the GPU: the model's backward has ended and the optimizer's settle()
// waited for the whole GPU.
std::vector<uint8_t> readValues(const dtb_param_t& p) {
  std::vector<uint8_t> bytes(valueBytes(p));
  if (p.value.device.type == DTB_DEVICE_CUDA)
    copyFromGpu(bytes.data(), p.value.data, bytes.size(), p.value.device.index);
  else
    std::memcpy(bytes.data(), p.value.data, bytes.size());
  return bytes;
}

void writeValues(const dtb_param_t& p, const std::vector<uint8_t>& bytes) {
  if (p.value.device.type == DTB_DEVICE_CUDA)
    copyToGpu(p.value.data, bytes.data(), bytes.size(), p.value.device.index);
  else
    std::memcpy(p.value.data, bytes.data(), bytes.size());
}

LossScaler* lossScalerOf(RankPlugins& plugins) {
  MixedPrecision* mixed = plugins.mixedPrecision();
  return mixed ? mixed->scaler() : nullptr;
}

}  // namespace

void requireSavableStrategy(RankPlugins& plugins) {
  // The loader took the three state members all or none (checkStrategy).
  const dtb_strategy_plugin_v1_t& api = strategyApi(plugins);
  if (api.state_save) return;
  throw std::runtime_error("strategy '" + std::string(api.header.name) +
                           "' cannot save its state (it has no state_save): recovery = \"restart\" needs a "
                           "strategy that can, such as allreduce, bucketed or fusion");
}

Checkpoint captureCheckpoint(RankPlugins& plugins, uint64_t steps, int64_t epoch, int64_t stepInEpoch) {
  Checkpoint c;
  c.steps = steps;
  c.epoch = epoch;
  c.stepInEpoch = stepInEpoch;
  c.optimizerStep = plugins.optimizer().step();
  for (uint32_t i = 0; i < plugins.paramCount(); ++i) {
    const dtb_param_t& p = *plugins.params()[i];
    if (p.value.data == nullptr) {
      throw std::runtime_error("parameter " + std::to_string(i) +
                               " has no values on this rank (released by the strategy): it cannot be "
                               "checkpointed");
    }
    c.params.push_back(readValues(p));
  }
  const dtb_strategy_plugin_v1_t& api = strategyApi(plugins);
  PluginInstance& strategy = plugins.strategy();
  uint64_t size = 0;
  strategy.check("state_size", api.state_size(strategy.context(), &size));
  c.strategyState.resize(size);
  strategy.check("state_save", api.state_save(strategy.context(), c.strategyState.data(), size));
  if (const LossScaler* scaler = lossScalerOf(plugins)) {
    const LossScaler::State& s = scaler->state();
    c.lossScaler = {s.scale, static_cast<double>(s.iteration), static_cast<double>(s.lastOverflow),
                    static_cast<double>(s.hysteresisLeft)};
  }
  return c;
}

void restoreCheckpoint(RankPlugins& plugins, const Checkpoint& c) {
  restoreParameters(plugins, c);
  restoreState(plugins, c);
}

void restoreParameters(RankPlugins& plugins, const Checkpoint& c) {
  if (c.params.size() != plugins.paramCount()) {
    throw std::runtime_error("the checkpoint holds " + std::to_string(c.params.size()) +
                             " parameters, the model " + std::to_string(plugins.paramCount()));
  }
  for (uint32_t i = 0; i < plugins.paramCount(); ++i) {
    const dtb_param_t& p = *plugins.params()[i];
    if (c.params[i].size() != valueBytes(p) || p.value.data == nullptr) {
      throw std::runtime_error("the checkpoint's parameter " + std::to_string(i) + " has " +
                               std::to_string(c.params[i].size()) + " bytes, the model's " +
                               std::to_string(valueBytes(p)));
    }
    writeValues(p, c.params[i]);
  }
  plugins.modelValuesChanged();
}

void restoreState(RankPlugins& plugins, const Checkpoint& c) {
  const dtb_strategy_plugin_v1_t& api = strategyApi(plugins);
  PluginInstance& strategy = plugins.strategy();
  strategy.check("state_load",
                 api.state_load(strategy.context(), c.strategyState.data(), c.strategyState.size()));
  plugins.optimizer().restoreStep(c.optimizerStep);
  if (LossScaler* scaler = lossScalerOf(plugins)) {
    if (c.lossScaler.size() != 4) {
      throw std::runtime_error(
          "the checkpoint holds no loss scaler state, and this run trains in fp16 (was it "
          "written by another run?)");
    }
    scaler->restore({c.lossScaler[0], static_cast<int64_t>(c.lossScaler[1]),
                     static_cast<int64_t>(c.lossScaler[2]), static_cast<int64_t>(c.lossScaler[3])});
  }
}

}  // namespace dtb::core
