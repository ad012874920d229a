// What one collective sweep measures (dtbench comm), in the spirit of
// nccl-tests: which collectives and dtypes, sizes from -b to -e growing by
// -f, warm-up and timed iterations, and whether to check the results. It
// travels to the workers inside the run spec.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dtbench/dtbench.h"

namespace dtb::core {

// The most warm-up or timed calls per size (nccl-tests' default is 20).
constexpr int64_t kMaxSweepIterations = 1000000;
// The largest message size a sweep takes (-e, max_bytes).
constexpr int64_t kMaxSweepBytes = 1000000000000;

struct SweepSpec {
  std::vector<std::string> ops = {"allreduce", "reduce_scatter", "allgather", "broadcast"};
  std::vector<std::string> dtypes = {"float"};  // nccl-tests' names: float, half, bfloat16, ...
  std::string reduceOp = "sum";                 // sum | avg | max | min (no prod: the ABI has none)
  int64_t minBytes = 4 << 10;
  int64_t maxBytes = 64 << 20;
  double factor = 2;
  int64_t warmup = 5;
  int64_t iterations = 20;
  bool check = true;  // count wrong elements after the timed iterations (#wrong)

  // minBytes, minBytes x factor, ... up to maxBytes. Throws
  // std::invalid_argument when the settings make no sense.
  std::vector<int64_t> sizes() const;
  // Throws std::invalid_argument naming the first bad setting.
  void validate() const;

  toml::table toToml() const;
  // Reads the keys present (others keep their defaults); throws
  // std::invalid_argument naming a key of the wrong type or an unknown one.
  static SweepSpec fromToml(const toml::table& table);
};

// "4K", "64M", "1G" (powers of 1024) or plain bytes; throws
// std::invalid_argument for anything else.
int64_t parseSize(const std::string& text);
// 4096 -> "4K", 67108864 -> "64M"; other values in bytes.
std::string formatSize(int64_t bytes);

// nccl-tests' dtype names (float, double, half, bfloat16, int32, int64,
// int8, uint8) and ours (f32, f16, ...); throws std::invalid_argument.
dtb_dtype_t sweepDtype(const std::string& name);
// The nccl-tests name of `dtype`, the word -d takes ("float" for f32).
std::string sweepDtypeWord(dtb_dtype_t dtype);
// `names` with "all" (nccl-tests' -d all) replaced by every dtype the
// sweep knows, each name kept once.
std::vector<std::string> expandDtypes(const std::vector<std::string>& names);
// nccl-tests' op words -o takes; throws std::invalid_argument for one the
// plugin ABI has no reduction for (prod), or an unknown one.
dtb_reduce_op_t sweepReduceOp(const std::string& name);

// Bus bandwidth factor of `op` at `world` ranks (nccl-tests' definitions).
double busFactor(const std::string& op, int world);

}  // namespace dtb::core
