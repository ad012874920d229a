// The bucketed strategy's DDP behaviour beyond equivalence, driven through
// the ABI over a one-rank communicator: buckets launch during backward as
// soon as they are complete (overlap), the buckets are rebuilt once in the
// order gradients became ready, a parameter without gradient fails the step
// with its name (or is reduced as zero with find_unused_parameters), and
// gradient_as_bucket_view makes the gradients live in the buckets; the fp16
// and bf16 hooks really send half precision.
#include <gtest/gtest.h>

#include <vector>

#include "dtbench/half.hpp"
#include "host/communicator.h"
#include "host/host_services.h"
#include "plugin/loader.h"
#include "temp_dir.h"
#include "train/optimizer.h"

namespace dtb::core {
namespace {

class BucketedStrategy : public ::testing::Test {
 protected:
  void SetUp() override {
    dtb_rendezvous_t rdv{};
    rdv.struct_size = sizeof(rdv);
    rdv.world_size = 1;
    rdv.store_path = store_.path().c_str();
    rdv.prefix = "b";
    rdv.bind_address = "127.0.0.1";
    rdv.timeout_ms = 5000;
    communicator_ = std::make_unique<Communicator>(
        createBackend(loader_.load(PluginKind::kBackend, "single"), {}, rdv), 0, 1, std::chrono::seconds(5));
    // Three "layers" of 8, 16 and 4 floats, registered in forward order.
    const uint64_t counts[] = {8, 16, 4};
    for (uint32_t i = 0; i < 3; ++i) {
      values_[i].assign(counts[i], 1.0f);
      grads_[i].assign(counts[i], 0.0f);
      dtb_param_t& p = params_[i];
      p.struct_size = sizeof(p);
      p.index = i;
      p.name = kNames[i];
      p.layer = i;
      p.value = {values_[i].data(), counts[i], DTB_DTYPE_F32, {DTB_DEVICE_HOST, 0}, 1, {int64_t(counts[i])}};
      p.grad = {grads_[i].data(), counts[i], DTB_DTYPE_F32, {DTB_DEVICE_HOST, 0}, 1, {int64_t(counts[i])}};
      views_[i] = &params_[i];
    }
  }

  void create(const ParamValues& params) {
    dtb_strategy_setup_t setup{};
    setup.struct_size = sizeof(setup);
    setup.params = views_;
    setup.param_count = 3;
    setup.layer_count = 3;
    setup.device = {DTB_DEVICE_HOST, 0};
    setup.accumulation_steps = 1;
    strategy_ = createStrategy(loader_.load(PluginKind::kStrategy, "bucketed"), params, setup,
                               communicator_.get(), &optimizer_);
  }

  const dtb_strategy_plugin_v1_t& api() { return strategy_->plugin().descriptor<dtb_strategy_plugin_v1_t>(); }

  void beforeForward(uint64_t step) {
    dtb_step_info_t info{sizeof(info), step, 0, 0, 1};
    strategy_->check("before_forward", api().before_forward(strategy_->context(), &info));
  }

  // Gradients of `order` become ready in turn, each filled with its index + 1
  // (the model writes its gradient before calling the hook). Returns the
  // collectives issued meanwhile.
  uint64_t ready(const std::vector<uint32_t>& order) {
    const uint64_t before = communicator_->collectives();
    for (uint32_t i : order) {
      auto* g = static_cast<float*>(params_[i].grad.data);
      for (uint64_t k = 0; k < params_[i].grad.count; ++k) g[k] = static_cast<float>(i + 1);
      strategy_->check("grad_ready", api().grad_ready(strategy_->context(), &params_[i]));
    }
    return communicator_->collectives() - before;
  }

