#include "allreduce_strategy.h"

#include "dtbench/requests.hpp"

namespace dtb::strategy::allreduce {

AllreduceStrategy::AllreduceStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
    : host_(host),
      params_("allreduce", setup, ParamSet::Place::kHostOrGpu, ParamSet::Dtypes::kF32OrHalf),
      sums_(host, params_, setup.accumulation_steps),
      optimizer_(host, params_) {}

void AllreduceStrategy::finishBackward() {
  if (sums_.accumulating()) {
    const bool last = sums_.lastMicroStep();
    for (uint32_t i = 0; i < params_.size(); ++i) {
      if (last) {
        sums_.takeSum(i, params_[i].grad.data, 1.0f / static_cast<float>(sums_.steps()));
      } else {
        sums_.add(i);
      }
    }
    if (!last) return;  // no_sync: nothing crosses the wire until the last micro-batch
  }
  allreduceEach(host_, params_, &dtb_param_t::grad, DTB_REDUCE_AVG);
}

}  // namespace dtb::strategy::allreduce
