// local_sgd — local SGD (Stich, "Local SGD converges fast and communicates
// little", 2019; Lin et al., "Don't use large mini-batches, use local SGD",
// 2020): every rank steps its own optimizer on its own gradients, and every
// `sync_every` steps the ranks average their parameters, one all-reduce per
// parameter. Between averages the replicas drift apart; in exchange a run
// communicates 1 / sync_every as often as allreduce. With sync_every = 1 and
// SGD (momentum and weight decay included, which are linear) it is exactly
// allreduce: the average of the ranks' updates is the update of the average
// gradient. Each rank keeps its own momentum, as in Lin et al.
#include <string>

#include "dtbench/descriptors.hpp"
#include "dtbench/optimizer_state.hpp"
#include "dtbench/param_set.hpp"
#include "dtbench/requests.hpp"
#include "dtbench/settings.hpp"

namespace {

constexpr dtb::IntSetting kSyncEvery{
    "sync_every", "4", "Optimizer steps between parameter averages (1: every step)", dtb::atLeast(1)};
const dtb_param_spec_t kParams[] = {kSyncEvery.spec()};

class LocalSgd {
 public:
  LocalSgd(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
      : host_(host),
        params_("local_sgd", setup),
        optimizer_(host, params_),
        syncEvery_(kSyncEvery.get(host)) {
    // k micro-batches per step would need their gradients summed first (dtbench/accumulation.hpp).
    if (setup.accumulation_steps != 1) {
      throw dtb::Error(DTB_STATUS_UNSUPPORTED,
                       "local_sgd: gradient accumulation is not implemented (accumulation_steps = " +
                           std::to_string(setup.accumulation_steps) + ")");
    }
  }

  const dtb_host_t* host() const { return host_; }

  // Nothing crosses the wire after backward: each rank keeps its gradients.
  void finishBackward() {}

  // This rank's optimizer on this rank's gradients; every sync_every steps,
  // every parameter replaced by its average over the ranks.
  void step() {
    optimizer_.update();
    if (++steps_ % syncEvery_ != 0) return;
    dtb::allreduceEach(host_, params_, &dtb_param_t::value, DTB_REDUCE_AVG);
  }

  // What this rank holds, for the run's memory figures.
  void memoryReport(dtb_memory_report_t* out) const {
    dtb::replicatedMemoryReport(params_, optimizer_, 0, 0, out);
  }

 private:
  const dtb_host_t* host_;
  dtb::ParamSet params_;
  dtb::OptimizerState optimizer_;
  int64_t syncEvery_;
  int64_t steps_ = 0;
};

}  // namespace

DTB_EXPORT_STRATEGY_PLUGIN(dtb::strategyDescriptor<LocalSgd>(
    "local_sgd", "0.1.0",
    "Local SGD: each rank steps on its own gradients; parameters averaged every sync_every steps", kParams))
