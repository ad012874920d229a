// decode = "nvjpeg": JPEGs decoded on the GPU by nvJPEG, as DALI's decoder
// does, then copied back for the crop and resize (which stay on the loader's
// thread, as with the CPU decoder: only the decoder differs).
//
// libnvjpeg and the CUDA runtime are loaded with dlopen when a dataset opens,
// so the plugin builds and loads everywhere, with or without the toolkit's
// nvJPEG; the few functions used are declared here from NVIDIA's
// documentation (nvjpeg.h and cuda_runtime_api.h of CUDA 11 to 13).
//
// One decoder state serves every loader thread in turn (a mutex): nvJPEG's
// handle is thread-safe, a state is not. Not run on this project's machines
// so far (none has a GPU and nvJPEG): docs/datasets.md says so.
#include <dlfcn.h>

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>

#include "dtbench/plugin.hpp"
#include "image_source.h"

namespace dtb::dataset::jpeg_folder {
namespace {

// ---- nvjpeg.h / cuda_runtime_api.h, as documented ----------------------------
using nvjpegHandle_t = struct nvjpegHandle*;
using nvjpegJpegState_t = struct nvjpegJpegState*;
using cudaStream_t = struct CUstream_st*;
constexpr int kNvjpegMaxComponent = 4;  // NVJPEG_MAX_COMPONENT
struct nvjpegImage_t {                  // NOLINT: NVIDIA's name
  unsigned char* channel[kNvjpegMaxComponent];
  size_t pitch[kNvjpegMaxComponent];
};
constexpr int kNvjpegOutputRgbi = 5;  // NVJPEG_OUTPUT_RGBI: interleaved RGB in channel[0]
constexpr int kCudaMemcpyDeviceToHost = 2;
// nvjpegStatus_t and cudaError_t are enums whose success is 0; the enums passed
// (nvjpegOutputFormat_t, nvjpegChromaSubsampling_t*, cudaMemcpyKind) are ints.
using NvjpegCreateSimple = int (*)(nvjpegHandle_t*);
using NvjpegDestroy = int (*)(nvjpegHandle_t);
using NvjpegJpegStateCreate = int (*)(nvjpegHandle_t, nvjpegJpegState_t*);
using NvjpegJpegStateDestroy = int (*)(nvjpegJpegState_t);
using NvjpegGetImageInfo = int (*)(nvjpegHandle_t, const unsigned char*, size_t, int* components,
                                   int* subsampling, int* widths, int* heights);
using NvjpegDecode = int (*)(nvjpegHandle_t, nvjpegJpegState_t, const unsigned char*, size_t, int format,
                             nvjpegImage_t* destination, cudaStream_t);
using CudaGetDeviceCount = int (*)(int*);
using CudaMalloc = int (*)(void**, size_t);
using CudaFree = int (*)(void*);
using CudaMemcpy = int (*)(void*, const void*, size_t, int kind);
using CudaGetErrorString = const char* (*)(int);

[[noreturn]] void missing(const std::string& what) {
  throw Error(DTB_STATUS_UNSUPPORTED, "decode = \"nvjpeg\" needs libnvjpeg.so and a CUDA GPU: " + what);
}

// A shared library, dlopen'd by the first of `names` that loads.
class Library {
 public:
  Library(std::initializer_list<const char*> names, const char* what) {
    std::string tried;
    for (const char* name : names) {
      handle_ = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle_) return;
      tried += std::string(tried.empty() ? "" : "; ") + ::dlerror();
    }
    missing(std::string(what) + " not found (" + tried + ")");
  }
  ~Library() { ::dlclose(handle_); }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  template <typename Fn>
  Fn symbol(const char* name) const {
    void* s = ::dlsym(handle_, name);
    if (!s) missing(std::string(name) + " not found in the loaded library");
    return reinterpret_cast<Fn>(s);
  }

