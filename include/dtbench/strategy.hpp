// strategy.hpp — optional C++ helpers for strategy plugins: the checks and
// loops every strategy on f32 host parameters needs. Header-only; links
// nothing from the host.
#ifndef DTBENCH_STRATEGY_HPP
#define DTBENCH_STRATEGY_HPP

#include <string>
#include <vector>

#include "dtbench/optimizer_updates.hpp"
#include "dtbench/plugin.hpp"
#include "dtbench/strategy.h"

namespace dtb {

// Throws UNSUPPORTED, naming the strategy and the parameter, unless the
// parameter's gradient is f32 in host memory.
inline void requireHostF32(const char* strategy, const dtb_param_t& p) {
  if (p.grad.device.type == DTB_DEVICE_CUDA) {
    throw Error(DTB_STATUS_UNSUPPORTED, std::string(strategy) + ": parameter '" + p.name +
                                            "' is on a GPU; this strategy works on host tensors only so far "
                                            "(allreduce, bucketed and fusion train on GPU tensors)");
  }
  if (p.grad.dtype != DTB_DTYPE_F32 || p.grad.device.type != DTB_DEVICE_HOST) {
    throw Error(DTB_STATUS_UNSUPPORTED, std::string(strategy) + ": parameter '" + p.name +
                                            "' is not an f32 host tensor; this strategy works on those only");
  }
}

// Throws UNSUPPORTED, naming the strategy and the parameter, unless the
// parameter's value and gradient are `dtype` on the same device as
// `first`'s, the host or one GPU (for a strategy that works on GPU tensors
// too; a mixed-precision run of a model on a GPU keeps its bf16 or f16
// records there).
inline void requireSameDevice(const char* strategy, const dtb_param_t& p, const dtb_param_t& first,
                              dtb_dtype_t dtype) {
  const dtb_device_t& d = first.value.device;
  for (const dtb_tensor_t* t : {&p.value, &p.grad}) {
    if (t->dtype != dtype || t->device.type != d.type || t->device.index != d.index ||
        (d.type != DTB_DEVICE_HOST && d.type != DTB_DEVICE_CUDA)) {
      throw Error(DTB_STATUS_UNSUPPORTED,
                  std::string(strategy) + ": parameter '" + p.name + "' is not " + dtypeName(dtype) +
                      " on the device of the first; this strategy " + "works on " + dtypeName(dtype) +
                      " tensors all on the host or all on one GPU");
    }
  }
}

// requireSameDevice for f32 parameters.
inline void requireSameDeviceF32(const char* strategy, const dtb_param_t& p, const dtb_param_t& first) {
  requireSameDevice(strategy, p, first, DTB_DTYPE_F32);
}

// Throws UNSUPPORTED, naming the strategy and the parameter, unless its value
// and gradient are `dtype` (bf16 or f16) host tensors: a mixed-precision run.
inline void requireHostHalf(const char* strategy, const dtb_param_t& p, dtb_dtype_t dtype) {
  for (const dtb_tensor_t* t : {&p.value, &p.grad}) {
    if (t->dtype != dtype || t->device.type != DTB_DEVICE_HOST) {
      throw Error(DTB_STATUS_UNSUPPORTED, std::string(strategy) + ": parameter '" + p.name + "' is not a " +
                                              dtypeName(dtype) + " host tensor like the first" +
                                              (t->device.type == DTB_DEVICE_CUDA
                                                   ? "; it is on a GPU, and this strategy works on host "
                                                     "tensors only"
                                                   : ""));
    }
  }
}

// "a, b, c": the parameters whose gradient did not arrive (ready[i] false),
// at most eight, then ", ...". Empty when all arrived.
inline std::string namesNotReady(const std::vector<dtb_param_t*>& params, const std::vector<bool>& ready) {
  std::string names;
  int listed = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    if (ready[i]) continue;
    if (listed++ == 8) {
      names += ", ...";
      break;
    }
    names += (names.empty() ? "" : ", ") + std::string(params[i]->name);
  }
  return names;
}

// The run's optimizer on every parameter, state[i] being parameter i's.
inline void updateEach(const dtb_host_t* host, const std::vector<dtb_param_t*>& params,
                       const std::vector<float*>& state) {
  OptimizerUpdates updates(host);
  for (size_t i = 0; i < params.size(); ++i)
    updates.add(params[i]->value, params[i]->grad, state[i], params[i]->index);
  updates.apply();
}

// Gives the model's own storage of `part` of every parameter back to the
// system (param_release, ABI 1.2), for a strategy that keeps that part in
// memory of its own. False, with nothing released, when the host or the
// model cannot (the model keeps its storage): a host without the service
// (older, or one that leaves it NULL) or a model without release_param.
// Throws on any other failure.
inline bool releaseModelStorage(const dtb_host_t* host, const std::vector<dtb_param_t*>& params,
                                dtb_param_part_t part) {
  if (!DTB_HAS_SERVICE(host, param_release)) return false;
  for (size_t i = 0; i < params.size(); ++i) {
    const dtb_status_t status = host->param_release(host->ctx, params[i], part);
    if (status == DTB_STATUS_UNSUPPORTED && i == 0) return false;  // such a model releases nothing
    check(status, "param_release");
  }
  return true;
}

}  // namespace dtb

#endif  // DTBENCH_STRATEGY_HPP
