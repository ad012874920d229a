// The host services table as a plugin sees it.
#include "host/host_services.h"

#include <gtest/gtest.h>

#include <thread>

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

  void* gpu = reinterpret_cast<void*>(1);
  EXPECT_EQ(host->alloc(host->ctx, 8, dtb_device_t{DTB_DEVICE_CUDA, 0}, DTB_MEM_PARAMS, &gpu),
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

}  // namespace
}  // namespace dtb::core