  static constexpr const char* kNames[] = {"conv.weight", "fc1.weight", "fc2.weight"};
  PluginLoader loader_{SearchPath({DTBENCH_PLUGIN_DIR, DTBENCH_TEST_PLUGIN_DIR})};
  testing::TempDir store_;
  std::unique_ptr<Communicator> communicator_;
  Optimizer optimizer_{{"sgd", 0.1, 0.0, false, 0.0}};
  std::vector<float> values_[3], grads_[3];
  dtb_param_t params_[3]{};
  dtb_param_t* views_[3];
  std::unique_ptr<PluginInstance> strategy_;
};

TEST_F(BucketedStrategy, StartsWithOneBucketThenRebuildsInReadyOrderAndOverlaps) {
  create({{"bucket_cap_mb", 1e-6}, {"first_bucket_mb", 1e-6}});  // every tensor closes its bucket
  // Step 0: one bucket (DDP's first iteration), launched with the last gradient.
  beforeForward(0);
  EXPECT_EQ(ready({2, 1}), 0u);
  EXPECT_EQ(ready({0}), 1u);
  strategy_->check("finish_backward", api().finish_backward(strategy_->context()));
  // Step 1: rebuilt from rank 0's order (one broadcast), then one bucket per
  // tensor, each launched during backward as soon as its gradient arrives.
  const uint64_t before = communicator_->collectives();
  beforeForward(1);
  EXPECT_EQ(communicator_->collectives() - before, 1u) << "the broadcast of the bucket order";
  EXPECT_EQ(ready({2}), 1u);
  EXPECT_EQ(ready({1}), 1u);
  EXPECT_EQ(ready({0}), 1u);
  strategy_->check("finish_backward", api().finish_backward(strategy_->context()));
  const auto events = strategy_->services().events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "rebucket");
  EXPECT_NE(events[0].detail.find("3 buckets"), std::string::npos) << events[0].detail;
  // Averaged over one rank: the gradients come back as written.
  EXPECT_EQ(grads_[1][5], 2.0f);
}

TEST_F(BucketedStrategy, AParameterWithoutGradientFailsTheStepWithItsName) {
  create({});
  beforeForward(0);
  ready({2, 0});
  try {
    strategy_->check("finish_backward", api().finish_backward(strategy_->context()));
    FAIL() << "a missing gradient went unnoticed";
  } catch (const PluginCallError& e) {
    EXPECT_NE(std::string(e.what()).find("received no gradient in this step: fc1.weight."), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("find_unused_parameters = true"), std::string::npos) << e.what();
  }
}

TEST_F(BucketedStrategy, FindUnusedParametersReducesThemAsZero) {
  create({{"find_unused_parameters", true}});
  grads_[1].assign(16, 7.0f);  // stale values from an earlier step
  beforeForward(0);
  ready({2, 0});
  strategy_->check("finish_backward", api().finish_backward(strategy_->context()));
  EXPECT_EQ(grads_[1], std::vector<float>(16, 0.0f));
  EXPECT_EQ(grads_[0][0], 1.0f);
}

TEST_F(BucketedStrategy, GradientAsBucketViewPointsGradientsIntoTheBuckets) {
  create({{"gradient_as_bucket_view", true}});
  // One initial bucket holding the three gradients back to back.
  const auto* first = static_cast<const float*>(params_[0].grad.data);
  EXPECT_NE(first, grads_[0].data());
  EXPECT_EQ(static_cast<const float*>(params_[1].grad.data), first + 8);
  EXPECT_EQ(static_cast<const float*>(params_[2].grad.data), first + 24);
  dtb_memory_report_t report{};
  report.struct_size = sizeof(report);
  strategy_->check("memory_report", api().memory_report(strategy_->context(), &report));
  EXPECT_EQ(report.buffer_bytes, 0u);
  EXPECT_EQ(report.grad_bytes, 28u * sizeof(float));
  strategy_.reset();
  EXPECT_EQ(params_[0].grad.data, grads_[0].data()) << "the model's own gradient memory is restored";
}

TEST_F(BucketedStrategy, CompressionHooksRoundThroughHalfPrecision) {
  for (const char* hook : {"fp16", "bf16"}) {
    create({{"comm_hook", std::string(hook)}});
    beforeForward(0);
    for (uint32_t i = 0; i < 3; ++i) {
      grads_[i].assign(grads_[i].size(), 0.1f);  // not exact in either format
      strategy_->check("grad_ready", api().grad_ready(strategy_->context(), &params_[i]));
    }
    strategy_->check("finish_backward", api().finish_backward(strategy_->context()));
    const float expected = std::string(hook) == "fp16" ? dtb::halfToFloat(dtb::floatToHalf(0.1f))
                                                       : dtb::bfloat16ToFloat(dtb::floatToBfloat16(0.1f));
    EXPECT_NE(expected, 0.1f);
    EXPECT_EQ(grads_[1][3], expected) << hook;
    strategy_.reset();
  }
}

TEST_F(BucketedStrategy, AGradientReadyTwiceIsAnError) {
  create({});
  beforeForward(0);
  EXPECT_THROW(ready({0, 0}), PluginCallError);
}

}  // namespace
}  // namespace dtb::core
