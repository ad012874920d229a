// Strategies against the host table as the ABI describes it, driven through
// the ABI over real communicators:
//  - an optional service is absent when struct_size does not cover it (an
//    older host) or when it is NULL (a host or harness that does not offer
//    it): strategies that would release the model's storage (param_release)
//    then keep it, and run, instead of calling a NULL pointer;
//  - a failed host call is passed on unchanged: ZeRO's reduce-scatter timing
//    out reports the host's status and message (which rank, the timeout).
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <cstddef>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "host/communicator.h"
#include "plugin/loader.h"
#include "temp_dir.h"
#include "train/optimizer.h"

namespace dtb::core {
namespace {

constexpr const char* kNames[] = {"conv.weight", "fc1.weight", "fc2.weight"};
constexpr uint64_t kCounts[] = {8, 16, 4};

// How the host table handed to create() lacks the optional services.
enum class Table { kNullMembers, kOlderHost };

// Three parameters in three layers, each its own layer's.
struct Params {
  Params() {
    for (uint32_t i = 0; i < 3; ++i) {
      values[i].assign(kCounts[i], 1.0f);
      grads[i].assign(kCounts[i], 0.0f);
      dtb_param_t& p = params[i];
      p.struct_size = sizeof(p);
      p.index = i;
      p.name = kNames[i];
      p.layer = i;
      p.value = {values[i].data(), kCounts[i], DTB_DTYPE_F32, {DTB_DEVICE_HOST, 0}, 1, {int64_t(kCounts[i])}};
      p.grad = {grads[i].data(), kCounts[i], DTB_DTYPE_F32, {DTB_DEVICE_HOST, 0}, 1, {int64_t(kCounts[i])}};
      views[i] = &params[i];
    }
    setup.struct_size = sizeof(setup);
    setup.params = views;
    setup.param_count = 3;
    setup.layer_count = 3;
    setup.device = {DTB_DEVICE_HOST, 0};
    setup.accumulation_steps = 1;
  }
  std::vector<float> values[3], grads[3];
  dtb_param_t params[3]{};
  dtb_param_t* views[3];
  dtb_strategy_setup_t setup{};
};

std::unique_ptr<Communicator> connect(PluginLoader& loader, const std::string& backend, int rank, int world,
                                      const std::string& store, std::chrono::milliseconds collectiveTimeout) {
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.rank = rank;
  rdv.world_size = world;
  rdv.store_path = store.c_str();
  rdv.prefix = "h";
  rdv.bind_address = "127.0.0.1";
  rdv.timeout_ms = 10000;
  return std::make_unique<Communicator>(createBackend(loader.load(PluginKind::kBackend, backend), {}, rdv),
                                        rank, world, collectiveTimeout);
}

// A strategy created through `table`: the instance's own services table,
// with param_release and comm_set_stream NULL, or cut before them.
struct StrategyOverTable {
  StrategyOverTable(PluginLoader& loader, const std::string& name, const ParamValues& params, Params& p,
                    Communicator* comm, Optimizer* optimizer, Table kind)
      : instance(loader.load(PluginKind::kStrategy, name), params) {  // `table` is filled below
    instance.services().bind(comm, optimizer);
    table = *instance.host();
    if (kind == Table::kNullMembers) {
      table.param_release = nullptr;
      table.comm_set_stream = nullptr;
      table.comm_waited = nullptr;
    } else {
      table.struct_size = offsetof(dtb_host_t, param_release);  // a 1.1 host
    }
    void* context = nullptr;
    instance.check("create", api().create(&table, &p.setup, &context));
    instance.adopt(context, api().destroy);
  }
  const dtb_strategy_plugin_v1_t& api() const {
    return instance.plugin().descriptor<dtb_strategy_plugin_v1_t>();
  }
  // One step: forward's and backward's layer hooks, each gradient filled with
  // its index + 1 and reported, finish_backward, step.
  void step(Params& p) {
    void* s = instance.context();
    dtb_step_info_t info{sizeof(info), 0, 0, 0, 1};
    if (api().before_forward) instance.check("before_forward", api().before_forward(s, &info));
    for (uint32_t l = 0; l < 3 && api().layer_begin; ++l)
      instance.check("layer_begin", api().layer_begin(s, l, DTB_PASS_FORWARD));
    for (uint32_t l = 3; l-- > 0;) {
      if (api().layer_begin) instance.check("layer_begin", api().layer_begin(s, l, DTB_PASS_BACKWARD));
      auto* g = static_cast<float*>(p.params[l].grad.data);
      for (uint64_t k = 0; k < kCounts[l]; ++k) g[k] = static_cast<float>(l + 1);
      if (api().grad_ready) instance.check("grad_ready", api().grad_ready(s, &p.params[l]));
    }
    instance.check("finish_backward", api().finish_backward(s));
    instance.check("step", api().step(s));
  }
  // Every parameter as a forward pass sees it (through layer_begin).
  std::vector<float> values(Params& p) {
    std::vector<float> out;
    for (uint32_t l = 0; l < 3; ++l) {
      if (api().layer_begin)
        instance.check("layer_begin", api().layer_begin(instance.context(), l, DTB_PASS_FORWARD));
      const auto* v = static_cast<const float*>(p.params[l].value.data);
      out.insert(out.end(), v, v + kCounts[l]);
    }
    return out;
  }

