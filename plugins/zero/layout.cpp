#include "layout.h"

#include <algorithm>
#include <string>

namespace dtb::strategy::zero {

Layout::Layout(const ParamSet& params, uint32_t layerCount, std::vector<Unit> unitsIn, Order order,
               int rankIn, int worldIn)
    : rank(rankIn),
      world(worldIn),
      units(std::move(unitsIn)),
      unitOf(params.size(), 0),
      layerUnits(layerCount) {
  if (params.size() > 0) device = params[0].value.device;
  dtype = params.dtype();
  for (size_t u = 0; u < units.size(); ++u) {
    maxPadded = std::max(maxPadded, units[u].padded);
    maxShard = std::max(maxShard, units[u].shard);
    for (uint32_t i : units[u].params) {
      unitOf[i] = static_cast<uint32_t>(u);
      auto& touching = layerUnits[params[i].layer];
      if (std::find(touching.begin(), touching.end(), u) == touching.end())
        touching.push_back(static_cast<uint32_t>(u));
    }
    backwardOrder.push_back(order == Order::kForward ? units.size() - 1 - u : u);
  }
}

ModelViews::ModelViews(const ParamSet& params, const Layout& layout) : params_(params), layout_(layout) {
  for (const dtb_param_t* p : params) {
    values_.push_back(p->value.data);
    grads_.push_back(p->grad.data);
  }
}

void ModelViews::pointValues(size_t u, void* base) {
  const Unit& unit = layout_[u];
  for (size_t k = 0; k < unit.params.size(); ++k) {
    const uint32_t i = unit.params[k];
    params_[i].value.data = base ? layout_.at(base, unit.offsets[k]) : values_[i];
  }
}

void ModelViews::pointGrads(size_t u, void* base) {
  const Unit& unit = layout_[u];
  for (size_t k = 0; k < unit.params.size(); ++k) {
    const uint32_t i = unit.params[k];
    params_[i].grad.data = base ? layout_.at(base, unit.offsets[k]) : grads_[i];
  }
}

void ModelViews::forgetModelGrads() { std::fill(grads_.begin(), grads_.end(), nullptr); }

}  // namespace dtb::strategy::zero
