// The oneDNN CPU engine and stream one model instance computes on, and the
// scratch memory its primitives share.
#pragma once

#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

namespace dtb::nn {

struct DnnlContext {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};

  // Primitives built with this attribute take their scratch space from
  // scratchpad() instead of allocating it at every execution (fresh pages
  // cost more than the convolutions of small layers).
  dnnl::primitive_attr attr() const {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }
  // Scratch memory for `desc`: one buffer, grown as needed, shared by every
  // primitive (they execute one at a time on this stream).
  dnnl::memory scratchpad(const dnnl::memory::desc& desc) {
    const size_t bytes = desc.get_size();
    if (scratch_.size() < bytes) scratch_.resize(bytes);
    return dnnl::memory(desc, engine, scratch_.data());
  }

 private:
  std::vector<uint8_t> scratch_;
};

// A oneDNN view of caller memory: dense f32 with the given dims and layout.
inline dnnl::memory view(DnnlContext& ctx, const dnnl::memory::dims& dims, dnnl::memory::format_tag tag,
                         const float* data) {
  return dnnl::memory({dims, dnnl::memory::data_type::f32, tag}, ctx.engine, const_cast<float*>(data));
}

}  // namespace dtb::nn