 private:
  void* handle_ = nullptr;
};

class NvjpegSource : public ImageSource {
 public:
  NvjpegSource(const std::vector<SplitFiles>& splits, const DecodeLimits& limits)
      : splits_(splits),
        limits_(limits),
        cudart_({"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"}, "libcudart.so"),
        nvjpeg_({"libnvjpeg.so", "libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so.11"}, "libnvjpeg.so"),
        deviceCount_(cudart_.symbol<CudaGetDeviceCount>("cudaGetDeviceCount")),
        malloc_(cudart_.symbol<CudaMalloc>("cudaMalloc")),
        free_(cudart_.symbol<CudaFree>("cudaFree")),
        memcpy_(cudart_.symbol<CudaMemcpy>("cudaMemcpy")),
        errorString_(cudart_.symbol<CudaGetErrorString>("cudaGetErrorString")),
        createSimple_(nvjpeg_.symbol<NvjpegCreateSimple>("nvjpegCreateSimple")),
        destroy_(nvjpeg_.symbol<NvjpegDestroy>("nvjpegDestroy")),
        stateCreate_(nvjpeg_.symbol<NvjpegJpegStateCreate>("nvjpegJpegStateCreate")),
        stateDestroy_(nvjpeg_.symbol<NvjpegJpegStateDestroy>("nvjpegJpegStateDestroy")),
        imageInfo_(nvjpeg_.symbol<NvjpegGetImageInfo>("nvjpegGetImageInfo")),
        decode_(nvjpeg_.symbol<NvjpegDecode>("nvjpegDecode")) {
    int devices = 0;
    const int status = deviceCount_(&devices);
    if (status != 0)
      missing(std::string("no CUDA device (cudaGetDeviceCount: ") + errorString_(status) + ")");
    if (devices == 0) missing("no CUDA device");
    if (createSimple_(&handle_) != 0) missing("nvjpegCreateSimple failed");
    if (stateCreate_(handle_, &state_) != 0) {
      destroy_(handle_);
      missing("nvjpegJpegStateCreate failed");
    }
  }
  ~NvjpegSource() override {
    if (device_) free_(device_);
    stateDestroy_(state_);
    destroy_(handle_);
  }
  NvjpegSource(const NvjpegSource&) = delete;
  NvjpegSource& operator=(const NvjpegSource&) = delete;

  const Image& load(uint32_t split, uint64_t index, Image& scratch) const override {
    const std::filesystem::path& file = splits_[split].files[index];
    const std::string bytes = readJpegFile(file);
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    int components = 0, subsampling = 0;
    int widths[kNvjpegMaxComponent] = {}, heights[kNvjpegMaxComponent] = {};
    std::lock_guard lock(mutex_);
    if (imageInfo_(handle_, data, bytes.size(), &components, &subsampling, widths, heights) != 0)
      fail(file, "nvjpegGetImageInfo: not a JPEG nvJPEG reads");
    if (widths[0] <= 0 || heights[0] <= 0) {
      fail(file,
           "the header says " + std::to_string(widths[0]) + " x " + std::to_string(heights[0]) + " pixels");
    }
    if (std::optional<std::string> why =
            outsideLimits(static_cast<uint64_t>(widths[0]), static_cast<uint64_t>(heights[0]), limits_))
      fail(file, *why);
    scratch.width = static_cast<uint32_t>(widths[0]);
    scratch.height = static_cast<uint32_t>(heights[0]);
    scratch.channels = 3;
    scratch.pixels.resize(static_cast<size_t>(scratch.width) * scratch.height * 3);
    reserve(file, scratch.pixels.size());
    nvjpegImage_t out{};
    out.channel[0] = static_cast<unsigned char*>(device_);
    out.pitch[0] = static_cast<size_t>(scratch.width) * 3;
    if (decode_(handle_, state_, data, bytes.size(), kNvjpegOutputRgbi, &out, nullptr) != 0)
      fail(file, "nvjpegDecode failed (a corrupt or unsupported JPEG)");
    // On the default stream: waits for the decode.
    const int copied =
        memcpy_(scratch.pixels.data(), device_, scratch.pixels.size(), kCudaMemcpyDeviceToHost);
    if (copied != 0) fail(file, std::string("cudaMemcpy: ") + errorString_(copied));
    return scratch;
  }

 private:
  [[noreturn]] static void fail(const std::filesystem::path& file, const std::string& why) {
    throw Error(DTB_STATUS_IO_ERROR, file.string() + ": " + why);
  }

  // The device buffer, grown to `bytes` (under mutex_).
  void reserve(const std::filesystem::path& file, size_t bytes) const {
    if (bytes <= deviceBytes_) return;
    if (device_) free_(device_);
    device_ = nullptr;
    deviceBytes_ = 0;
    const int status = malloc_(&device_, bytes);
    if (status != 0) fail(file, std::string("cudaMalloc: ") + errorString_(status));
    deviceBytes_ = bytes;
  }

  const std::vector<SplitFiles>& splits_;
  DecodeLimits limits_;
  Library cudart_, nvjpeg_;
  CudaGetDeviceCount deviceCount_;
  CudaMalloc malloc_;
  CudaFree free_;
  CudaMemcpy memcpy_;
  CudaGetErrorString errorString_;
  NvjpegCreateSimple createSimple_;
  NvjpegDestroy destroy_;
  NvjpegJpegStateCreate stateCreate_;
  NvjpegJpegStateDestroy stateDestroy_;
  NvjpegGetImageInfo imageInfo_;
  NvjpegDecode decode_;
  nvjpegHandle_t handle_ = nullptr;
  nvjpegJpegState_t state_ = nullptr;
  mutable std::mutex mutex_;
  mutable void* device_ = nullptr;
  mutable size_t deviceBytes_ = 0;
};

}  // namespace

std::unique_ptr<ImageSource> makeNvjpegSource(const std::vector<SplitFiles>& splits,
                                              const DecodeLimits& limits) {
  return std::make_unique<NvjpegSource>(splits, limits);
}

}  // namespace dtb::dataset::jpeg_folder
