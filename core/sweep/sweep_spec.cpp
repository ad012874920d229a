#include "sweep/sweep_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace dtb::core {
namespace {

const char* const kOps[] = {"allreduce", "reduce_scatter", "allgather", "broadcast"};

// Every dtype, by the word -d takes, in nccl-tests' -d all order (which
// also has uint32 and uint64: the plugin ABI does not).
constexpr dtb_dtype_t kDtypes[] = {DTB_DTYPE_I8,  DTB_DTYPE_U8,  DTB_DTYPE_I32, DTB_DTYPE_I64,
                                   DTB_DTYPE_F16, DTB_DTYPE_F32, DTB_DTYPE_F64, DTB_DTYPE_BF16};

std::vector<std::string> strings(const toml::node& node, const std::string& key) {
  std::vector<std::string> out;
  if (auto one = node.value<std::string>()) return {*one};
  const toml::array* array = node.as_array();
  if (!array) throw std::invalid_argument("[comm] " + key + " must be a string or an array of strings");
  for (const toml::node& element : *array) {
    auto text = element.value<std::string>();
    if (!text) throw std::invalid_argument("[comm] " + key + " must hold strings");
    out.push_back(*text);
  }
  return out;
}

int64_t size(const toml::node& node, const std::string& key) {
  if (auto n = node.value_exact<int64_t>()) return *n;
  if (auto text = node.value<std::string>()) return parseSize(*text);
  throw std::invalid_argument("[comm] " + key + " must be bytes or a size like \"4K\"");
}

int64_t integer(const toml::node& node, const std::string& key) {
  if (auto n = node.value_exact<int64_t>()) return *n;
  throw std::invalid_argument("[comm] " + key + " must be an integer");
}

}  // namespace

int64_t parseSize(const std::string& text) {
  size_t end = 0;
  double value = 0;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception&) {
    throw std::invalid_argument("'" + text + "' is not a size (bytes, or a number with K, M or G)");
  }
  std::string unit = text.substr(end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  if (unit == "K")
    value *= 1024;
  else if (unit == "M")
    value *= 1024.0 * 1024;
  else if (unit == "G")
    value *= 1024.0 * 1024 * 1024;
  else if (!unit.empty())
    throw std::invalid_argument("'" + text + "' is not a size (bytes, or a number with K, M or G)");
  if (value < 1 || value > static_cast<double>(kMaxSweepBytes))
    throw std::invalid_argument("size '" + text + "' is out of range (1 byte to 1e12)");
  return static_cast<int64_t>(std::llround(value));
}

std::string formatSize(int64_t bytes) {
  const char* units[] = {"G", "M", "K"};
  const int64_t scales[] = {int64_t{1} << 30, int64_t{1} << 20, int64_t{1} << 10};
  for (int i = 0; i < 3; ++i) {
    if (bytes >= scales[i] && bytes % scales[i] == 0) return std::to_string(bytes / scales[i]) + units[i];
  }
  return std::to_string(bytes);
}

dtb_dtype_t sweepDtype(const std::string& name) {
  if (name == "float" || name == "f32" || name == "float32") return DTB_DTYPE_F32;
  if (name == "double" || name == "f64" || name == "float64") return DTB_DTYPE_F64;
  if (name == "half" || name == "f16" || name == "float16") return DTB_DTYPE_F16;
  if (name == "bfloat16" || name == "bf16") return DTB_DTYPE_BF16;
  if (name == "int32" || name == "i32") return DTB_DTYPE_I32;
  if (name == "int64" || name == "i64") return DTB_DTYPE_I64;
  if (name == "int8" || name == "i8") return DTB_DTYPE_I8;
  if (name == "uint8" || name == "u8") return DTB_DTYPE_U8;
  throw std::invalid_argument("unknown dtype '" + name +
                              "' (float, double, half, bfloat16, int32, int64, int8, uint8, or all)");
}

std::string sweepDtypeWord(dtb_dtype_t dtype) {
  switch (dtype) {
    case DTB_DTYPE_F32:
      return "float";
    case DTB_DTYPE_F64:
      return "double";
    case DTB_DTYPE_F16:
      return "half";
    case DTB_DTYPE_BF16:
      return "bfloat16";
    case DTB_DTYPE_I32:
      return "int32";
    case DTB_DTYPE_I64:
      return "int64";
    case DTB_DTYPE_I8:
      return "int8";
    case DTB_DTYPE_U8:
      return "uint8";
  }
  return "dtype " + std::to_string(static_cast<int>(dtype));
}

std::vector<std::string> expandDtypes(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const std::string& name : names) {
    if (name != "all") {
      add(name);
      continue;
    }
    for (dtb_dtype_t dtype : kDtypes) add(sweepDtypeWord(dtype));
  }
  return out;
}

dtb_reduce_op_t sweepReduceOp(const std::string& name) {
  if (name == "sum") return DTB_REDUCE_SUM;
  if (name == "avg") return DTB_REDUCE_AVG;
  if (name == "max") return DTB_REDUCE_MAX;
  if (name == "min") return DTB_REDUCE_MIN;
  if (name == "prod") {
    throw std::invalid_argument(
        "reduce op 'prod' is not supported: dtbench's communicators (the plugin ABI) reduce with sum, avg, "
        "max and min only");
  }
  throw std::invalid_argument("unknown reduce op '" + name + "' (sum, avg, max, min)");
}

