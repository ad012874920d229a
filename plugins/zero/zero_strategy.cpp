#include "zero_strategy.h"

#include <string>

#include "dtbench/optimizer_state.hpp"
#include "dtbench/strategy.hpp"
#include "first_failure.h"
#include "zero_settings.h"

namespace dtb::strategy::zero {
namespace {

StageSettings readSettings(const dtb_host_t* host, const dtb_strategy_setup_t& setup) {
  if (setup.accumulation_steps == 0)
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "zero: accumulation_steps must be >= 1");
  if (setup.accumulation_steps > 1 && setup.param_count > 0 &&
      setup.params[0]->value.dtype != DTB_DTYPE_F32) {
    // Its reduced slices accumulate in their own dtype (reductions.cpp):
    // bf16 sums, where DeepSpeed's bf16 optimizer sums in fp32.
    throw Error(
        DTB_STATUS_UNSUPPORTED,
        "zero: gradient accumulation in mixed precision is not built yet; set accumulation_steps = 1");
  }
  StageSettings s;
  s.stage = static_cast<int>(kStage.get(host));
  s.reduceBucketElements = static_cast<uint64_t>(kReduceBucketSize.get(host));
  s.persistenceThreshold = static_cast<uint64_t>(kParamPersistenceThreshold.get(host));
  s.prefetch = kPrefetch.get(host);
  s.gradients.reduceScatter = kReduceScatter.get(host);
  s.gradients.accumulation = setup.accumulation_steps;
  return s;
}

// The parameters, after checking each names a layer of the model.
const ParamSet& checkLayers(const ParamSet& params, uint32_t layerCount) {
  for (const dtb_param_t* p : params) {
    if (p->layer >= layerCount) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string("zero: parameter '") + p->name + "' names layer " +
                                                   std::to_string(p->layer) + " of " +
                                                   std::to_string(layerCount));
    }
  }
  return params;
}

}  // namespace

ZeroStrategy::ZeroStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
    : host_(host),
      params_("zero", setup, ParamSet::Place::kHostOrGpu, ParamSet::Dtypes::kF32OrHalf),
      arrived_(params_),
      settings_(readSettings(host, setup)),
      layout_(stageLayout(settings_, checkLayers(params_, setup.layer_count), setup.layer_count,
                          host->comm_rank(host->ctx), host->comm_size(host->ctx))),
      views_(params_, layout_),
      stateFloats_(host->optim_state_floats(host->ctx)) {
  // The model's own arrays go back to the system as soon as what they hold
  // lives in ours: the gradients at once (backward writes them anew), the
  // values unit by unit once copied (parameters.h). Kept, they would make
  // every rank hold the full model beside its partition.
  const bool releasing = releaseModelStorage(host_, params_.all(), DTB_PARAM_PART_GRAD);
  if (releasing) views_.forgetModelGrads();
  stage_ = makeStage(settings_, host_, layout_, views_, releasing);
  for (size_t u = 0; u < layout_.size(); ++u)
    optimizerState_.emplace_back(host_, layout_[u].shard * stateFloats_, DTB_MEM_OPTIMIZER, layout_.device);

  const std::string detail =
      "stage " + std::to_string(settings_.stage) + ", " + std::to_string(layout_.size()) + " units, " +
      stage_.gradients->reduction() +
      (!releasing ? ", the model keeps its own parameter storage (it cannot release it)"
       : layout_.dtype == DTB_DTYPE_F32
           ? ", the model's own parameter storage released"
           : std::string(", the host's ") + dtypeName(layout_.dtype) +
                 " parameter storage released (the model computes from its f32 copy)");
  host_->event(host_->ctx, "zero", detail.c_str());
}

void ZeroStrategy::beforeForward(const dtb_step_info_t& step) {
  stage_.gradients->beforeForward(step.micro_step);
  stage_.parameters->beforeForward();
}

void ZeroStrategy::layerBegin(uint32_t layer, dtb_pass_t pass) {
  if (layer >= layout_.layerUnits.size())
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "zero: layer_begin for an unknown layer");
  stage_.parameters->beforeLayer(layer, pass);
  if (pass == DTB_PASS_BACKWARD) stage_.gradients->beforeBackwardLayer(layer);
}

void ZeroStrategy::gradReady(dtb_param_t* param) { stage_.gradients->arrived(arrived_.arrive(param)); }

void ZeroStrategy::finishBackward() {
  const std::string unused = arrived_.missing();
  // Every reduction issued is waited for, even when the step fails.
  FirstFailure failure;
  failure.run([&] { stage_.gradients->finishBackward(unused.empty()); });
  failure.run([&] { stage_.parameters->afterBackward(); });
  arrived_.reset();
  failure.rethrow();
  if (!unused.empty()) {
    throw Error(
        DTB_STATUS_INVALID_ARGUMENT,
        "zero: these parameters received no gradient in this step: " + unused +
            ". ZeRO reduces every parameter's gradient on every rank: each must take part in the loss");
  }
}

void ZeroStrategy::step() {
  // This rank's reduced slices are what it updates from: an fp16 run's loss
  // scaler checks them (every rank its own) and may skip the step, leaving
  // the parameters be and so nothing to gather (DeepSpeed's stage 1-2 step).
  std::vector<dtb_tensor_t> slices;
  for (size_t u = 0; u < layout_.size(); ++u)
    slices.push_back(layout_.flat(stage_.gradients->slice(u), layout_[u].shard));
  if (!stepApplies(host_, slices)) return;
  const int rank = layout_.rank;
  OptimizerUpdates updates(host_);  // every slice of this rank in one call: fused on a GPU
  for (size_t u = 0; u < layout_.size(); ++u) {
    const Unit& unit = layout_[u];
    void* owned = stage_.parameters->ownedSlice(u);
    void* grads = stage_.gradients->slice(u);
    const uint64_t begin = rank * unit.shard;
    for (size_t k = 0; k < unit.params.size(); ++k) {
      dtb_param_t* p = &params_[unit.params[k]];
      const Piece piece = overlap(unit, k, p->value.count, begin, begin + unit.shard);
      if (!piece.count) continue;
      const uint64_t at = unit.offsets[k] + piece.first - begin;  // within the slice
      dtb_tensor_t value = layout_.flat(layout_.at(owned, at), piece.count);
      dtb_tensor_t grad = layout_.flat(layout_.at(grads, at), piece.count);
      updates.add(value, grad, optimizerState_[u].data() + at * stateFloats_, p->index);
    }
  }
  updates.apply();
  stage_.parameters->gatherUpdated();
}

void ZeroStrategy::memoryReport(dtb_memory_report_t* out) const {
  uint64_t optimizer = 0;
  for (const HostBuffer<float>& s : optimizerState_) optimizer += s.size();
  // Parameters and gradients in their dtype (2 bytes each in mixed
  // precision), the state in f32 (the master copy among it): the paper's
  // 2 + 2 + K bytes per parameter.
  const uint64_t element = dtypeSize(layout_.dtype);
  out->param_bytes = stage_.parameters->heldElements() * element;
  out->grad_bytes = stage_.gradients->heldElements() * element;
  out->optimizer_bytes = optimizer * sizeof(float);
  out->buffer_bytes = stage_.gradients->bufferBytes() + stage_.parameters->bufferBytes();
}

}  // namespace dtb::strategy::zero
