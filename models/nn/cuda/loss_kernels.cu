#include "cuda_check.h"
#include "kernels.h"

namespace dtb::nn::cuda {
namespace {

__device__ double target(int64_t c, int32_t label, int64_t classes, double smoothing) {
  return (c == label ? 1.0 - smoothing : 0.0) + smoothing / static_cast<double>(classes);
}

// One thread per sample, in double as the host's loss (a batch's loss is a
// few thousand exponentials: nothing beside a network's step).
__global__ void crossEntropyForwardKernel(const float* logits, const int32_t* labels, int64_t n,
                                          int64_t classes, double smoothing, float* probabilities,
                                          double* loss, int32_t* correct) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const float* z = logits + i * classes;
  int64_t best = 0;
  for (int64_t c = 1; c < classes; ++c) {
    if (z[c] > z[best]) best = c;
  }
  correct[i] = best == labels[i] ? 1 : 0;
  double sum = 0;
  for (int64_t c = 0; c < classes; ++c) sum += exp(static_cast<double>(z[c]) - z[best]);
  const double logSum = log(sum) + z[best];
  double total = 0;
  for (int64_t c = 0; c < classes; ++c) {
    const double logp = z[c] - logSum;
    total -= target(c, labels[i], classes, smoothing) * logp;
    probabilities[i * classes + c] = static_cast<float>(exp(logp));
  }
  loss[i] = total;
}

__global__ void crossEntropyBackwardKernel(const float* probabilities, const int32_t* labels, int64_t n,
                                           int64_t classes, double smoothing, float* dlogits) {
  const int64_t count = n * classes;
  for (int64_t k = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; k < count;
       k += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = k / classes, c = k % classes;
    dlogits[k] = static_cast<float>((probabilities[k] - target(c, labels[i], classes, smoothing)) /
                                    static_cast<double>(n));
  }
}

}  // namespace

void crossEntropyForward(cudaStream_t stream, const float* logits, const int32_t* labels, int64_t n,
                         int64_t classes, double smoothing, float* probabilities, double* loss,
                         int32_t* correct) {
  if (n == 0) return;
  crossEntropyForwardKernel<<<static_cast<unsigned>((n + 127) / 128), 128, 0, stream>>>(
      logits, labels, n, classes, smoothing, probabilities, loss, correct);
  checkLaunch("cross-entropy forward");
}

void crossEntropyBackward(cudaStream_t stream, const float* probabilities, const int32_t* labels, int64_t n,
                          int64_t classes, double smoothing, float* dlogits) {
  const int64_t count = n * classes;
  if (count == 0) return;
  const unsigned blocks = static_cast<unsigned>(count / 256 + 1 < 4096 ? count / 256 + 1 : 4096);
  crossEntropyBackwardKernel<<<blocks, 256, 0, stream>>>(probabilities, labels, n, classes, smoothing,
                                                         dlogits);
  checkLaunch("cross-entropy backward");
}

}  // namespace dtb::nn::cuda
