// param_set.hpp — the parameters a strategy works on, checked once, and the
// record of which gradients arrived in a backward pass. Optional C++ helper;
// header-only.
//
//   dtb::ParamSet params("mine", setup);      // f32 host tensors, in index order
//   dtb::GradArrivals arrived(params);
//   void gradReady(dtb_param_t* p) { const uint32_t i = arrived.arrive(p); ... }
//   void finishBackward() { arrived.requireAll("..."); ...; arrived.reset(); }
#ifndef DTBENCH_PARAM_SET_HPP
#define DTBENCH_PARAM_SET_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "dtbench/strategy.h"
#include "dtbench/strategy.hpp"

namespace dtb {

class ParamSet {
 public:
  // Throws, naming `strategy` and the parameter, unless every parameter is an
  // f32 host tensor (or, with Place::kHostOrGpu, f32 on the host or one GPU
  // for all) and param->index is its position (the host's promise).
  // Dtypes::kF32OrHalf also takes the bf16 or f16 tensors of a
  // mixed-precision run (precision = "bf16" / "fp16"), all of one dtype, on
  // the host (or, with Place::kHostOrGpu, all on one GPU): a
  // strategy that says so moves and copies them by dtype() and counts them
  // by bytes(), and hands them to optim_update as they are.
  enum class Place { kHost, kHostOrGpu };
  enum class Dtypes { kF32, kF32OrHalf };
  ParamSet(const char* strategy, const dtb_strategy_setup_t& setup, Place place = Place::kHost,
           Dtypes dtypes = Dtypes::kF32)
      : strategy_(strategy), params_(setup.params, setup.params + setup.param_count) {
    if (!params_.empty()) dtype_ = params_[0]->grad.dtype;
    const bool half = dtype_ == DTB_DTYPE_BF16 || dtype_ == DTB_DTYPE_F16;
    if (half && dtypes == Dtypes::kF32) {
      throw Error(DTB_STATUS_UNSUPPORTED, std::string(strategy) + ": parameter '" + params_[0]->name +
                                              "' is " + dtypeName(dtype_) +
                                              "; this strategy trains f32 parameters only "
                                              "(precision = \"fp32\")");
    }
    for (uint32_t i = 0; i < params_.size(); ++i) {
      if (place == Place::kHostOrGpu)
        requireSameDevice(strategy, *params_[i], *params_[0], half ? dtype_ : DTB_DTYPE_F32);
      else if (half)
        requireHostHalf(strategy, *params_[i], dtype_);
      else
        requireHostF32(strategy, *params_[i]);
      if (params_[i]->index != i) {
        throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string(strategy) + ": parameter '" + params_[i]->name +
                                                     "' has index " + std::to_string(params_[i]->index) +
                                                     " at position " + std::to_string(i));
      }
      elements_ += params_[i]->value.count;
    }
  }

  const char* strategy() const { return strategy_; }
  size_t size() const { return params_.size(); }
  dtb_param_t& operator[](size_t i) const { return *params_[i]; }
  auto begin() const { return params_.begin(); }
  auto end() const { return params_.end(); }
  const std::vector<dtb_param_t*>& all() const { return params_; }
  // The parameters' (and gradients') dtype: f32, or bf16 / f16.
  dtb_dtype_t dtype() const { return dtype_; }
  // Elements (and bytes, in dtype()) of all the parameters.
  uint64_t elements() const { return elements_; }
  uint64_t bytes() const { return elements_ * dtypeSize(dtype_); }

  // `param`'s index, after checking it is one of these.
  uint32_t indexOf(const dtb_param_t* param) const {
    const uint32_t i = param->index;
    if (i >= params_.size() || params_[i] != param) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  std::string(strategy_) + ": '" + param->name + "' is not a parameter of this model");
    }
    return i;
  }

 private:
  const char* strategy_;
  std::vector<dtb_param_t*> params_;
  dtb_dtype_t dtype_ = DTB_DTYPE_F32;
  uint64_t elements_ = 0;
};

// Which gradients became ready in this backward pass.
class GradArrivals {
 public:
  explicit GradArrivals(const ParamSet& params) : params_(params), arrived_(params.size(), false) {}

  // Records `param`'s gradient; throws if it is not ours or came twice.
  uint32_t arrive(const dtb_param_t* param) {
    const uint32_t i = params_.indexOf(param);
    if (arrived_[i]) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string(params_.strategy()) + ": the gradient of '" +
                                                   param->name +
                                                   "' was reported ready twice in one backward");
    }
    arrived_[i] = true;
    return i;
  }
  bool arrived(uint32_t i) const { return arrived_[i]; }
  // "a, b, c" (at most eight, then "..."): the gradients that did not arrive.
  std::string missing() const { return namesNotReady(params_.all(), arrived_); }
  // Throws when a gradient did not arrive, naming them and then `advice`.
  void requireAll(const std::string& advice) const {
    if (const std::string names = missing(); !names.empty()) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  std::string(params_.strategy()) +
                      ": these parameters received no gradient in this step: " + names + ". " + advice);
    }
  }
  void reset() { arrived_.assign(arrived_.size(), false); }

 private:
  const ParamSet& params_;
  std::vector<bool> arrived_;
};

}  // namespace dtb

#endif  // DTBENCH_PARAM_SET_HPP
