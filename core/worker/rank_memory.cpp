#include "worker/rank_memory.h"

#include <sys/resource.h>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_memory_meter.h"
#include "dtbench/plugin.hpp"

namespace dtb::core {

MemoryRecord rankMemory(RankPlugins& plugins, int rank) {
  PluginInstance& strategy = plugins.strategy();
  const auto& api = strategy.plugin().descriptor<dtb_strategy_plugin_v1_t>();
  const uint32_t stateFloats = plugins.stateFloats();
  // What the strategy's parameters and gradients are: 2 bytes each in mixed precision.
  const MixedPrecision* mixed = plugins.mixedPrecision();
  const uint64_t element = mixed ? dtypeSize(mixed->dtype()) : sizeof(float);
  uint64_t elements = 0;
  for (uint32_t i = 0; i < plugins.paramCount(); ++i) elements += plugins.params()[i]->value.count;
  dtb_memory_report_t report{};
  report.struct_size = sizeof(report);
  if (api.memory_report) {
    strategy.check("memory_report", api.memory_report(strategy.context(), &report));
  } else {
    report.param_bytes = report.grad_bytes = elements * element;
    report.optimizer_bytes = elements * sizeof(float) * stateFloats;
  }
  MemoryRecord m;
  m.rank = rank;
  m.paramBytes = static_cast<int64_t>(report.param_bytes);
  m.gradBytes = static_cast<int64_t>(report.grad_bytes);
  m.optimizerBytes = static_cast<int64_t>(report.optimizer_bytes);
  m.bufferBytes = static_cast<int64_t>(report.buffer_bytes);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  m.peakRssBytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  // The GPU's use at the end (near the run's peak: the layers' buffers and
  // the strategies' pools only grow), and the most this rank held at once.
  if (plugins.paramCount() > 0 && plugins.params()[0]->value.device.type == DTB_DEVICE_CUDA) {
    try {
      m.gpuUsedBytes = static_cast<int64_t>(gpuUsedBytes(plugins.params()[0]->value.device.index));
    } catch (const GpuUnavailable&) {  // not measurable now: stored as NULL
    }
    m.gpuPeakAllocatedBytes = static_cast<int64_t>(gpuMemoryMeter().peak());
  }
  m.paramElements = static_cast<int64_t>(elements);
  m.stateFloats = stateFloats;
  return m;
}

}  // namespace dtb::core
