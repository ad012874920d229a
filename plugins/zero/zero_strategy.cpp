#include "zero_strategy.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "dtbench/strategy.hpp"
#include "zero_settings.h"

namespace dtb::strategy::zero {
ZeroStrategy::ZeroStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
    : host_(host),
      params_("zero", setup),
      arrived_(params_),
      accumulation_(setup.accumulation_steps),
      stage_(static_cast<int>(kStage.get(host))),
      rank_(host->comm_rank(host->ctx)),
      world_(host->comm_size(host->ctx)),
      trueReduceScatter_(kReduceScatter.get(host)),
      stateFloats_(host->optim_state_floats(host->ctx)) {
  if (accumulation_ == 0) throw Error(DTB_STATUS_INVALID_ARGUMENT, "zero: accumulation_steps must be >= 1");
  const auto bucket = static_cast<uint64_t>(kReduceBucketSize.get(host));
  const auto persistence = static_cast<uint64_t>(kParamPersistenceThreshold.get(host));

  std::vector<uint64_t> counts;
  std::vector<uint32_t> layers;
  for (uint32_t i = 0; i < params_.size(); ++i) {
    const dtb_param_t* p = &params_[i];
    if (p->layer >= setup.layer_count) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string("zero: parameter '") + p->name + "' names layer " +
                                                   std::to_string(p->layer) + " of " +
                                                   std::to_string(setup.layer_count));
    }
    counts.push_back(p->value.count);
    layers.push_back(p->layer);
    modelValues_.push_back(p->value.data);
    modelGrads_.push_back(p->grad.data);
  }
  units_ = stage_ == 3 ? layerUnits(counts, layers, setup.layer_count, persistence, world_)
                       : bucketUnits(counts, bucket, world_);
  state_.resize(units_.size());
  unitOf_.assign(params_.size(), 0);
  layerUnits_.assign(setup.layer_count, {});
  uint64_t maxPadded = 0, maxShard = 0;
  for (size_t u = 0; u < units_.size(); ++u) {
    const Unit& unit = units_[u];
    maxPadded = std::max(maxPadded, unit.padded);
    maxShard = std::max(maxShard, unit.shard);
    for (uint32_t i : unit.params) {
      unitOf_[i] = static_cast<uint32_t>(u);
      auto& touching = layerUnits_[params_[i].layer];
      if (std::find(touching.begin(), touching.end(), u) == touching.end())
        touching.push_back(static_cast<uint32_t>(u));
    }
    launchOrder_.push_back(stage_ == 3 ? units_.size() - 1 - u : u);  // stage 3 units run in forward order
  }
  staging_ = std::make_unique<BufferPool>(host_, maxPadded);
  if (stage_ == 3) {
    coordinator_ = std::make_unique<ParameterCoordinator>(
        host_, units_, layerUnits_, kPrefetch.get(host), maxPadded,
        ParameterCoordinator::Layout{[this](size_t u) { return sharded(u); },
                                     [this](size_t u) { return ownedSlice(u); },
                                     [this](size_t u, float* base) { pointParams(u, base); }});
  }
  scratch_ = std::make_unique<BufferPool>(host_, maxShard);

  // The model's own arrays go back to the system as soon as what they hold
  // lives in ours (before, not after, we allocate: else the peak is the
  // sum): the gradients at once (backward writes them anew), the values unit
  // by unit once copied. Kept, they would make every rank hold the full model
  // beside its partition.
  releasing_ = releaseModelStorage(host_, params_.all(), DTB_PARAM_PART_GRAD);
  if (releasing_) std::fill(modelGrads_.begin(), modelGrads_.end(), nullptr);
  for (size_t u = 0; u < units_.size(); ++u) {
    const Unit& unit = units_[u];
    UnitState& s = state_[u];
    if (sharded(u)) {
      // Only this rank's slice of the (identical) initial parameters is kept.
      s.ownedParams = HostBuffer<float>(host_, unit.shard, DTB_MEM_PARAMS);
      const uint64_t begin = rank_ * unit.shard;
      for (size_t k = 0; k < unit.params.size(); ++k) {
        const dtb_param_t* p = &params_[unit.params[k]];
        const Piece piece = overlap(unit, k, p->value.count, begin, begin + unit.shard);
        if (piece.count) {
          std::memcpy(s.ownedParams.data() + unit.offsets[k] + piece.first - begin,
                      static_cast<const float*>(p->value.data) + piece.first, piece.count * sizeof(float));
        }
      }
    } else {
      s.full = HostBuffer<float>(host_, unit.padded, DTB_MEM_PARAMS);
      for (size_t k = 0; k < unit.params.size(); ++k) {
        const dtb_param_t* p = &params_[unit.params[k]];
        std::memcpy(s.full.data() + unit.offsets[k], p->value.data, p->value.count * sizeof(float));
      }
      pointParams(u, s.full.data());
    }
    for (uint32_t i : unit.params) {
      if (!releasing_) break;
      check(host_->param_release(host_->ctx, &params_[i], DTB_PARAM_PART_VALUE), "param_release");
      modelValues_[i] = nullptr;
    }
    if (stage_ == 1) {
      // Stage 1 keeps whole gradients; the reduced slice overwrites this
      // rank's part of them unless micro-batches must be summed apart.
      s.wholeGrads = HostBuffer<float>(host_, unit.padded, DTB_MEM_GRADS);
      s.staging = s.wholeGrads.data();
      pointGrads(u, s.staging);
      if (accumulation_ > 1) s.gradSlice = HostBuffer<float>(host_, unit.shard, DTB_MEM_GRADS);
      s.gradShard = accumulation_ > 1 ? s.gradSlice.data() : s.staging + rank_ * unit.shard;
    } else {
      s.gradSlice = HostBuffer<float>(host_, unit.shard, DTB_MEM_GRADS);
      s.gradShard = s.gradSlice.data();
    }
    s.state = HostBuffer<float>(host_, unit.shard * stateFloats_, DTB_MEM_OPTIMIZER);
    s.pending = static_cast<uint32_t>(unit.params.size());
  }
  const std::string detail =
      "stage " + std::to_string(stage_) + ", " + std::to_string(units_.size()) + " units, " +
      (trueReduceScatter_ ? "reduce-scatter" : "all-reduce and keep the slice") +
      (releasing_ ? ", the model's own parameter storage released"
                  : ", the model keeps its own parameter storage (it cannot release it)");
  host_->event(host_->ctx, "zero", detail.c_str());
}

