// The header-only strategy helpers (include/dtbench/*.hpp) against a fake
// host table: memory goes back to the host, settings describe themselves
// and read their values, every collective is waited for exactly once even
// after a failure, accumulation hands on the mean, arrivals are checked.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dtbench/accumulation.hpp"
#include "dtbench/host_buffer.hpp"
#include "dtbench/optimizer_state.hpp"
#include "dtbench/param_set.hpp"
#include "dtbench/requests.hpp"
#include "dtbench/settings.hpp"
#include "dtbench/strategy.hpp"
#include "dtbench/wait_mark.hpp"

namespace dtb {
namespace {

// One fake host at a time: the table's functions reach it through a global.
struct FakeHost {
  std::map<void*, uint64_t> live;  // allocations not yet freed
  std::map<std::string, int64_t> ints;
  std::string lastError;
  int issued = 0, waited = 0;
  int failIssueAt = -1;                                  // comm_allreduce number that fails to start
  std::set<int> failWaitOf;                              // requests whose wait fails
  std::vector<std::pair<int64_t, int64_t>> waitedSpans;  // comm_waited's
  int64_t clock = 0;
  std::map<void*, dtb_device_t> placed;  // each allocation's device
  int tensorCopies = 0;
  int updateManyCalls = 0;  // optim_update_many's, and the slices they carried
  uint32_t updateManySlices = 0;
  dtb_host_t table{};
};
FakeHost* fake = nullptr;

// Zeroed, as the host's GPU memory is; a "GPU" here is host memory that only
// tensor_copy may touch.
dtb_status_t fakeAlloc(dtb_host_ctx_t, uint64_t bytes, dtb_device_t device, dtb_mem_category_t, void** out) {
  *out = bytes ? ::operator new(bytes) : nullptr;
  if (*out) {
    std::memset(*out, 0, bytes);
    fake->live[*out] = bytes;
    fake->placed[*out] = device;
  }
  return DTB_STATUS_OK;
}
// The host's tensor_copy on f32: dst = scale * src (+ dst), or zeros.
dtb_status_t fakeTensorCopy(dtb_host_ctx_t, const dtb_tensor_t* dst, uint64_t dstOffset,
                            const dtb_tensor_t* src, uint64_t srcOffset, uint64_t count, float scale,
                            int32_t accumulate) {
  ++fake->tensorCopies;
  const bool crossing = src && src->device.type != dst->device.type;
  EXPECT_TRUE(dst->device.type == DTB_DEVICE_CUDA || crossing)
      << "host memory alone is the helpers' own work";
  EXPECT_TRUE(!crossing || (scale == 1.0f && !accumulate)) << "between host and GPU: plain copies only";
  EXPECT_LE(dstOffset + count, dst->count);
  auto* to = static_cast<float*>(dst->data) + dstOffset;
  for (uint64_t k = 0; k < count; ++k) {
    const float v = src ? scale * static_cast<const float*>(src->data)[srcOffset + k] : 0.0f;
    to[k] = accumulate ? to[k] + v : v;
  }
  return DTB_STATUS_OK;
}
void fakeFree(dtb_host_ctx_t, void* p) {
  if (!p) return;
  EXPECT_EQ(fake->live.erase(p), 1u) << "freed twice or never allocated";
  ::operator delete(p);
}
void fakeSetError(dtb_host_ctx_t, const char* message) { fake->lastError = message; }
dtb_status_t fakeConfigInt(dtb_host_ctx_t, const char* key, int64_t* out) {
  auto it = fake->ints.find(key);
  if (it == fake->ints.end()) return DTB_STATUS_NOT_FOUND;
  *out = it->second;
  return DTB_STATUS_OK;
}
dtb_status_t fakeAllreduce(dtb_host_ctx_t, dtb_tensor_t*, dtb_reduce_op_t, dtb_request_t* out) {
  const int n = fake->issued++;
  if (n == fake->failIssueAt) return DTB_STATUS_COMM_FAILURE;
  *out = reinterpret_cast<dtb_request_t>(static_cast<intptr_t>(n + 1));
  return DTB_STATUS_OK;
}
dtb_status_t fakeWait(dtb_host_ctx_t, dtb_request_t request, int64_t) {
  ++fake->waited;
  const int n = static_cast<int>(reinterpret_cast<intptr_t>(request)) - 1;
  return fake->failWaitOf.count(n) ? DTB_STATUS_TIMEOUT : DTB_STATUS_OK;
}
int64_t fakeNow(dtb_host_ctx_t) { return fake->clock += 10; }
void fakeWaited(dtb_host_ctx_t, int64_t begin, int64_t end) { fake->waitedSpans.emplace_back(begin, end); }
uint32_t stateFloats = 2;  // Adam-like; 0 is plain SGD
uint32_t fakeStateFloats(dtb_host_ctx_t) { return stateFloats; }
dtb_status_t fakeUpdate(dtb_host_ctx_t, dtb_tensor_t* param, const dtb_tensor_t* grad, float* state,
                        uint32_t) {
  auto* v = static_cast<float*>(param->data);
  const auto* g = static_cast<const float*>(grad->data);
  for (uint64_t k = 0; k < param->count; ++k) {
    state[2 * k] += 1;  // the state is this parameter's own, and persists
    v[k] -= g[k] * state[2 * k];
  }
  return DTB_STATUS_OK;
}

// optim_update_many (ABI 1.12): fakeUpdate of each slice, counted.
dtb_status_t fakeUpdateMany(dtb_host_ctx_t ctx, dtb_tensor_t* params, const dtb_tensor_t* grads,
                            float* const* states, const uint32_t* indices, uint32_t count) {
  ++fake->updateManyCalls;
  fake->updateManySlices += count;
  for (uint32_t i = 0; i < count; ++i) fakeUpdate(ctx, &params[i], &grads[i], states[i], indices[i]);
  return DTB_STATUS_OK;
}

class StrategySdk : public ::testing::Test {
 protected:
  StrategySdk() {
    fake = &host_;
    dtb_host_t& t = host_.table;
    t.struct_size = sizeof(t);
    t.alloc = fakeAlloc;
    t.free = fakeFree;
    t.set_error = fakeSetError;
    t.config_get_int = fakeConfigInt;
    t.comm_allreduce = fakeAllreduce;
    t.comm_wait = fakeWait;
    t.optim_state_floats = fakeStateFloats;
    t.optim_update = fakeUpdate;
    t.now_ns = fakeNow;
    t.tensor_copy = fakeTensorCopy;
    for (uint32_t i = 0; i < 2; ++i) {
      values_[i].assign(3, 1.0f);
      grads_[i].assign(3, 0.0f);
      params_[i].name = i == 0 ? "w" : "b";
      params_[i].index = i;
      params_[i].value = hostTensor(values_[i].data(), 3, DTB_DTYPE_F32);
      params_[i].grad = hostTensor(grads_[i].data(), 3, DTB_DTYPE_F32);
      pointers_[i] = &params_[i];
    }
    setup_.struct_size = sizeof(setup_);
    setup_.params = pointers_;
    setup_.param_count = 2;
    setup_.accumulation_steps = 1;
  }
  ~StrategySdk() override {
    EXPECT_TRUE(host_.live.empty()) << host_.live.size() << " allocations never freed";
    fake = nullptr;
  }
  const dtb_host_t* host() const { return &host_.table; }

