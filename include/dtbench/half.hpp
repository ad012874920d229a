// half.hpp — optional C++ helpers: IEEE binary16 (fp16) and bfloat16 stored
// in uint16_t, converted from float with round-to-nearest-even (as CUDA's
// __float2half_rn and PyTorch's .to(torch.float16 / torch.bfloat16) round),
// back to float exactly. Header-only; for backends that reduce half-precision
// buffers and strategies that compress gradients.
#ifndef DTBENCH_HALF_HPP
#define DTBENCH_HALF_HPP

#include <cstdint>
#include <cstring>

namespace dtb {

inline uint16_t floatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof(x));
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mantissa = x & 0x7fffffu;
  const int32_t exponent = static_cast<int32_t>((x >> 23) & 0xffu);
  if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));  // inf, NaN
  const int32_t e = exponent - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // too large: infinity
  if (e <= 0) {                                                 // subnormal or zero
    if (e < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // a carry may reach infinity: correct
  return static_cast<uint16_t>(sign | half);
}

inline float halfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu, mantissa = half & 0x3ffu, x;
  if (exponent == 0x1f) {
    x = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    if (mantissa == 0) {
      x = sign;
    } else {  // subnormal: normalise
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400u)) {
        mantissa <<= 1;
        --exponent;
      }
      x = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &x, sizeof(value));
  return value;
}

// Round to nearest even; a NaN stays a (quiet) NaN. Without a branch, so a
// loop over it vectorizes (mixed precision rounds every gradient and
// parameter each step: core/train/precision.cpp).
inline uint16_t floatToBfloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof(x));
  const uint32_t nearestEven = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const uint32_t quietNan = (x >> 16) | 0x40u;
  return static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quietNan : nearestEven);
}

inline float bfloat16ToFloat(uint16_t value) {
  const uint32_t x = static_cast<uint32_t>(value) << 16;
  float f;
  std::memcpy(&f, &x, sizeof(f));
  return f;
}

}  // namespace dtb

#endif  // DTBENCH_HALF_HPP