ZeroStrategy::~ZeroStrategy() {
  coordinator_.reset();  // its gathers in flight read our slices: waited for first
  for (size_t u = 0; u < units_.size(); ++u) {
    UnitState& s = state_[u];
    for (dtb_request_t* r : {&s.reduce, &s.gather}) {
      if (*r) host_->comm_wait(host_->ctx, *r, DTB_TIMEOUT_DEFAULT);  // abandoned after a failure
    }
    // A model that kept its storage gets the latest values we hold in full.
    if (s.full && !releasing_) {
      for (size_t k = 0; k < units_[u].params.size(); ++k) {
        const dtb_param_t* p = &params_[units_[u].params[k]];
        std::memcpy(modelValues_[units_[u].params[k]], s.full.data() + units_[u].offsets[k],
                    p->value.count * sizeof(float));
      }
    }
    pointParams(u, nullptr);
    pointGrads(u, nullptr);
  }
}

float* ZeroStrategy::ownedSlice(size_t u) {
  return sharded(u) ? state_[u].ownedParams.data() : state_[u].full.data() + rank_ * units_[u].shard;
}

void ZeroStrategy::pointParams(size_t u, float* base) {
  const Unit& unit = units_[u];
  for (size_t k = 0; k < unit.params.size(); ++k) {
    const uint32_t i = unit.params[k];
    params_[i].value.data = base ? base + unit.offsets[k] : modelValues_[i];
  }
}

void ZeroStrategy::pointGrads(size_t u, float* base) {
  const Unit& unit = units_[u];
  for (size_t k = 0; k < unit.params.size(); ++k) {
    const uint32_t i = unit.params[k];
    params_[i].grad.data = base ? base + unit.offsets[k] : modelGrads_[i];
  }
}

void ZeroStrategy::beforeForward(const dtb_step_info_t& step) {
  microStep_ = step.micro_step;
  if (coordinator_) coordinator_->releaseAll();  // left over from evaluation
}

