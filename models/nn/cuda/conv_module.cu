#include <vector>

#include "cuda_check.h"
#include "cuda_modules.h"

namespace dtb::nn::cuda {
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;
// cuDNN's heuristics may rank first an algorithm wanting more scratch space
// than is sensible: the first that fits this takes its place.
constexpr size_t kMaxWorkspace = size_t{1} << 31;

// The first algorithm that ran (Find) or is supported (heuristics) and fits
// the workspace bound; its math type forced to FMA when TF32 is not allowed
// (PyTorch does the same with allow_tf32 = False).
template <typename Perf>
Perf choose(const std::vector<Perf>& results, int returned, bool allowTf32, const char* what) {
  for (int i = 0; i < returned; ++i) {
    Perf perf = results[i];
    if (perf.status != CUDNN_STATUS_SUCCESS || perf.memory > kMaxWorkspace) continue;
    if (!allowTf32) {
      perf.mathType = CUDNN_FMA_MATH;
    } else if (perf.mathType != CUDNN_DEFAULT_MATH && perf.mathType != CUDNN_TENSOR_OP_MATH &&
               perf.mathType != CUDNN_FMA_MATH) {
      continue;  // e.g. CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: fp32 data computed in fp16
    }
    return perf;
  }
  throw Error(DTB_STATUS_UNSUPPORTED, std::string("cuDNN has no algorithm for this ") + what);
}

}  // namespace

struct ConvModule::Plan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnConvolutionFwdAlgoPerf_t forward{};
  cudnnConvolutionBwdDataAlgoPerf_t backwardData{};
  cudnnConvolutionBwdFilterAlgoPerf_t backwardFilter{};

  ~Plan() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
  }
};

