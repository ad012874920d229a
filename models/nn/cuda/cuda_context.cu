#include "cuda_check.h"
#include "cuda_context.h"

namespace dtb::nn::cuda {

CudaContext::CudaContext(const CudaLayerOptions& options)
    : options_(options), memory_(options.host, options.device) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount (is a GPU visible?)");
  if (options.device < 0 || options.device >= count)
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "GPU " + std::to_string(options.device) + " does not exist (" +
                                                 std::to_string(count) + " visible)");
  check(cudaSetDevice(options.device), "cudaSetDevice");
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudnnCreate(&cudnn_), "cudnnCreate");
  check(cudnnSetStream(cudnn_, stream_), "cudnnSetStream");
  check(cublasCreate(&cublas_), "cublasCreate");
  check(cublasSetStream(cublas_, stream_), "cublasSetStream");
  // PyTorch's default for fp32 matrix products (allow_tf32 = False for
  // matmul): full fp32. Its default for convolutions is the option's.
  check(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

CudaContext::~CudaContext() {
  if (stream_) cudaStreamSynchronize(stream_);
  if (cublas_) cublasDestroy(cublas_);
  if (cudnn_) cudnnDestroy(cudnn_);
  if (stream_) cudaStreamDestroy(stream_);
}

void CudaContext::synchronize() { check(cudaStreamSynchronize(stream_), "the model's GPU work"); }

}  // namespace dtb::nn::cuda