void ZeroStrategy::layerBegin(uint32_t layer, dtb_pass_t pass) {
  if (layer >= layerUnits_.size())
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "zero: layer_begin for an unknown layer");
  if (coordinator_) coordinator_->beforeLayer(layer, pass);
  if (pass == DTB_PASS_BACKWARD && stage_ >= 2) {
    for (uint32_t u : layerUnits_[layer]) {
      if (!state_[u].staging) stage(u);
    }
  }
}

void ZeroStrategy::stage(size_t u) {
  // DeepSpeed's double buffering: at most two buckets' reductions in flight;
  // the oldest finishes, and gives its staging buffer back, before another
  // bucket starts filling. So whole gradients never exist for every layer.
  while (nextLaunch_ - completed_ >= 2) completeReduce(launchOrder_[completed_++]);
  UnitState& s = state_[u];
  s.staging = staging_->acquire();
  // The padding is reduced too: keep it zero.
  std::fill(s.staging + units_[u].elements, s.staging + units_[u].padded, 0.0f);
  pointGrads(u, s.staging);
}

void ZeroStrategy::gradReady(dtb_param_t* param) {
  const uint32_t i = arrived_.arrive(param);
  const size_t u = unitOf_[i];
  UnitState& s = state_[u];
  if (!s.staging) {
    // A model that wrote gradients without announcing the layer: take the
    // unit's gradients from the model's own memory (those not computed yet
    // are overwritten in the staging buffer when they are).
    if (!modelGrads_[i]) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  std::string("zero: the model reported the gradient of '") + param->name +
                      "' before calling layer_begin for its layer in backward; a model that implements "
                      "release_param must announce every layer in both passes");
    }
    stage(u);
    const Unit& unit = units_[u];
    for (size_t k = 0; k < unit.params.size(); ++k) {
      std::memcpy(s.staging + unit.offsets[k], modelGrads_[unit.params[k]],
                  params_[unit.params[k]].grad.count * sizeof(float));
    }
  }
  if (--s.pending == 0 && stage_ >= 2) launchReady();
}

void ZeroStrategy::launchReady() {
  // In one order on every rank, whatever order this rank's gradients came in.
  while (nextLaunch_ < launchOrder_.size() && state_[launchOrder_[nextLaunch_]].pending == 0) {
    launchReduce(launchOrder_[nextLaunch_++]);
  }
}

void ZeroStrategy::launchReduce(size_t u) {
  const Unit& unit = units_[u];
  UnitState& s = state_[u];
  dtb_tensor_t all = hostTensor(s.staging, unit.padded, DTB_DTYPE_F32);
  if (trueReduceScatter_) {
    s.reduceOut = scratch_->acquire();
    dtb_tensor_t mine = hostTensor(s.reduceOut, unit.shard, DTB_DTYPE_F32);
    check(host_->comm_reduce_scatter(host_->ctx, &all, &mine, DTB_REDUCE_SUM, &s.reduce),
          "zero: reduce-scatter");
  } else {
    check(host_->comm_allreduce(host_->ctx, &all, DTB_REDUCE_SUM, &s.reduce), "zero: all-reduce");
  }
  s.launched = true;
}

void ZeroStrategy::completeReduce(size_t u) {
  const Unit& unit = units_[u];
  UnitState& s = state_[u];
  wait(s.reduce, trueReduceScatter_ ? "reduce-scatter" : "all-reduce");
  const float* reduced = trueReduceScatter_ ? s.reduceOut : s.staging + rank_ * unit.shard;
  // The mean over ranks and micro-batches, summed into the slice over the
  // step's micro-batches.
  const float scale = 1.0f / static_cast<float>(world_ * static_cast<int64_t>(accumulation_));
  for (uint64_t k = 0; k < unit.shard; ++k) {
    const float v = reduced[k] * scale;
    s.gradShard[k] = microStep_ == 0 ? v : s.gradShard[k] + v;
  }
  scratch_->release(s.reduceOut);
  s.reduceOut = nullptr;
  if (stage_ >= 2) {  // the whole gradients are gone: only the slice stays
    pointGrads(u, nullptr);
    staging_->release(s.staging);
    s.staging = nullptr;
  }
}

void ZeroStrategy::wait(dtb_request_t& request, const char* what) {
  const dtb_status_t status = host_->comm_wait(host_->ctx, request, DTB_TIMEOUT_DEFAULT);
  request = nullptr;
  check(status, what);
}