ConvModule::ConvModule(CudaContext& ctx, const Conv2dSpec& spec, const ConvParameters& params)
    : ctx_(ctx), spec_(spec), layer_(params.layer), weight_(params.weight), bias_(params.bias) {
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  check(cudnnCreateFilterDescriptor(&filter_), "cudnnCreateFilterDescriptor");
  check(cudnnSetFilter4dDescriptor(filter_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, i(spec.out),
                                   i(spec.in / spec.groups), i(spec.kernel), i(spec.kernel)),
        "cudnnSetFilter4dDescriptor");
  check(cudnnCreateConvolutionDescriptor(&conv_), "cudnnCreateConvolutionDescriptor");
  check(cudnnSetConvolution2dDescriptor(conv_, i(spec.padding), i(spec.padding), i(spec.stride),
                                        i(spec.stride), 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolution2dDescriptor");
  check(cudnnSetConvolutionGroupCount(conv_, i(spec.groups)), "cudnnSetConvolutionGroupCount");
  check(cudnnSetConvolutionMathType(conv_, ctx.options().allowTf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
        "cudnnSetConvolutionMathType");
  if (bias_) {
    check(cudnnCreateTensorDescriptor(&biasDesc_), "cudnnCreateTensorDescriptor");
    check(cudnnSetTensor4dDescriptor(biasDesc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, i(spec.out), 1, 1),
          "cudnnSetTensor4dDescriptor (bias)");
  }
}

ConvModule::~ConvModule() {
  plans_.clear();
  if (biasDesc_) cudnnDestroyTensorDescriptor(biasDesc_);
  if (conv_) cudnnDestroyConvolutionDescriptor(conv_);
  if (filter_) cudnnDestroyFilterDescriptor(filter_);
}

Shape ConvModule::outputShape(const Shape& in) const {
  return {in.n, spec_.out, spec_.outSize(in.h), spec_.outSize(in.w)};
}

ConvModule::Plan& ConvModule::plan(const Shape& in) {
  auto& slot = plans_[{in.n, in.h, in.w}];
  if (slot) return *slot;
  auto p = std::make_unique<Plan>();
  const Shape out = outputShape(in);
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  check(cudnnCreateTensorDescriptor(&p->x), "cudnnCreateTensorDescriptor");
  check(cudnnSetTensor4dDescriptor(p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i(in.n), i(in.c), i(in.h),
                                   i(in.w)),
        "cudnnSetTensor4dDescriptor (input)");
  check(cudnnCreateTensorDescriptor(&p->y), "cudnnCreateTensorDescriptor");
  check(cudnnSetTensor4dDescriptor(p->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i(out.n), i(out.c), i(out.h),
                                   i(out.w)),
        "cudnnSetTensor4dDescriptor (output)");
  const bool tf32 = ctx_.options().allowTf32;
  cudnnHandle_t h = ctx_.cudnn();
  // Heuristics and Find look at the descriptor's math type: the option's,
  // not whatever the last plan's algorithm left there.
  check(cudnnSetConvolutionMathType(conv_, tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
        "cudnnSetConvolutionMathType");
  int returned = 0;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> bwdData(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> bwdFilter(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  if (ctx_.options().benchmark) {
    // cudnn.benchmark: run every algorithm once on this shape, fastest first.
    check(cudnnFindConvolutionForwardAlgorithm(h, p->x, filter_, conv_, p->y, i(fwd.size()), &returned,
                                               fwd.data()),
          "cudnnFindConvolutionForwardAlgorithm");
    p->forward = choose(fwd, returned, tf32, "convolution's forward");
    check(cudnnFindConvolutionBackwardDataAlgorithm(h, filter_, p->y, conv_, p->x, i(bwdData.size()),
                                                    &returned, bwdData.data()),
          "cudnnFindConvolutionBackwardDataAlgorithm");
    p->backwardData = choose(bwdData, returned, tf32, "convolution's input gradient");
    check(cudnnFindConvolutionBackwardFilterAlgorithm(h, p->x, p->y, conv_, filter_, i(bwdFilter.size()),
                                                      &returned, bwdFilter.data()),
          "cudnnFindConvolutionBackwardFilterAlgorithm");
    p->backwardFilter = choose(bwdFilter, returned, tf32, "convolution's weight gradient");
  } else {
    check(cudnnGetConvolutionForwardAlgorithm_v7(h, p->x, filter_, conv_, p->y, i(fwd.size()), &returned,
                                                 fwd.data()),
          "cudnnGetConvolutionForwardAlgorithm_v7");
    p->forward = choose(fwd, returned, tf32, "convolution's forward");
    check(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, filter_, p->y, conv_, p->x, i(bwdData.size()),
                                                      &returned, bwdData.data()),
          "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    p->backwardData = choose(bwdData, returned, tf32, "convolution's input gradient");
    check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p->x, p->y, conv_, filter_, i(bwdFilter.size()),
                                                        &returned, bwdFilter.data()),
          "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
    p->backwardFilter = choose(bwdFilter, returned, tf32, "convolution's weight gradient");
  }
  // The heuristics' memory figure is an estimate: ask for the real ones.
  check(cudnnSetConvolutionMathType(conv_, p->forward.mathType), "cudnnSetConvolutionMathType");
  check(cudnnGetConvolutionForwardWorkspaceSize(h, p->x, filter_, conv_, p->y, p->forward.algo,
                                                &p->forward.memory),
        "cudnnGetConvolutionForwardWorkspaceSize");
  check(cudnnSetConvolutionMathType(conv_, p->backwardData.mathType), "cudnnSetConvolutionMathType");
  check(cudnnGetConvolutionBackwardDataWorkspaceSize(h, filter_, p->y, conv_, p->x, p->backwardData.algo,
                                                     &p->backwardData.memory),
        "cudnnGetConvolutionBackwardDataWorkspaceSize");
  check(cudnnSetConvolutionMathType(conv_, p->backwardFilter.mathType), "cudnnSetConvolutionMathType");
  check(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p->x, p->y, conv_, filter_, p->backwardFilter.algo,
                                                       &p->backwardFilter.memory),
        "cudnnGetConvolutionBackwardFilterWorkspaceSize");
  slot = std::move(p);
  return *slot;
}

const float* ConvModule::forward(const float* x, const Shape& in, const Pass& pass) {
  beginOnGpu(ctx_, pass, layer_, DTB_PASS_FORWARD);
  x_ = x;
  in_ = in;
  current_ = &plan(in);
  float* y = y_.floats(outputShape(in).count());
  cudnnHandle_t h = ctx_.cudnn();
  check(cudnnSetConvolutionMathType(conv_, current_->forward.mathType), "cudnnSetConvolutionMathType");
  void* workspace = ctx_.workspace(current_->forward.memory);
  check(cudnnConvolutionForward(h, &kOne, current_->x, x, filter_, weight_.value(), conv_,
                                current_->forward.algo, workspace, current_->forward.memory, &kZero,
                                current_->y, y),
        "cudnnConvolutionForward");
  if (bias_)
    check(cudnnAddTensor(h, &kOne, biasDesc_, bias_->value(), &kOne, current_->y, y), "cudnnAddTensor");
  return y;
}

const float* ConvModule::backward(const float* dy, const Pass& pass, bool inputGrad) {
  beginOnGpu(ctx_, pass, layer_, DTB_PASS_BACKWARD);
  cudnnHandle_t h = ctx_.cudnn();
  const Plan& p = *current_;
  check(cudnnSetConvolutionMathType(conv_, p.backwardFilter.mathType), "cudnnSetConvolutionMathType");
  void* workspace = ctx_.workspace(p.backwardFilter.memory);
  check(cudnnConvolutionBackwardFilter(h, &kOne, p.x, x_, p.y, dy, conv_, p.backwardFilter.algo, workspace,
                                       p.backwardFilter.memory, &kZero, filter_, weight_.grad()),
        "cudnnConvolutionBackwardFilter");
  if (bias_) {
    check(cudnnConvolutionBackwardBias(h, &kOne, p.y, dy, &kZero, biasDesc_, bias_->grad()),
          "cudnnConvolutionBackwardBias");
  }
  float* dx = nullptr;
  if (inputGrad) {
    dx = dx_.floats(in_.count());
    check(cudnnSetConvolutionMathType(conv_, p.backwardData.mathType), "cudnnSetConvolutionMathType");
    workspace = ctx_.workspace(p.backwardData.memory);
    check(
        cudnnConvolutionBackwardData(h, &kOne, filter_, weight_.value(), p.y, dy, conv_, p.backwardData.algo,
                                     workspace, p.backwardData.memory, &kZero, p.x, dx),
        "cudnnConvolutionBackwardData");
  }
  if (bias_) readyOnGpu(ctx_, pass, *bias_);
  readyOnGpu(ctx_, pass, weight_);
  return dx;
}

}  // namespace dtb::nn::cuda
