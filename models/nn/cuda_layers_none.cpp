// A build without CUDA (no toolkit, or -DDTBENCH_CUDA=OFF): models compute on
// the host only, and asking for a GPU says why not.
#include "dtbench/plugin.hpp"
#include "layers.h"

namespace dtb::nn {

std::unique_ptr<Layers> makeCudaLayers(const CudaLayerOptions&) {
  throw Error(DTB_STATUS_UNSUPPORTED, "this build of dtbench has no CUDA: models compute on the host only");
}

}  // namespace dtb::nn
