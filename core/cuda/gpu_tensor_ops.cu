#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_tensor_ops.h"

namespace dtb::core {
namespace {

void checkTensorOp(cudaError_t result, const char* what) {
  if (result != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(result));
}

__global__ void scaledCopyKernel(float* dst, const float* src, uint64_t count, float scale, bool accumulate) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float value = src ? scale * src[i] : 0.0f;
    dst[i] = accumulate && src ? dst[i] + value : value;
  }
}

struct WorkStreams {
  std::mutex mutex;
  std::vector<cudaStream_t> byDevice;  // never destroyed (the process's)
};

WorkStreams& workStreams() {
  static WorkStreams streams;
  return streams;
}

}  // namespace

void* gpuWorkStream(int device) {
  WorkStreams& streams = workStreams();
  std::lock_guard lock(streams.mutex);
  if (device < 0) throw std::invalid_argument("no GPU " + std::to_string(device));
  if (streams.byDevice.size() <= static_cast<size_t>(device)) streams.byDevice.resize(device + 1, nullptr);
  if (!streams.byDevice[device]) {
    checkTensorOp(cudaSetDevice(device), "cudaSetDevice");
    checkTensorOp(cudaStreamCreate(&streams.byDevice[device]), "cudaStreamCreate (the host's stream)");
  }
  return streams.byDevice[device];
}

void gpuSettleWorkStreams() {
  std::vector<cudaStream_t> made;
  {
    WorkStreams& streams = workStreams();
    std::lock_guard lock(streams.mutex);
    made = streams.byDevice;
  }
  for (cudaStream_t stream : made) {
    if (stream) checkTensorOp(cudaStreamSynchronize(stream), "waiting for the host's stream");
  }
}

void gpuScaledCopy(float* dst, const float* src, uint64_t count, float scale, bool accumulate, int device) {
  if (count == 0) return;
  if (!isMemoryOfGpu(dst, device) || (src && !isMemoryOfGpu(src, device)))
    throw std::invalid_argument("a tensor is not memory of GPU " + std::to_string(device));
  auto* stream = static_cast<cudaStream_t>(gpuWorkStream(device));
  checkTensorOp(cudaSetDevice(device), "cudaSetDevice");
  const unsigned blocks = static_cast<unsigned>(std::min<uint64_t>((count + 255) / 256, 4096));
  scaledCopyKernel<<<blocks, 256, 0, stream>>>(dst, src, count, scale, accumulate);
  checkTensorOp(cudaGetLastError(), "the tensor copy's kernel");
}

}  // namespace dtb::core