  FakeHost host_;
  std::vector<float> values_[2], grads_[2];
  dtb_param_t params_[2]{};
  dtb_param_t* pointers_[2]{};
  dtb_strategy_setup_t setup_{};
};

TEST_F(StrategySdk, HostBuffersAreZeroedCountedAndGivenBack) {
  HostBuffer<float> a(host(), 5, DTB_MEM_OPTIMIZER);
  EXPECT_EQ(a.bytes(), 20u);
  EXPECT_EQ(std::vector<float>(a.begin(), a.end()), std::vector<float>(5, 0.0f));
  HostBuffer<float> b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(host_.live.size(), 1u);
  b = HostBuffer<float>(host(), 7, DTB_MEM_BUFFERS);  // the old memory goes back
  EXPECT_EQ(host_.live.size(), 1u);
  EXPECT_EQ(host_.live.begin()->second, 28u);
  EXPECT_TRUE(HostBuffer<float>(host(), 0, DTB_MEM_BUFFERS).empty());
}

TEST_F(StrategySdk, ASettingIsItsOwnSpecAndReadsItsValue) {
  constexpr IntSetting kEvery{"sync_every", "4", "Steps between averages", between(1, 100)};
  constexpr dtb_param_spec_t spec = kEvery.spec();
  EXPECT_EQ(spec.struct_size, sizeof(dtb_param_spec_t));
  EXPECT_STREQ(spec.name, "sync_every");
  EXPECT_EQ(spec.type, DTB_PARAM_INT);
  EXPECT_STREQ(spec.default_value, "4");
  EXPECT_EQ(spec.flags, DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX);
  EXPECT_EQ(spec.max_value, 100);
  host_.ints["sync_every"] = 8;
  EXPECT_EQ(kEvery.get(host()), 8);
  constexpr IntSetting kMissing{"missing", "1", "Not given to the fake host"};
  try {
    kMissing.get(host());
    FAIL() << "a failed lookup returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_NOT_FOUND);
    EXPECT_STREQ(e.what(), "missing");
  }
}

TEST_F(StrategySdk, EveryRequestIsWaitedForOnceAndTheFirstFailureThrown) {
  Requests requests(host());
  host_.failWaitOf = {1};
  for (int i = 0; i < 3; ++i) {
    requests.issue("allreduce", [&](dtb_request_t* r) {
      return host()->comm_allreduce(host()->ctx, nullptr, DTB_REDUCE_SUM, r);
    });
  }
  std::vector<dtb_status_t> seen;
  try {
    requests.waitAll([&](size_t, dtb_status_t s) { seen.push_back(s); });
    FAIL() << "a failed wait was not thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_TIMEOUT);
  }
  EXPECT_EQ(host_.waited, 3) << "the requests after the failed one were not waited for";
  EXPECT_EQ(seen, (std::vector<dtb_status_t>{DTB_STATUS_OK, DTB_STATUS_TIMEOUT, DTB_STATUS_OK}));
}

TEST_F(StrategySdk, AFailedStartStopsIssuingAndTheStartedOnesAreStillWaited) {
  host_.failIssueAt = 1;
  {
    Requests requests(host());
    for (int i = 0; i < 3; ++i) {
      requests.issue("allreduce", [&](dtb_request_t* r) {
        return host()->comm_allreduce(host()->ctx, nullptr, DTB_REDUCE_SUM, r);
      });
    }
    EXPECT_EQ(host_.issued, 2) << "issued on after a failure: the ranks' collective order would diverge";
    EXPECT_THROW(requests.waitAll(), Error);
    EXPECT_EQ(host_.waited, 1);
  }
  {  // Abandoned: the destructor waits.
    host_.failIssueAt = -1;
    Requests requests(host());
    requests.issue("allreduce", [&](dtb_request_t* r) {
      return host()->comm_allreduce(host()->ctx, nullptr, DTB_REDUCE_SUM, r);
    });
  }
  EXPECT_EQ(host_.waited, 2);
}

TEST_F(StrategySdk, TheOldestRequestIsWaitedForFirstAndItsFailureKeptForWaitAll) {
  Requests requests(host());
  host_.failWaitOf = {0};
  auto issue = [&] {
    requests.issue("reduce", [&](dtb_request_t* r) {
      return host()->comm_allreduce(host()->ctx, nullptr, DTB_REDUCE_SUM, r);
    });
  };
  issue();
  issue();
  EXPECT_EQ(requests.waitOldest(), DTB_STATUS_TIMEOUT);
  EXPECT_EQ(requests.size(), 1u);
  issue();  // after a failure nothing more starts
  EXPECT_EQ(host_.issued, 2);
  EXPECT_EQ(requests.waitOldest(), DTB_STATUS_OK);
  EXPECT_EQ(requests.waitOldest(), DTB_STATUS_OK) << "none left: nothing to wait for";
  EXPECT_EQ(host_.waited, 2);
  EXPECT_THROW(requests.waitAll(), Error);  // the kept failure
  issue();                                  // ... and then a new round starts
  EXPECT_EQ(host_.issued, 3);
  requests.waitAll();
}

TEST_F(StrategySdk, ParamSetAndArrivalsNameWhatIsWrong) {
  ParamSet params("mine", setup_);
  EXPECT_EQ(params.elements(), 6u);
  GradArrivals arrived(params);
  EXPECT_EQ(arrived.arrive(&params_[1]), 1u);
  EXPECT_THROW(arrived.arrive(&params_[1]), Error);  // twice
  dtb_param_t stranger = params_[0];
  EXPECT_THROW(arrived.arrive(&stranger), Error);
  EXPECT_EQ(arrived.missing(), "w");
  try {
    arrived.requireAll("Use them all.");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "mine: these parameters received no gradient in this step: w. Use them all.");
  }
  arrived.reset();
  EXPECT_EQ(arrived.missing(), "w, b");
  params_[1].grad.dtype = DTB_DTYPE_F16;
  EXPECT_THROW(ParamSet("mine", setup_), Error);
}

TEST_F(StrategySdk, AccumulationHandsOnTheMeanOfTheMicroBatches) {
  ParamSet params("mine", setup_);
  GradAccumulator sums(host(), params, 2);
  EXPECT_EQ(sums.bytes(), 24u);
  dtb_step_info_t step{sizeof(step), 0, 0, 0, 2};
  sums.beforeForward(step);
  EXPECT_FALSE(sums.lastMicroStep());
  grads_[0] = {1, 2, 3};
  sums.add(0);
  step.micro_step = 1;
  sums.beforeForward(step);
  EXPECT_TRUE(sums.lastMicroStep());
  grads_[0] = {3, 4, 5};
  sums.takeSum(0, grads_[0].data(), 0.5f);
  EXPECT_EQ(grads_[0], (std::vector<float>{2, 3, 4}));
  sums.takeSum(0, grads_[0].data(), 0.5f, /*withGradient=*/false);  // the sum started again
  EXPECT_EQ(grads_[0], (std::vector<float>{0, 0, 0}));
}

// On a GPU the sums are GPU memory and every step of the sum goes through
// the host's tensor_copy (here a fake GPU: host memory only it touches).
TEST_F(StrategySdk, AccumulationOnAGpuSumsInGpuMemoryThroughTensorCopy) {
  for (dtb_param_t& p : params_) p.grad.device = p.value.device = {DTB_DEVICE_CUDA, 1};
  ParamSet params("mine", setup_, ParamSet::Place::kHostOrGpu);
  GradAccumulator sums(host(), params, 3);
  ASSERT_EQ(host_.placed.size(), 2u);
  for (const auto& [memory, device] : host_.placed) {
    EXPECT_EQ(device.type, DTB_DEVICE_CUDA);
    EXPECT_EQ(device.index, 1);
  }
  dtb_step_info_t step{sizeof(step), 0, 0, 0, 3};
  for (const std::vector<float>& gradient : {std::vector<float>{1, 2, 3}, std::vector<float>{3, 4, 5}}) {
    sums.beforeForward(step);
    grads_[0] = gradient;
    sums.add(0);
    ++step.micro_step;
  }
  sums.beforeForward(step);
  ASSERT_TRUE(sums.lastMicroStep());
  grads_[0] = {5, 0, 1};
  const int before = host_.tensorCopies;
  sums.takeSum(0, grads_[0].data(), 1.0f / 3);
  EXPECT_EQ(host_.tensorCopies - before, 3) << "add, the mean into the gradient, the sum zeroed";
  EXPECT_EQ(grads_[0], (std::vector<float>{3, 2, 3}));
  sums.takeSum(0, grads_[0].data(), 1.0f, /*withGradient=*/false);  // the sum started again
  EXPECT_EQ(grads_[0], (std::vector<float>{0, 0, 0}));
  sums.takeSum(1, grads_[1].data(), 1.0f);  // nothing added: the gradient itself
  EXPECT_EQ(grads_[1], (std::vector<float>{0, 0, 0}));
}

// Mixed precision of a model on a GPU: the strategies that work on GPU
// tensors take bf16 (f16) records there, all on one GPU; one that works on
// the host only, or records spread over devices, are refused by name.
TEST_F(StrategySdk, ParamSetTakesHalfPrecisionRecordsOnOneGpu) {
  for (dtb_param_t& p : params_) {
    p.grad.device = p.value.device = {DTB_DEVICE_CUDA, 2};
    p.grad.dtype = p.value.dtype = DTB_DTYPE_BF16;
  }
  ParamSet onGpu("mine", setup_, ParamSet::Place::kHostOrGpu, ParamSet::Dtypes::kF32OrHalf);
  EXPECT_EQ(onGpu.dtype(), DTB_DTYPE_BF16);
  try {
    ParamSet hostOnly("mine", setup_, ParamSet::Place::kHost, ParamSet::Dtypes::kF32OrHalf);
    FAIL() << "a host-only strategy took GPU records";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a bf16 host tensor"), std::string::npos) << e.what();
  }
  params_[1].grad.device = {DTB_DEVICE_CUDA, 0};
  try {
    ParamSet spread("mine", setup_, ParamSet::Place::kHostOrGpu, ParamSet::Dtypes::kF32OrHalf);
    FAIL() << "records on two GPUs were taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not bf16 on the device of the first"), std::string::npos)
        << e.what();
  }
}

