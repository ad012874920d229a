// The host services table as a plugin sees it.
#include "host/host_services.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dtbench/plugin.hpp"
#include "train/optimizer.h"

namespace dtb::core {
namespace {

TEST(HostServices, TableIsVersionedAndComplete) {
  HostServices services("test", {});
  const dtb_host_t* host = services.table();
  EXPECT_EQ(host->struct_size, sizeof(dtb_host_t));
  EXPECT_EQ(host->abi_version, DTB_ABI_VERSION);
  EXPECT_TRUE(DTB_HAS_MEMBER(host, dtb_host_t, optim_update));
  // Every member is set: a plugin never has to check a 1.0 member for NULL.
  const auto* slots = reinterpret_cast<void* const*>(&host->ctx);
  const size_t count = (sizeof(dtb_host_t) - offsetof(dtb_host_t, ctx)) / sizeof(void*);
  for (size_t i = 0; i < count; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST(HostServices, ConfigLookupsByType) {
  HostServices services("test", {{"n", int64_t{3}},
                                 {"lr", 0.5},
                                 {"on", true},
                                 {"algo", std::string("ring")},
                                 {"widths", std::vector<int64_t>{8, 4, 2}}});
  const dtb_host_t* host = services.table();
  int64_t n = 0;
  double lr = 0;
  int32_t on = 0;
  const char* algo = nullptr;
  EXPECT_EQ(host->config_get_int(host->ctx, "n", &n), DTB_STATUS_OK);
  EXPECT_EQ(host->config_get_float(host->ctx, "lr", &lr), DTB_STATUS_OK);
  EXPECT_EQ(host->config_get_bool(host->ctx, "on", &on), DTB_STATUS_OK);
  EXPECT_EQ(host->config_get_string(host->ctx, "algo", &algo), DTB_STATUS_OK);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(lr, 0.5);
  EXPECT_EQ(on, 1);
  EXPECT_STREQ(algo, "ring");

  int64_t widths[2];
  uint64_t count = 0;
  EXPECT_EQ(host->config_get_int_list(host->ctx, "widths", widths, 2, &count), DTB_STATUS_OK);
  EXPECT_EQ(count, 3u);  // full length, though only 2 fit
  EXPECT_EQ(widths[1], 4);

  EXPECT_EQ(host->config_get_int(host->ctx, "missing", &n), DTB_STATUS_NOT_FOUND);
  EXPECT_NE(services.takeError()->find("no parameter 'missing'"), std::string::npos);
  EXPECT_EQ(host->config_get_int(host->ctx, "lr", &n), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(services.takeError().has_value());
}

TEST(HostServices, ErrorsBelongToTheirInstanceAndThread) {
  HostServices a("a", {});
  HostServices b("b", {});
  a.table()->set_error(a.table()->ctx, "from a");
  EXPECT_FALSE(b.takeError().has_value());
  std::thread other([&] { EXPECT_FALSE(a.takeError().has_value()); });
  other.join();
  EXPECT_EQ(a.takeError(), "from a");
  EXPECT_FALSE(a.takeError().has_value());  // taken once
}

TEST(HostServices, AllocationsAreCountedPerCategory) {
  HostServices services("test", {});
  const dtb_host_t* host = services.table();
  const dtb_device_t cpu{DTB_DEVICE_HOST, 0};
  void* state = nullptr;
  void* bucket = nullptr;
  ASSERT_EQ(host->alloc(host->ctx, 1000, cpu, DTB_MEM_OPTIMIZER, &state), DTB_STATUS_OK);
  ASSERT_EQ(host->alloc(host->ctx, 24, cpu, DTB_MEM_BUFFERS, &bucket), DTB_STATUS_OK);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(state) % 64, 0u);
  EXPECT_EQ(services.memory().current(DTB_MEM_OPTIMIZER), 1000u);
  EXPECT_EQ(services.memory().currentTotal(), 1024u);
  host->free(host->ctx, state);
  EXPECT_EQ(services.memory().current(DTB_MEM_OPTIMIZER), 0u);
  EXPECT_EQ(services.memory().peak(DTB_MEM_OPTIMIZER), 1000u);

  // A GPU no machine has (GPU 0 is usable where there is one: nccl_backend_test).
  void* gpu = reinterpret_cast<void*>(1);
  EXPECT_EQ(host->alloc(host->ctx, 8, dtb_device_t{DTB_DEVICE_CUDA, 9999}, DTB_MEM_PARAMS, &gpu),
            DTB_STATUS_UNSUPPORTED);
  EXPECT_EQ(gpu, nullptr);
  EXPECT_TRUE(services.takeError().has_value());
  host->free(host->ctx, bucket);
}

TEST(HostServices, CommunicatorIsUnavailableOutsideARun) {
  HostServices services("model/x", {});
  const dtb_host_t* host = services.table();
  EXPECT_EQ(host->comm_size(host->ctx), 1);
  dtb_request_t request = nullptr;
  EXPECT_EQ(host->comm_barrier(host->ctx, &request), DTB_STATUS_UNSUPPORTED);
  EXPECT_NE(services.takeError()->find("comm_barrier: not available"), std::string::npos);
}

TEST(HostServices, MetricsAndEventsAccumulate) {
  HostServices services("test", {});
  const dtb_host_t* host = services.table();
  host->metric_add(host->ctx, "fusion.cycles", 2);
  host->metric_add(host->ctx, "fusion.cycles", 3);
  host->event(host->ctx, "rebucket", "order changed");
  EXPECT_EQ(services.metrics().at("fusion.cycles"), 5);
  // Taken once per step: a take clears them, so the next step starts at 0.
  EXPECT_EQ(services.takeMetrics().at("fusion.cycles"), 5);
  EXPECT_TRUE(services.takeMetrics().empty());
  ASSERT_EQ(services.events().size(), 1u);
  EXPECT_EQ(services.events()[0].kind, "rebucket");
}

// metric_add drops a value that is not finite, alone: the step's finite
// values of the same metric still add up.
TEST(HostServices, AMetricValueThatIsNotFiniteIsDroppedAlone) {
  HostServices services("test", {});
  const dtb_host_t* host = services.table();
  host->metric_add(host->ctx, "topk.density", 0.25);
  host->metric_add(host->ctx, "topk.density", std::numeric_limits<double>::quiet_NaN());
  host->metric_add(host->ctx, "topk.density", 0.5);
  host->metric_add(host->ctx, "topk.density", std::numeric_limits<double>::infinity());
  host->metric_add(host->ctx, "only.nan", std::numeric_limits<double>::quiet_NaN());
  const auto metrics = services.takeMetrics();
  EXPECT_EQ(metrics.at("topk.density"), 0.75);
  EXPECT_EQ(metrics.count("only.nan"), 0u);  // nothing finite was added: no value, not 0
}

// No exception crosses the C boundary: what a member's body throws comes back
// as a status and a message on the caller's channel (or, for a void member,
// as a log line).
TEST(HostServices, ExceptionsBecomeAStatusAndAMessage) {
  HostServices services("test", {});
  const dtb_host_ctx_t ctx = services.table()->ctx;
  EXPECT_EQ(HostServices::guarded(ctx, "alloc", []() -> dtb_status_t { throw std::bad_alloc(); }),
            DTB_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(services.takeError(), "alloc: out of memory");
  EXPECT_EQ(HostServices::guarded(ctx, "event", []() -> dtb_status_t { throw std::logic_error("broken"); }),
            DTB_STATUS_INTERNAL);
  EXPECT_NE(services.takeError()->find("event: internal error in the host: broken"), std::string::npos);
  EXPECT_EQ(HostServices::guarded(ctx, "x", []() -> dtb_status_t { throw 42; }), DTB_STATUS_INTERNAL);
  EXPECT_TRUE(services.takeError().has_value());
  EXPECT_NO_THROW(HostServices::guardedVoid(ctx, "trace_span", [] { throw std::runtime_error("lost"); }));
  EXPECT_FALSE(services.takeError().has_value());  // a void member has no one to tell but the log
}

TEST(HostServices, AnAbsurdAllocationIsOutOfMemoryNotACrash) {
  HostServices services("test", {});
  const dtb_host_t* host = services.table();
  const dtb_device_t cpu{DTB_DEVICE_HOST, 0};
  for (uint64_t bytes :
       {std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint64_t>::max() - 10, uint64_t{1} << 62}) {
    void* ptr = reinterpret_cast<void*>(1);
    EXPECT_EQ(host->alloc(host->ctx, bytes, cpu, DTB_MEM_BUFFERS, &ptr), DTB_STATUS_OUT_OF_MEMORY) << bytes;
    EXPECT_EQ(ptr, nullptr);
    EXPECT_NE(services.takeError()->find("cannot allocate " + std::to_string(bytes)), std::string::npos);
  }
  EXPECT_EQ(services.memory().currentTotal(), 0u);
  void* zero = reinterpret_cast<void*>(1);
  EXPECT_EQ(host->alloc(host->ctx, 0, cpu, DTB_MEM_BUFFERS, &zero), DTB_STATUS_OK);
  EXPECT_EQ(zero, nullptr);  // the header's promise for zero bytes
  host->free(host->ctx, nullptr);
  EXPECT_EQ(host->alloc(host->ctx, 8, cpu, DTB_MEM_BUFFERS, nullptr), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(services.takeError().has_value());
}

TEST(HostServices, NullArgumentsAreRefusedOrIgnored) {
  HostServices services("test", {{"n", int64_t{3}}, {"widths", std::vector<int64_t>{8, 4}}});
  const dtb_host_t* host = services.table();
  // Each of these dereferenced NULL or threw std::logic_error (std::string
  // from NULL) inside the host.
  host->log(host->ctx, DTB_LOG_DEBUG, nullptr);
  host->metric_add(host->ctx, nullptr, 1.0);
  host->event(host->ctx, nullptr, nullptr);
  host->trace_span(host->ctx, nullptr, nullptr, 0, 1);
  host->set_error(host->ctx, nullptr);
  EXPECT_EQ(services.takeError(), "");
  EXPECT_TRUE(services.metrics().empty());
  int64_t n = 0;
  EXPECT_EQ(host->config_get_int(host->ctx, nullptr, &n), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(services.takeError().has_value());
  EXPECT_EQ(host->config_get_int(host->ctx, "n", nullptr), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(host->config_get_bool(host->ctx, "n", nullptr), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(host->config_get_string(host->ctx, "n", nullptr), DTB_STATUS_INVALID_ARGUMENT);
  uint64_t count = 0;
  EXPECT_EQ(host->config_get_int_list(host->ctx, "widths", nullptr, 0, &count), DTB_STATUS_OK);
  EXPECT_EQ(count, 2u);  // asking for the length only
  EXPECT_EQ(host->config_get_int_list(host->ctx, "widths", nullptr, 2, &count), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(host->config_get_int_list(host->ctx, "widths", nullptr, 0, nullptr), DTB_STATUS_INVALID_ARGUMENT);
  services.takeError();
}

// DTB_PARAM_FLAG_NO_WEIGHT_DECAY, honoured by optim_update through
// param_index, against PyTorch's formulas with the parameter in a group of
// weight_decay=0: coupled for SGD and Adam (g + wd x p), decoupled for AdamW
// (p x (1 - lr x wd) before the step).
class NoWeightDecay : public ::testing::TestWithParam<std::string> {};

TEST_P(NoWeightDecay, ExcludedParametersGetNone) {
  OptimizerConfig config;
  config.kind = GetParam();
  config.lr = 0.1;
  config.weightDecay = 0.5;
  Optimizer optimizer(config);
  HostServices services("strategy/test", {});
  services.bind(nullptr, &optimizer);
  dtb_param_t decayed{}, excluded{};
  decayed.index = 0;
  excluded.index = 1;
  excluded.flags = DTB_PARAM_FLAG_NO_WEIGHT_DECAY;
  dtb_param_t* params[] = {&decayed, &excluded};
  services.describeParams(params, 2);
  const dtb_host_t* host = services.table();

  const double lr = config.lr, wd = config.weightDecay, b1 = config.beta1, b2 = config.beta2;
  const double p0 = 2.0;
  const std::vector<double> grads = {0.25, -0.5, 0.75};
  // PyTorch's update, in double, one parameter, `decay` its group's weight_decay.
  auto torch = [&](double decay) {
    double p = p0, m = 0, v = 0;
    for (size_t t = 1; t <= grads.size(); ++t) {
      double g = grads[t - 1];
      if (config.kind == "sgd") {
        p -= lr * (g + decay * p);
        continue;
      }
      if (config.kind == "adamw") {
        p *= 1 - lr * decay;
      } else {
        g += decay * p;
      }
      m = b1 * m + (1 - b1) * g;
      v = b2 * v + (1 - b2) * g * g;
      const double mHat = m / (1 - std::pow(b1, t)), vHat = v / (1 - std::pow(b2, t));
      p -= lr * mHat / (std::sqrt(vHat) + config.eps);
    }
    return p;
  };

  std::vector<float> values = {static_cast<float>(p0), static_cast<float>(p0)};
  std::vector<float> state(2 * optimizer.stateFloats(), 0.0f);
  for (float g : grads) {
    optimizer.beginStep();
    for (uint32_t i = 0; i < 2; ++i) {
      float grad = g;
      dtb_tensor_t value = dtb::hostTensor(&values[i], 1, DTB_DTYPE_F32);
      dtb_tensor_t gradient = dtb::hostTensor(&grad, 1, DTB_DTYPE_F32);
      ASSERT_EQ(
          host->optim_update(host->ctx, &value, &gradient, state.data() + i * optimizer.stateFloats(), i),
          DTB_STATUS_OK);
    }
  }
  EXPECT_NEAR(values[0], torch(wd), 1e-5);
  EXPECT_NEAR(values[1], torch(0.0), 1e-5);
  EXPECT_GT(std::fabs(torch(wd) - torch(0.0)), 1e-3);  // the decay is large enough to tell them apart
}

INSTANTIATE_TEST_SUITE_P(Optimizers, NoWeightDecay, ::testing::Values("sgd", "adam", "adamw"));

TEST(HostServices, OptimUpdateChecksItsParameterIndex) {
  OptimizerConfig config;
  config.weightDecay = 0.5;
  Optimizer optimizer(config);
  HostServices services("strategy/test", {});
  services.bind(nullptr, &optimizer);
  dtb_param_t only{};
  only.flags = DTB_PARAM_FLAG_NO_WEIGHT_DECAY;
  dtb_param_t* params[] = {&only};
  services.describeParams(params, 1);
  const dtb_host_t* host = services.table();
  float value = 1, grad = 0;
  dtb_tensor_t v = dtb::hostTensor(&value, 1, DTB_DTYPE_F32), g = dtb::hostTensor(&grad, 1, DTB_DTYPE_F32);
  EXPECT_EQ(host->optim_update(host->ctx, &v, &g, nullptr, 1), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(services.takeError()->find("param_index 1"), std::string::npos);
  // A flat mix of parameters gets the optimizer's default: decay applies.
  EXPECT_EQ(host->optim_update(host->ctx, &v, &g, nullptr, UINT32_MAX), DTB_STATUS_OK);
  EXPECT_FLOAT_EQ(value, 1.0f - 0.01f * 0.5f);
  EXPECT_EQ(host->optim_update(host->ctx, &v, &g, nullptr, 0), DTB_STATUS_OK);
  EXPECT_FLOAT_EQ(value, 1.0f - 0.01f * 0.5f);  // index 0 is excluded: unchanged by a zero gradient
  EXPECT_EQ(host->optim_update(host->ctx, nullptr, &g, nullptr, 0), DTB_STATUS_INVALID_ARGUMENT);
  services.takeError();
}

// gradient_clipping: optim_check measures the step's global norm (3-4-5:
// 5) and the updates multiply the gradients by max / (norm + 1e-6), as
// clip_grad_norm_; a step under the norm is left alone, and an update
// before the check is refused, since it could not be clipped.
TEST(HostServices, OptimCheckClipsTheGradientsToTheirGlobalNorm) {
  for (const double maxNorm : {1.0, 10.0}) {
    OptimizerConfig config;
    config.lr = 1;
    config.clipNorm = maxNorm;
    Optimizer optimizer(config);
    HostServices services("strategy/test", {});
    services.bind(nullptr, &optimizer);
    std::vector<float> values[2] = {{1, 1}, {1}}, grads[2] = {{3, 0}, {4}};
    dtb_param_t records[2]{};
    dtb_param_t* params[2] = {&records[0], &records[1]};
    for (int i = 0; i < 2; ++i) {
      records[i].index = static_cast<uint32_t>(i);
      records[i].value = dtb::hostTensor(values[i].data(), values[i].size(), DTB_DTYPE_F32);
      records[i].grad = dtb::hostTensor(grads[i].data(), grads[i].size(), DTB_DTYPE_F32);
    }
    services.describeParams(params, 2);
    const dtb_host_t* host = services.table();
    optimizer.beginUpdates();
    EXPECT_EQ(host->optim_update(host->ctx, &records[0].value, &records[0].grad, nullptr, 0),
              DTB_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(services.takeError()->find("with gradient_clipping a strategy calls optim_check"),
              std::string::npos);
    const dtb_tensor_t both[2] = {records[0].grad, records[1].grad};
    int32_t apply = 0;
    ASSERT_EQ(host->optim_check(host->ctx, both, 2, &apply), DTB_STATUS_OK);
    EXPECT_EQ(apply, 1);
    EXPECT_DOUBLE_EQ(optimizer.gradNorm(), 5.0);
    const float factor = maxNorm < 5 ? static_cast<float>(maxNorm / (5.0 + 1e-6)) : 1.0f;
    EXPECT_FLOAT_EQ(optimizer.clipFactor(), factor);
    for (uint32_t i = 0; i < 2; ++i)
      ASSERT_EQ(host->optim_update(host->ctx, &records[i].value, &records[i].grad, nullptr, i),
                DTB_STATUS_OK);
    // SGD at lr 1: the clipped gradient (3, 0, 4) x factor, subtracted.
    EXPECT_FLOAT_EQ(values[0][0], 1.0f - 3.0f * factor);
    EXPECT_FLOAT_EQ(values[0][1], 1.0f);
    EXPECT_FLOAT_EQ(values[1][0], 1.0f - 4.0f * factor);
    if (maxNorm < 5) {
      EXPECT_NEAR(std::hypot(3.0f * factor, 4.0f * factor), maxNorm, 1e-5);
    }
  }
}

}  // namespace
}  // namespace dtb::core
