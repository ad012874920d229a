#include "cuda_check.h"
#include "cuda_modules.h"
#include "kernels.h"

namespace dtb::nn::cuda {
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;

}  // namespace

// cuBLAS is column-major: a row-major [rows, cols] matrix is its transpose,
// so y = x W^T ([n, out]) is computed as y^T = W x^T, and so on.
LinearModule::LinearModule(CudaContext& ctx, const AffineParameters& params, int64_t in, int64_t out)
    : ctx_(ctx), layer_(params.layer), in_(in), out_(out), weight_(params.weight), bias_(params.bias) {}

const float* LinearModule::forward(const float* x, const Shape& in, const Pass& pass) {
  beginOnGpu(ctx_, pass, layer_, DTB_PASS_FORWARD);
  x_ = x;
  n_ = in.n;
  float* y = y_.floats(static_cast<uint64_t>(n_ * out_));
  const int m = static_cast<int>(out_), n = static_cast<int>(n_), k = static_cast<int>(in_);
  check(cublasSgemm(ctx_.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &kOne, weight_.value(), k, x, k, &kZero,
                    y, m),
        "cublasSgemm (linear forward)");
  addBias(ctx_.stream(), y, bias_.value(), n_, out_);
  return y;
}

const float* LinearModule::backward(const float* dy, const Pass& pass, bool inputGrad) {
  beginOnGpu(ctx_, pass, layer_, DTB_PASS_BACKWARD);
  const int in = static_cast<int>(in_), out = static_cast<int>(out_), n = static_cast<int>(n_);
  // dW [out, in] = dy^T x: column-major [in, out] = x^T(in x n) dy(n x out).
  check(cublasSgemm(ctx_.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, in, out, n, &kOne, x_, in, dy, out, &kZero,
                    weight_.grad(), in),
        "cublasSgemm (linear weight gradient)");
  biasGrad(ctx_.stream(), dy, n_, out_, bias_.grad());
  float* dx = nullptr;
  if (inputGrad) {
    // dx [n, in] = dy W: column-major [in, n] = W^T(in x out) dy^T(out x n).
    dx = dx_.floats(static_cast<uint64_t>(n_ * in_));
    check(cublasSgemm(ctx_.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, in, n, out, &kOne, weight_.value(), in, dy,
                      out, &kZero, dx, in),
          "cublasSgemm (linear input gradient)");
  }
  readyOnGpu(ctx_, pass, bias_);
  readyOnGpu(ctx_, pass, weight_);
  return dx;
}

}  // namespace dtb::nn::cuda
