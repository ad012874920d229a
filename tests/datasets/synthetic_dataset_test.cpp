// The synthetic dataset: deterministic, shaped as asked, labels spread over
// the classes, and classes that differ.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <thread>

#include "data/data_loader.h"
#include "plugin/loader.h"

namespace dtb::core {
namespace {

std::unique_ptr<PluginInstance> open(const ParamValues& params) {
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  return openDataset(loader.load(PluginKind::kDataset, "synthetic"), params);
}

TEST(SyntheticDataset, ShapeAndDeterminism) {
  auto dataset = open({{"shape", std::vector<int64_t>{3, 4, 5}}, {"classes", int64_t{7}}});
  const auto& api = dataset->plugin().descriptor<dtb_dataset_plugin_v1_t>();
  dtb_dataset_info_t info{};
  info.struct_size = sizeof(info);
  dataset->check("info", api.info(dataset->context(), &info));
  EXPECT_EQ(info.sample_ndim, 3);
  EXPECT_EQ(info.sample_shape[2], 5);
  EXPECT_EQ(info.num_classes, 7u);
  const uint64_t indices[] = {3, 9999, 3};
  std::vector<float> x(3 * 60);
  int32_t labels[3];
  dataset->check("read", api.read(dataset->context(), 0, indices, 3, x.data(), labels));
  EXPECT_EQ(labels[0], labels[2]);
  EXPECT_TRUE(std::equal(x.begin(), x.begin() + 60, x.begin() + 120));  // same index, same sample
  EXPECT_FALSE(std::equal(x.begin(), x.begin() + 60, x.begin() + 60));
  // A second instance (another rank) reads the same.
  auto again = open({{"shape", std::vector<int64_t>{3, 4, 5}}, {"classes", int64_t{7}}});
  std::vector<float> y(3 * 60);
  int32_t labels2[3];
  again->check("read", api.read(again->context(), 0, indices, 3, y.data(), labels2));
  EXPECT_EQ(x, y);
}

TEST(SyntheticDataset, LabelsCoverTheClassesAndClassesDiffer) {
  auto dataset = open(
      {{"shape", std::vector<int64_t>{64}}, {"classes", int64_t{4}}, {"separation", 1.0}, {"noise", 0.1}});
  DataLoader loader(*dataset, {0, 100, 2, false}, DistributedSampler({10000, 1, 1, 0, false, false, 0}));
  loader.startEpoch(0);
  std::map<int32_t, std::vector<double>> meanOfClass;
  std::map<int32_t, int> count;
  while (auto batch = loader.next()) {
    for (uint32_t n = 0; n < batch->size; ++n) {
      auto& mean = meanOfClass[batch->labels[n]];
      mean.resize(64);
      for (int e = 0; e < 64; ++e) mean[e] += batch->inputs[n * 64 + e];
      ++count[batch->labels[n]];
    }
  }
  ASSERT_EQ(count.size(), 4u);
  for (const auto& [label, n] : count) EXPECT_NEAR(n, 2500, 250) << label;
  // Class means sit near +-1 per element and differ between classes.
  for (int e = 0; e < 64; ++e) EXPECT_NEAR(std::fabs(meanOfClass[0][e] / count[0]), 1.0, 0.05);
  EXPECT_NE(meanOfClass[0], meanOfClass[1]);
}

TEST(SyntheticDataset, RejectsBadShapes) {
  EXPECT_THROW(open({{"shape", std::vector<int64_t>{3, 0}}}), std::invalid_argument);
}

}  // namespace
}  // namespace dtb::core
