// The fused optimizer's tables (multi_tensor_table.h), packed on the host:
// tensors in order, at most kCapacity a table, empty ones left out, and
// every element found in its tensor. The kernels that read them run in
// gpu_optimizer_test.cpp, on a GPU.
#include "cuda/multi_tensor_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace dtb::core {
namespace {

TEST(MultiTensorTable, PacksInOrderIntoTablesOfAtMostItsCapacity) {
  // 150 slices, every tenth empty: 135 tensors, in tables of 64, 64, 7.
  std::vector<float> params(150), grads(150), states(150);
  std::vector<MultiTensorSlice> slices;
  for (int i = 0; i < 150; ++i)
    slices.push_back({&params[i], &grads[i], &states[i], i % 10 == 0 ? 0u : uint64_t(i), float(i) / 100});
  const std::vector<MultiTensorTable> tables = packMultiTensorTables(slices);
  ASSERT_EQ(tables.size(), 3u);
  EXPECT_EQ(tables[0].size, MultiTensorTable::kCapacity);
  EXPECT_EQ(tables[1].size, MultiTensorTable::kCapacity);
  EXPECT_EQ(tables[2].size, 135 - 2 * MultiTensorTable::kCapacity);
  int next = 0;
  for (const MultiTensorTable& t : tables) {
    uint64_t elements = 0;
    for (uint32_t k = 0; k < t.size; ++k, ++next) {
      if (next % 10 == 0) ++next;  // the empty ones are not there
      EXPECT_EQ(t.param[k], &params[next]);
      EXPECT_EQ(t.grad[k], &grads[next]);
      EXPECT_EQ(t.state[k], &states[next]);
      EXPECT_FLOAT_EQ(t.weightDecay[k], float(next) / 100);
      EXPECT_EQ(t.begin(k), elements);
      EXPECT_EQ(t.count(k), uint64_t(next));
      elements += next;
    }
    EXPECT_EQ(t.elements(), elements);
  }
  EXPECT_EQ(next, 150);
  EXPECT_TRUE(packMultiTensorTables({}).empty());
  EXPECT_TRUE(packMultiTensorTables({{nullptr, nullptr, nullptr, 0, 0}}).empty());
}

TEST(MultiTensorTable, EveryElementIsFoundInItsTensor) {
  // Sizes that put tensor boundaries at odd places: 1, 2, 3, ... elements.
  std::vector<MultiTensorSlice> slices;
  for (uint64_t n = 1; n <= MultiTensorTable::kCapacity; ++n)
    slices.push_back({nullptr, nullptr, nullptr, n, 0});
  const MultiTensorTable t = packMultiTensorTables(slices).at(0);
  uint32_t expected = 0;
  for (uint64_t i = 0; i < t.elements(); ++i) {
    while (i >= t.end[expected]) ++expected;
    ASSERT_EQ(t.tensorOf(i), expected) << "element " << i;
  }
  EXPECT_EQ(expected, MultiTensorTable::kCapacity - 1);
  const MultiTensorTable one = packMultiTensorTables({{nullptr, nullptr, nullptr, 5, 0}}).at(0);
  for (uint64_t i = 0; i < 5; ++i) EXPECT_EQ(one.tensorOf(i), 0u);
}

}  // namespace
}  // namespace dtb::core
