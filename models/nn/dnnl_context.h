// The oneDNN CPU engine and stream one model instance computes on.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace dtb::nn {

struct DnnlContext {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

// A oneDNN view of caller memory: dense f32 with the given dims and layout.
inline dnnl::memory view(DnnlContext& ctx, const dnnl::memory::dims& dims, dnnl::memory::format_tag tag,
                         const float* data) {
  return dnnl::memory({dims, dnnl::memory::data_type::f32, tag}, ctx.engine, const_cast<float*>(data));
}

}  // namespace dtb::nn