  dtb_host_t table{};  // outlives the strategy, which holds it
  PluginInstance instance;
};

class WithoutOptionalServices : public ::testing::TestWithParam<std::tuple<const char*, Table>> {};

TEST_P(WithoutOptionalServices, StrategiesKeepTheModelsStorageAndTrain) {
  const std::string spec = std::get<0>(GetParam());
  const std::string name = spec.substr(0, spec.find(':'));
  ParamValues params;
  if (spec == "bucketed:view") params = {{"gradient_as_bucket_view", true}};
  if (spec.rfind("zero:", 0) == 0) params = {{"stage", int64_t{spec.back() - '0'}}};
  testing::TempDir store;
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR, DTBENCH_TEST_PLUGIN_DIR}));
  auto comm = connect(loader, "single", 0, 1, store.path().string(), std::chrono::seconds(5));
  Optimizer optimizer({"sgd", 0.1, 0.0, false, 0.0});
  Params p;
  StrategyOverTable strategy(loader, name, params, p, comm.get(), &optimizer, std::get<1>(GetParam()));
  strategy.step(p);
  // One rank, SGD at 0.1 on gradients of index + 1 from values of 1.
  const std::vector<float> values = strategy.values(p);
  size_t at = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    for (uint64_t k = 0; k < kCounts[i]; ++k, ++at)
      ASSERT_FLOAT_EQ(values[at], 1.0f - 0.1f * static_cast<float>(i + 1)) << kNames[i] << "[" << k << "]";
  }
  // The model kept its storage: nothing was released.
  for (const auto& event : strategy.instance.services().events()) {
    if (event.kind == "zero") {
      EXPECT_NE(event.detail.find("the model keeps its own"), std::string::npos) << event.detail;
    }
  }
}

std::string caseName(const ::testing::TestParamInfo<std::tuple<const char*, Table>>& param) {
  std::string name = std::get<0>(param.param);
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name + (std::get<1>(param.param) == Table::kNullMembers ? "_null" : "_older");
}

INSTANTIATE_TEST_SUITE_P(Strategies, WithoutOptionalServices,
                         ::testing::Combine(::testing::Values("bucketed:view", "zero:1", "zero:2", "zero:3"),
                                            ::testing::Values(Table::kNullMembers, Table::kOlderHost)),
                         caseName);

