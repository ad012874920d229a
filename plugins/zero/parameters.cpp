#include "parameters.h"

#include <string>

#include "dtbench/requests.hpp"

namespace dtb::strategy::zero {

Parameters::Parameters(const dtb_host_t* host, const Layout& layout, ModelViews& views, bool releasing,
                       std::vector<bool> partitioned)
    : host_(host),
      layout_(layout),
      views_(views),
      releasing_(releasing),
      partitioned_(std::move(partitioned)),
      whole_(layout.size()),
      owned_(layout.size()),
      ops_(host, "zero") {
  for (size_t u = 0; u < layout.size(); ++u) {
    if (this->partitioned(u))
      takeSlice(u);
    else
      takeWhole(u);
    if (!releasing_) continue;
    for (uint32_t i : layout[u].params) {
      check(host_->param_release(host_->ctx, &views_.param(i), DTB_PARAM_PART_VALUE), "param_release");
      views_.forgetModelValue(i);
    }
  }
}

void Parameters::takeSlice(size_t u) {
  // Only this rank's slice of the (identical) initial parameters is kept.
  const Unit& unit = layout_[u];
  owned_[u] = TypedBuffer(host_, unit.shard, layout_.dtype, DTB_MEM_PARAMS, layout_.device);
  const uint64_t begin = layout_.rank * unit.shard;
  for (size_t k = 0; k < unit.params.size(); ++k) {
    const uint32_t i = unit.params[k];
    const Piece piece = overlap(unit, k, views_.param(i).value.count, begin, begin + unit.shard);
    if (piece.count) {
      ops_.copy(owned_[u].tensor(), unit.offsets[k] + piece.first - begin, modelValue(i), piece.first,
                piece.count);
    }
  }
}

void Parameters::takeWhole(size_t u) {
  const Unit& unit = layout_[u];
  whole_[u] = TypedBuffer(host_, unit.padded, layout_.dtype, DTB_MEM_PARAMS, layout_.device);
  for (size_t k = 0; k < unit.params.size(); ++k) {
    const uint32_t i = unit.params[k];
    ops_.copy(whole_[u].tensor(), unit.offsets[k], modelValue(i), 0, views_.param(i).value.count);
  }
  views_.pointValues(u, whole_[u].data());
}

Parameters::~Parameters() {
  for (size_t u = 0; u < layout_.size(); ++u) {
    // A model that kept its storage gets the latest values we hold whole.
    if (whole_[u] && !releasing_) {
      const Unit& unit = layout_[u];
      try {
        for (size_t k = 0; k < unit.params.size(); ++k) {
          const uint32_t i = unit.params[k];
          ops_.copy(modelValue(i), 0, whole_[u].tensor(), unit.offsets[k], views_.param(i).value.count);
        }
      } catch (const std::exception& e) {  // a GPU copy refused: the model keeps the values it had
        host_->log(
            host_->ctx, DTB_LOG_ERROR,
            (std::string("zero: the model's parameters could not be given back: ") + e.what()).c_str());
      }
    }
    views_.pointValues(u, nullptr);
  }
}

dtb_tensor_t Parameters::modelValue(uint32_t i) {
  return layout_.flat(views_.modelValue(i), views_.param(i).value.count);
}

void* Parameters::ownedSlice(size_t u) {
  return partitioned(u) ? owned_[u].data() : whole_[u].at(layout_.rank * layout_[u].shard);
}

void Parameters::gatherUpdated() {
  Requests gathers(host_);
  for (size_t u = 0; u < layout_.size(); ++u) {
    if (partitioned(u)) continue;
    dtb_tensor_t in = layout_.flat(ownedSlice(u), layout_[u].shard);
    dtb_tensor_t out = whole_[u].tensor();
    gathers.issue("zero: parameter all-gather",
                  [&](dtb_request_t* r) { return host_->comm_allgather(host_->ctx, &in, &out, r); });
  }
  gathers.waitAll();
}

uint64_t Parameters::heldElements() const {
  uint64_t held = 0;
  for (size_t u = 0; u < layout_.size(); ++u) held += partitioned(u) ? layout_[u].shard : layout_[u].padded;
  return held;
}

namespace {
std::vector<bool> nonPersistentUnits(const Layout& layout) {
  std::vector<bool> partitioned;
  for (const Unit& unit : layout.units) partitioned.push_back(!unit.persistent);
  return partitioned;
}
}  // namespace

PartitionedParameters::PartitionedParameters(const dtb_host_t* host, const Layout& layout, ModelViews& views,
                                             bool releasing, bool prefetch)
    : Parameters(host, layout, views, releasing, nonPersistentUnits(layout)),
      coordinator_(std::make_unique<ParameterCoordinator>(
          host, layout, prefetch,
          ParameterCoordinator::Holder{[this](size_t u) { return partitioned(u); },
                                       [this](size_t u) { return ownedSlice(u); },
                                       [this](size_t u, void* base) { views_.pointValues(u, base); }})) {}

PartitionedParameters::~PartitionedParameters() {
  coordinator_.reset();  // its gathers in flight read our slices: waited for first
}

void PartitionedParameters::afterBackward() {
  coordinator_->releaseAll();
  coordinator_->stopRecording();  // the first step is over: the forward order is known
}

}  // namespace dtb::strategy::zero
