// include/dtbench/half.hpp: fp16 and bf16 conversions round to nearest even
// and come back exactly.
#include "dtbench/half.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dtb {
namespace {

TEST(Half, EveryFiniteHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    if (((half >> 10) & 0x1f) == 0x1f) continue;  // inf and NaN
    ASSERT_EQ(floatToHalf(halfToFloat(half)), half) << std::hex << h;
  }
}

TEST(Half, KnownValuesAndRoundingToEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);                          // the largest half
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);                          // rounds up to infinity
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));             // the smallest subnormal
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // halfway: to even (down)
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // halfway: to even (up)
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -26)), 0x0000);             // below half the smallest subnormal
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Bfloat16, RoundsToNearestEvenAndKeepsTheExponentRange) {
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBfloat16(3.0e38f) & 0x7f80, 0x7f00);                 // fp32's exponent range, unlike fp16
  EXPECT_EQ(floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // halfway: to even (down)
  EXPECT_EQ(floatToBfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // halfway: to even (up)
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t v = static_cast<uint16_t>(b);
    if (((v >> 7) & 0xff) == 0xff) continue;
    ASSERT_EQ(floatToBfloat16(bfloat16ToFloat(v)), v) << std::hex << b;
  }
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBfloat16(std::numeric_limits<float>::quiet_NaN()))));
}

}  // namespace
}  // namespace dtb