// Checkpoints of GPU training: the state leaves the GPU and comes back
// through tensor_copy (a fake GPU again).
TEST_F(StrategySdk, OptimizerStateOnAGpuIsSavedAndLoadedThroughTensorCopy) {
  for (dtb_param_t& p : params_) p.grad.device = p.value.device = {DTB_DEVICE_CUDA, 0};
  ParamSet params("mine", setup_, ParamSet::Place::kHostOrGpu);
  OptimizerState optimizer(host(), params);
  ASSERT_EQ(optimizer.savedBytes(), 2u * 3 * 2 * sizeof(float));
  grads_[0].assign(3, 1.0f);
  optimizer.update();  // every parameter's state counts 1
  std::vector<float> saved(12, -1.0f);
  optimizer.saveTo(saved.data(), saved.size() * sizeof(float));
  EXPECT_EQ(host_.tensorCopies, 2) << "one copy a parameter";
  EXPECT_EQ(saved, (std::vector<float>{1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}));
  saved[0] = 5;  // loaded, the state counts on from 5 for the first element
  optimizer.loadFrom(saved.data(), saved.size() * sizeof(float));
  values_[0].assign(3, 0.0f);
  optimizer.update();
  EXPECT_EQ(values_[0], (std::vector<float>{-6, -2, -2}));
  EXPECT_THROW(optimizer.saveTo(saved.data(), 8), Error);
}

