#include "sweep/memory_bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace dtb::core {

double memcpyGbps(int64_t bytes, int repetitions) {
  std::vector<char> source(static_cast<size_t>(bytes), 1), target(static_cast<size_t>(bytes), 0);
  std::memcpy(target.data(), source.data(), source.size());
  std::vector<double> rates;
  for (int r = 0; r < repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(target.data(), source.data(), source.size());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(static_cast<double>(bytes) / std::max(s, 1e-9) / 1e9);
    source[static_cast<size_t>(r) % source.size()] = static_cast<char>(target[0] + 1);  // no copy is elided
  }
  std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
  return rates[rates.size() / 2];
}

}  // namespace dtb::core
