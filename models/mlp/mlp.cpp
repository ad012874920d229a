#include "mlp.h"

#include <cmath>
#include <string>
#include <vector>

#include "dtbench/plugin.hpp"

namespace dtb::model::mlp {

Mlp::Mlp(const dtb_host_t* host, const dtb_model_setup_t& setup) : Network(host, setup, Samples::kFlat) {
  int64_t widths[32];
  uint64_t depth = 0;
  check(host->config_get_int_list(host->ctx, kWidths.name(), widths, 32, &depth), kWidths.name());
  if (depth > 32) throw Error(DTB_STATUS_INVALID_ARGUMENT, "mlp: at most 32 hidden layers");
  const double dropout = kDropout.get(host);

  auto& r = registry();
  auto& l = layers();
  int64_t in = sampleShape().c;
  for (uint64_t k = 0; k <= depth; ++k) {
    const bool hidden = k < depth;
    const int64_t out = hidden ? widths[k] : classes();
    body().add(l.linear(r, "layers." + std::to_string(k), in, out));
    // PyTorch's Linear bounds, as the layer library draws them, but seeded
    // per parameter as mlp always was: its initial weights, and so every
    // figure taken with it, stay what they were before it used the library.
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    for (const uint32_t index : {static_cast<uint32_t>(2 * k), static_cast<uint32_t>(2 * k + 1)})
      r.param(index).initUniform(bound, setup.seed * 1000 + index);
    if (hidden) {
      body().add(l.relu());
      // One seed: every layer's masks from one stream, in the order they run.
      if (dropout > 0) body().add(l.dropout({dropout, setup.seed ^ 0x31bULL}));
    }
    in = out;
  }
  finishBuilding("mlp");
}

}  // namespace dtb::model::mlp