TEST_F(StrategySdk, OptimizerStateIsPerParameterAndPersists) {
  ParamSet params("mine", setup_);
  OptimizerState optimizer(host(), params);
  EXPECT_EQ(optimizer.bytes(), 6u * 2 * sizeof(float));
  grads_[0].assign(3, 1.0f);
  optimizer.update();
  optimizer.update();
  EXPECT_EQ(values_[0], std::vector<float>(3, 1.0f - 1 - 2));  // the state counted 1, then 2
  EXPECT_EQ(values_[1], std::vector<float>(3, 1.0f));
}

// A host of 1.12 takes a step's updates in one call (a GPU fuses them);
// OptimizerStateIsPerParameterAndPersists, above, runs the same updates one
// by one through an older host's optim_update (optim_update_many NULL).
TEST_F(StrategySdk, OptimizerStateHandsItsUpdatesOverInOneCallWhereTheHostTakesThem) {
  host_.table.optim_update_many = fakeUpdateMany;
  ParamSet params("mine", setup_);
  OptimizerState optimizer(host(), params);
  grads_[0].assign(3, 1.0f);
  optimizer.update();
  optimizer.update();
  EXPECT_EQ(host_.updateManyCalls, 2) << "one call a step";
  EXPECT_EQ(host_.updateManySlices, 4u) << "every parameter in it";
  EXPECT_EQ(values_[0],
            std::vector<float>(3, 1.0f - 1 - 2));  // each state its own parameter's, as one by one
  EXPECT_EQ(values_[1], std::vector<float>(3, 1.0f));
}