double busFactor(const std::string& op, int world) {
  const double n = world;
  if (op == "allreduce") return 2 * (n - 1) / n;
  if (op == "reduce_scatter" || op == "allgather") return (n - 1) / n;
  return 1;  // broadcast
}

void SweepSpec::validate() const {
  if (ops.empty()) throw std::invalid_argument("no collective to sweep");
  for (const std::string& op : ops) {
    bool known = false;
    for (const char* k : kOps) known = known || op == k;
    if (!known)
      throw std::invalid_argument("unknown collective '" + op +
                                  "' (allreduce, reduce_scatter, allgather, broadcast)");
  }
  if (dtypes.empty()) throw std::invalid_argument("no dtype to sweep");
  for (const std::string& d : dtypes) sweepDtype(d);
  const dtb_reduce_op_t op = sweepReduceOp(reduceOp);
  if (op == DTB_REDUCE_AVG) {
    for (const std::string& d : dtypes) {
      const dtb_dtype_t t = sweepDtype(d);
      if (t != DTB_DTYPE_F32 && t != DTB_DTYPE_F64 && t != DTB_DTYPE_F16 && t != DTB_DTYPE_BF16)
        throw std::invalid_argument(
            "reduce op avg needs a floating dtype, not " + d +
            " (the backends average floats only: give -d float,double,half,bfloat16)");
    }
  }
  // The file's [comm] takes bytes as integers: the bound parseSize puts on
  // -b and -e holds for them too (2^62 bytes would overflow what a rank holds).
  if (maxBytes > kMaxSweepBytes)
    throw std::invalid_argument("sizes: -e " + std::to_string(maxBytes) +
                                " is past the largest size, 1e12 bytes");
  if (minBytes < 1 || maxBytes < minBytes)
    throw std::invalid_argument("sizes: -b " + std::to_string(minBytes) +
                                " must be at least 1 and at most -e " + std::to_string(maxBytes));
  if (!(factor > 1)) throw std::invalid_argument("the size factor -f must be greater than 1");
  // Each timed call keeps its time (a vector of `iterations` doubles): an
  // unbounded -n ended in a bare std::bad_alloc inside the workers.
  if (warmup < 0 || warmup > kMaxSweepIterations)
    throw std::invalid_argument("warm-up iterations (-w) must be within 0 and " +
                                std::to_string(kMaxSweepIterations) + ", not " + std::to_string(warmup));
  if (iterations < 1 || iterations > kMaxSweepIterations)
    throw std::invalid_argument("iterations (-n) must be within 1 and " +
                                std::to_string(kMaxSweepIterations) + ", not " + std::to_string(iterations));
}

std::vector<int64_t> SweepSpec::sizes() const {
  validate();
  std::vector<int64_t> out;
  for (double s = static_cast<double>(minBytes); s <= static_cast<double>(maxBytes) * (1 + 1e-9);
       s *= factor) {
    out.push_back(static_cast<int64_t>(std::llround(s)));
  }
  return out;
}

toml::table SweepSpec::toToml() const {
  toml::array opsArray, dtypesArray;
  for (const std::string& op : ops) opsArray.push_back(op);
  for (const std::string& d : dtypes) dtypesArray.push_back(d);
  return toml::table{{"ops", std::move(opsArray)},
                     {"dtypes", std::move(dtypesArray)},
                     {"reduce_op", reduceOp},
                     {"min_bytes", minBytes},
                     {"max_bytes", maxBytes},
                     {"factor", factor},
                     {"warmup", warmup},
                     {"iterations", iterations},
                     {"check", check}};
}

SweepSpec SweepSpec::fromToml(const toml::table& table) {
  SweepSpec s;
  for (const auto& [k, node] : table) {
    const std::string key(k.str());
    if (key == "ops")
      s.ops = strings(node, key);
    else if (key == "dtypes")
      s.dtypes = expandDtypes(strings(node, key));
    else if (key == "reduce_op")
      s.reduceOp = node.value_or<std::string>("");
    else if (key == "min_bytes")
      s.minBytes = size(node, key);
    else if (key == "max_bytes")
      s.maxBytes = size(node, key);
    else if (key == "factor")
      s.factor = node.value_or<double>(0);
    else if (key == "warmup")
      s.warmup = integer(node, key);
    else if (key == "iterations")
      s.iterations = integer(node, key);
    else if (key == "check")
      s.check = node.value_or<bool>(true);
    else if (key == "backends" || key == "ranks" || key == "launcher" || key == "rendezvous_store")
      continue;  // the coordinator's
    else
      throw std::invalid_argument(
          "unknown key '" + key +
          "' in [comm] (backends, ranks, launcher, rendezvous_store, ops, dtypes, reduce_op, "
          "min_bytes, max_bytes, factor, warmup, iterations, check)");
  }
  return s;
}

}  // namespace dtb::core
