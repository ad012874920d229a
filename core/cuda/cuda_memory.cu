// Built only when the CUDA toolkit is present (DTBENCH_HAVE_CUDA).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <new>
#include <string>
#include <vector>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_memory_meter.h"

namespace dtb::core {
namespace {

std::string problem(cudaError_t error) {
  cudaGetLastError();  // not sticky for the next caller
  return cudaGetErrorString(error);
}

void useDevice(int device) {
  const cudaError_t set = cudaSetDevice(device);
  if (set != cudaSuccess) throw GpuUnavailable("GPU " + std::to_string(device) + ": " + problem(set));
}

void checked(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + problem(error));
}

}  // namespace

bool isMemoryOfGpu(const void* p, int device) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // the query's own error, not one to report later
    return false;
  }
  return (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) && a.device == device;
}

void* gpuAllocate(uint64_t bytes, int device) {
  if (bytes == 0) return nullptr;
  useDevice(device);
  void* ptr = nullptr;
  const cudaError_t made = cudaMalloc(&ptr, bytes);
  if (made == cudaErrorMemoryAllocation) {
    problem(made);
    throw std::bad_alloc();
  }
  checked(made, "cudaMalloc");
  try {
    // Zeroed, as host memory from alloc() is in practice: a strategy's
    // optimizer state must start at 0 (one memset, at allocation only).
    checked(cudaMemset(ptr, 0, bytes), "cudaMemset");
    // cudaMemset may return before it ran; the memory's users work on streams
    // of their own (the model's, NCCL's), which would not wait for it.
    checked(cudaDeviceSynchronize(), "zeroing new GPU memory");
    gpuMemoryMeter().allocated(ptr, bytes);
  } catch (...) {
    cudaFree(ptr);
    throw;
  }
  return ptr;
}

void gpuFree(void* ptr, int device) {
  if (ptr == nullptr) return;
  gpuMemoryMeter().freed(ptr);
  cudaSetDevice(device);
  cudaFree(ptr);
}

void* pinnedAllocate(uint64_t bytes, int device) {
  if (bytes == 0) return nullptr;
  if (device >= 0 && cudaSetDevice(device) != cudaSuccess)
    throw GpuUnavailable("cudaSetDevice(" + std::to_string(device) + ") for pinned memory");
  void* ptr = nullptr;
  const cudaError_t made = cudaMallocHost(&ptr, bytes);
  if (made == cudaErrorMemoryAllocation) {
    problem(made);
    throw std::bad_alloc();
  }
  if (made != cudaSuccess) throw GpuUnavailable("cudaMallocHost: " + problem(made));
  return ptr;
}

void pinnedFree(void* ptr) {
  if (ptr) cudaFreeHost(ptr);
}

void copyToGpu(void* gpu, const void* host, uint64_t bytes, int device) {
  useDevice(device);
  checked(cudaMemcpy(gpu, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the GPU");
  // From pageable memory cudaMemcpy may return before the DMA has landed,
  // and the collectives' streams do not wait for the legacy default stream.
  checked(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize");
}

uint64_t gpuUsedBytes(int device) {
  useDevice(device);
  size_t free = 0, total = 0;
  const cudaError_t asked = cudaMemGetInfo(&free, &total);
  if (asked != cudaSuccess) throw GpuUnavailable("cudaMemGetInfo: " + problem(asked));
  return total - free;
}

void copyFromGpu(void* host, const void* gpu, uint64_t bytes, int device) {
  useDevice(device);
  checked(cudaMemcpy(host, gpu, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy from the GPU");
}

void copyToGpuOn(void* gpu, const void* host, uint64_t bytes, void* stream) {
  checked(cudaMemcpyAsync(gpu, host, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream)),
          "cudaMemcpyAsync to the GPU");
}

void copyOnGpu(void* to, const void* from, uint64_t bytes, void* stream) {
  checked(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)),
          "cudaMemcpyAsync on the GPU");
}

GpuTimer::GpuTimer(int device) : device_(device) {
  useDevice(device);
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  checked(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  stream_ = stream;
  checked(cudaEventCreate(&start), "cudaEventCreate");
  start_ = start;
  checked(cudaEventCreate(&stop), "cudaEventCreate");
  stop_ = stop;
}

GpuTimer::~GpuTimer() {
  cudaSetDevice(device_);
  if (start_) cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  if (stop_) cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
  if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void GpuTimer::start() {
  checked(cudaEventRecord(static_cast<cudaEvent_t>(start_), static_cast<cudaStream_t>(stream_)),
          "cudaEventRecord");
}

void GpuTimer::stop() {
  checked(cudaEventRecord(static_cast<cudaEvent_t>(stop_), static_cast<cudaStream_t>(stream_)),
          "cudaEventRecord");
}

double GpuTimer::seconds() {
  checked(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)), "cudaEventSynchronize");
  float ms = 0;
  checked(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)),
          "cudaEventElapsedTime");
  return ms / 1e3;
}

double gpuMemcpyGbps(int64_t bytes, int device, int repetitions) {
  const GpuBuffer source(static_cast<uint64_t>(bytes), device), target(static_cast<uint64_t>(bytes), device);
  GpuTimer timer(device);
  const auto stream = static_cast<cudaStream_t>(timer.stream());
  checked(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpy");
  std::vector<double> rates;
  for (int r = 0; r < repetitions; ++r) {
    timer.start();
    checked(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpy");
    timer.stop();
    rates.push_back(static_cast<double>(bytes) / std::max(timer.seconds(), 1e-9) / 1e9);
  }
  std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
  return rates[rates.size() / 2];
}

}  // namespace dtb::core