// Plain SGD keeps no state: its save is 0 bytes into what may be no buffer
// at all (an elastic commit's), which the sanitizer build holds to the rules.
TEST_F(StrategySdk, AnOptimizerWithoutStateSavesAndLoadsNothing) {
  stateFloats = 0;
  ParamSet params("mine", setup_);
  OptimizerState optimizer(host(), params);
  stateFloats = 2;
  EXPECT_EQ(optimizer.savedBytes(), 0u);
  optimizer.saveTo(nullptr, 0);
  optimizer.loadFrom(nullptr, 0);
}

// An optional service (after 1.0) is absent when struct_size does not cover
// it or when it is NULL: the helpers check both before calling.
TEST_F(StrategySdk, OptionalServicesAreAbsentWhenNullOrNotCovered) {
  dtb_host_t& t = host_.table;
  ASSERT_EQ(t.param_release, nullptr);  // covered by struct_size, but NULL
  EXPECT_FALSE(DTB_HAS_SERVICE(&t, param_release));
  EXPECT_FALSE(releaseModelStorage(&t, {pointers_[0], pointers_[1]}, DTB_PARAM_PART_GRAD));
  { const WaitMark nothing(&t); }  // comm_waited NULL: no call
  t.comm_waited = fakeWaited;
  { const WaitMark once(&t); }
  ASSERT_EQ(host_.waitedSpans.size(), 1u);
  EXPECT_LT(host_.waitedSpans[0].first, host_.waitedSpans[0].second);
  t.struct_size = offsetof(dtb_host_t, comm_waited);  // a 1.5 host: set, but not covered
  EXPECT_FALSE(DTB_HAS_SERVICE(&t, comm_waited));
  { const WaitMark older(&t); }
  EXPECT_EQ(host_.waitedSpans.size(), 1u);
  const dtb_host_t* none = nullptr;
  EXPECT_FALSE(DTB_HAS_SERVICE(none, comm_waited));
}

}  // namespace
}  // namespace dtb
