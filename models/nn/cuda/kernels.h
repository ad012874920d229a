// The layers cuDNN and cuBLAS do not cover, as CUDA kernels: each mirrors
// its oneDNN-side counterpart (elementwise.h, pooling.h, loss.h) value for
// value, so GPU and CPU agree on the same inputs. All run on `stream`,
// asynchronously; none allocates.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layer_specs.h"

namespace dtb::nn::cuda {

// ReLU, or ReLU6 when `clip`; the backward lets dy through where the
// output y is above 0 (and below 6).
void reluForward(cudaStream_t stream, const float* x, float* y, uint64_t count, bool clip);
void reluBackward(cudaStream_t stream, const float* y, const float* dy, float* dx, uint64_t count, bool clip);
// y = a + b, then ReLU when asked (a residual block's sum).
void addForward(cudaStream_t stream, const float* a, const float* b, float* y, uint64_t count, bool relu);

// Max pooling (padding never wins; the first maximum does, as PyTorch):
// `argmax` holds each output's input index, for the backward's scatter.
void maxPoolForward(cudaStream_t stream, const float* x, int64_t n, int64_t c, int64_t h, int64_t w,
                    const PoolSpec& spec, float* y, int32_t* argmax);
void maxPoolBackward(cudaStream_t stream, const float* dy, const int32_t* argmax, uint64_t outCount,
                     float* dx, uint64_t inCount);
void globalAvgPoolForward(cudaStream_t stream, const float* x, int64_t planes, int64_t planeSize, float* y);
void globalAvgPoolBackward(cudaStream_t stream, const float* dy, int64_t planes, int64_t planeSize,
                           float* dx);

// Inverted dropout: mask[i] is 0 or 1 / (1 - p), drawn from a counter-based
// hash of (seed, call, i / drawEvery), so a forward needs no generator state
// on the GPU; drawEvery = a channel's elements drops whole channels.
void dropoutForward(cudaStream_t stream, const float* x, float* y, float* mask, uint64_t count,
                    uint64_t drawEvery, double p, uint64_t seed, uint64_t call);
// y = a * b, elementwise (dropout's backward: dy times the mask).
void multiply(cudaStream_t stream, const float* a, const float* b, float* y, uint64_t count);

// y[i, o] += bias[o] over [n, out]; and its gradient, db[o] = sum_i dy[i, o].
void addBias(cudaStream_t stream, float* y, const float* bias, int64_t n, int64_t out);
void biasGrad(cudaStream_t stream, const float* dy, int64_t n, int64_t out, float* db);

// Softmax cross-entropy with label smoothing, per sample: probabilities
// [n, classes], the sample's loss and whether its arg-max is the label.
void crossEntropyForward(cudaStream_t stream, const float* logits, const int32_t* labels, int64_t n,
                         int64_t classes, double smoothing, float* probabilities, double* loss,
                         int32_t* correct);
// d(mean loss)/d(logits) = (p - target) / n.
void crossEntropyBackward(cudaStream_t stream, const float* probabilities, const int32_t* labels, int64_t n,
                          int64_t classes, double smoothing, float* dlogits);

}  // namespace dtb::nn::cuda