void ZeroStrategy::finishBackward() {
  const std::string unused = arrived_.missing();
  if (stage_ == 1 && unused.empty()) {
    for (size_t u : launchOrder_) launchReduce(u);  // stage 1 reduces after backward
    nextLaunch_ = launchOrder_.size();
  }
  // Every launched reduction is waited for, even when the step fails; the
  // first failure is passed on as it came (a host call's keeps the host's
  // status and message: which rank, a timeout or a broken peer).
  std::exception_ptr failure;
  for (size_t k = completed_; k < nextLaunch_; ++k) {
    try {
      completeReduce(launchOrder_[k]);
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (coordinator_) coordinator_->releaseAll();
  for (size_t u = 0; u < units_.size(); ++u) {
    UnitState& s = state_[u];
    s.pending = static_cast<uint32_t>(units_[u].params.size());
    s.launched = false;
    if (stage_ >= 2 && s.staging) {  // units that never completed
      pointGrads(u, nullptr);
      staging_->release(s.staging);
      s.staging = nullptr;
    }
  }
  arrived_.reset();
  nextLaunch_ = completed_ = 0;
  if (coordinator_) coordinator_->stopRecording();
  if (failure) std::rethrow_exception(failure);
  if (!unused.empty()) {
    throw Error(
        DTB_STATUS_INVALID_ARGUMENT,
        "zero: these parameters received no gradient in this step: " + unused +
            ". ZeRO reduces every parameter's gradient on every rank: each must take part in the loss");
  }
}

void ZeroStrategy::step() {
  for (size_t u = 0; u < units_.size(); ++u) {
    const Unit& unit = units_[u];
    UnitState& s = state_[u];
    float* owned = ownedSlice(u);
    const uint64_t begin = rank_ * unit.shard;
    for (size_t k = 0; k < unit.params.size(); ++k) {
      dtb_param_t* p = &params_[unit.params[k]];
      const Piece piece = overlap(unit, k, p->value.count, begin, begin + unit.shard);
      if (!piece.count) continue;
      const uint64_t at = unit.offsets[k] + piece.first - begin;  // within the slice
      dtb_tensor_t value = hostTensor(owned + at, piece.count, DTB_DTYPE_F32);
      dtb_tensor_t grad = hostTensor(s.gradShard + at, piece.count, DTB_DTYPE_F32);
      check(host_->optim_update(host_->ctx, &value, &grad, s.state.data() + at * stateFloats_, p->index),
            "optim_update");
    }
  }
  // Replicated parameters take every rank's updated slice back, in place
  // (DeepSpeed's all_gather_into_tensor from the slice's own view).
  for (size_t u = 0; u < units_.size(); ++u) {
    if (sharded(u)) continue;
    UnitState& s = state_[u];
    dtb_tensor_t in = hostTensor(ownedSlice(u), units_[u].shard, DTB_DTYPE_F32);
    dtb_tensor_t out = s.full.tensor();
    check(host_->comm_allgather(host_->ctx, &in, &out, &s.gather), "zero: parameter all-gather");
  }
  std::exception_ptr failure;  // the first, as it came (above)
  for (size_t u = 0; u < units_.size(); ++u) {
    if (sharded(u) || !state_[u].gather) continue;
    try {
      wait(state_[u].gather, "parameter all-gather");
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

void ZeroStrategy::memoryReport(dtb_memory_report_t* out) const {
  uint64_t params = 0, grads = 0, optimizer = 0;
  for (size_t u = 0; u < units_.size(); ++u) {
    const Unit& unit = units_[u];
    params += sharded(u) ? unit.shard : unit.padded;
    grads += stage_ == 1 ? unit.padded + (accumulation_ > 1 ? unit.shard : 0) : unit.shard;
    optimizer += unit.shard * stateFloats_;
  }
  out->param_bytes = params * sizeof(float);
  out->grad_bytes = grads * sizeof(float);
  out->optimizer_bytes = optimizer * sizeof(float);
  out->buffer_bytes =
      staging_->peakBytes() + (coordinator_ ? coordinator_->peakBytes() : 0) + scratch_->peakBytes();
}

}  // namespace dtb::strategy::zero