// Two ranks of ZeRO over Gloo, collectives timing out after 300 ms: rank 0
// runs `step` on its strategy and parameters; rank 1 is connected but never
// joins a collective, and leaves once rank 0 is done.
void zeroWithASilentPeer(const ParamValues& settings,
                         const std::function<void(PluginInstance& strategy, Params& p)>& step) {
  testing::TempDir store;
  std::atomic<bool> rank0Done{false};
  auto rank = [&](int r) {
    PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
    auto comm = connect(loader, "gloo", r, 2, store.path().string(), std::chrono::milliseconds(300));
    Optimizer optimizer({"sgd", 0.1, 0.0, false, 0.0});
    Params p;
    auto strategy =
        createStrategy(loader.load(PluginKind::kStrategy, "zero"), settings, p.setup, comm.get(), &optimizer);
    if (r == 0) {
      step(*strategy, p);
      rank0Done = true;
    } else {
      while (!rank0Done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  std::thread t1(rank, 1);
  rank(0);
  t1.join();
}

// Rank 0 steps; rank 1 never joins the reduce-scatter. The step fails with
// the host's own status and message, not one of ZeRO's.
TEST(ZeroStrategy, AReduceScatterThatTimesOutReportsTheHostsError) {
  dtb_status_t status = DTB_STATUS_OK;
  std::string error;
  // Stage 1 with one unit per parameter: three reduce-scatters in
  // finish_backward, each timing out, the first failure passed on.
  zeroWithASilentPeer({{"stage", int64_t{1}}, {"reduce_bucket_size", int64_t{5}}},
                      [&](PluginInstance& strategy, Params& p) {
                        try {
                          const auto& api = strategy.plugin().descriptor<dtb_strategy_plugin_v1_t>();
                          dtb_step_info_t info{sizeof(info), 0, 0, 0, 1};
                          strategy.check("before_forward", api.before_forward(strategy.context(), &info));
                          for (uint32_t l = 3; l-- > 0;)
                            strategy.check("grad_ready", api.grad_ready(strategy.context(), &p.params[l]));
                          strategy.check("finish_backward", api.finish_backward(strategy.context()));
                        } catch (const PluginCallError& e) {
                          status = e.status();
                          error = e.what();
                        }
                      });
  EXPECT_EQ(status, DTB_STATUS_TIMEOUT) << error;
  // The host's message, whole: the backend and rank, what did not finish.
  EXPECT_NE(error.find("finish_backward failed (timeout)"), std::string::npos) << error;
  EXPECT_NE(error.find("on rank 0: "), std::string::npos) << error;
  EXPECT_NE(error.find("not finished after 300 ms"), std::string::npos) << error;
}

// Stage 2 keeps at most two reductions in flight: before a third unit is
// staged, the oldest is waited for. When that wait times out, backward stops
// there, at the hook, with the host's error: it does not run on issuing
// collectives the other ranks never see, nor hand the failed reduction's
// buffer to the next layer while the collective may still write it.
TEST(ZeroStrategy, AReductionThatTimesOutInBackwardStopsItAtTheHook) {
  std::vector<std::string> failed;  // the calls that failed, in order
  dtb_status_t status = DTB_STATUS_OK;
  zeroWithASilentPeer({{"stage", int64_t{2}}, {"reduce_bucket_size", int64_t{5}}},
                      [&](PluginInstance& strategy, Params& p) {
                        const auto& api = strategy.plugin().descriptor<dtb_strategy_plugin_v1_t>();
                        auto call = [&](const char* what, dtb_status_t s) {
                          try {
                            strategy.check(what, s);
                          } catch (const PluginCallError& e) {
                            failed.push_back(what);
                            if (status == DTB_STATUS_OK) status = e.status();
                          }
                        };
                        dtb_step_info_t info{sizeof(info), 0, 0, 0, 1};
                        call("before_forward", api.before_forward(strategy.context(), &info));
                        for (uint32_t l = 3; l-- > 0 && failed.empty();) {
                          call("layer_begin", api.layer_begin(strategy.context(), l, DTB_PASS_BACKWARD));
                          if (failed.empty())
                            call("grad_ready", api.grad_ready(strategy.context(), &p.params[l]));
                        }
                        call("finish_backward", api.finish_backward(strategy.context()));
                      });
  EXPECT_EQ(status, DTB_STATUS_TIMEOUT);
  // The third layer's layer_begin waits for the first reduction: it fails
  // there, and finish_backward reports the step's failure again.
  EXPECT_EQ(failed, (std::vector<std::string>{"layer_begin", "finish_backward"}));
}

}  // namespace
}  // namespace dtb::core
