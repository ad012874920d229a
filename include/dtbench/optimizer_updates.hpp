// optimizer_updates.hpp — one optimizer step's updates handed to the host
// together: optim_update_many (ABI 1.12), which runs a GPU's slices as a few
// fused kernels instead of a kernel per slice, or optim_update slice by
// slice under an older host. Optional C++ helper; header-only.
//
//   dtb::OptimizerUpdates updates(host);
//   for (...) updates.add(value, grad, state, p->index);
//   updates.apply();
#ifndef DTBENCH_OPTIMIZER_UPDATES_HPP
#define DTBENCH_OPTIMIZER_UPDATES_HPP

#include <cstdint>
#include <utility>
#include <vector>

#include "dtbench/plugin.hpp"

namespace dtb {

class OptimizerUpdates {
 public:
  explicit OptimizerUpdates(const dtb_host_t* host) : host_(host) {}

  // One slice, as optim_update's arguments. The tensors are copied (a
  // slice's view may be a local); their memory and `state` must stay
  // valid until apply().
  void add(const dtb_tensor_t& param, const dtb_tensor_t& grad, float* state, uint32_t paramIndex) {
    params_.push_back(param);
    grads_.push_back(grad);
    states_.push_back(state);
    indices_.push_back(paramIndex);
  }

  // Updates every slice added since the last apply(), which are then
  // forgotten, whatever happens; throws dtb::Error as check() does (under
  // optim_update_many nothing was updated then).
  void apply() {
    // Taken out first: a failed call leaves nothing to be applied again.
    std::vector<dtb_tensor_t> params = std::exchange(params_, {});
    const std::vector<dtb_tensor_t> grads = std::exchange(grads_, {});
    const std::vector<float*> states = std::exchange(states_, {});
    const std::vector<uint32_t> indices = std::exchange(indices_, {});
    const size_t count = params.size();
    if (DTB_HAS_SERVICE(host_, optim_update_many)) {
      check(host_->optim_update_many(host_->ctx, params.data(), grads.data(), states.data(), indices.data(),
                                     static_cast<uint32_t>(count)),
            "optim_update_many");
    } else {
      for (size_t i = 0; i < count; ++i)
        check(host_->optim_update(host_->ctx, &params[i], &grads[i], states[i], indices[i]), "optim_update");
    }
  }

 private:
  const dtb_host_t* host_;
  std::vector<dtb_tensor_t> params_, grads_;
  std::vector<float*> states_;
  std::vector<uint32_t> indices_;
};

}  // namespace dtb

#endif  // DTBENCH_OPTIMIZER_UPDATES_HPP
