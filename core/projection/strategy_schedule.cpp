#include "projection/strategy_schedule.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>

namespace dtb::core {
namespace {

constexpr double kMiB = 1 << 20;

double number(const std::string& spec, const std::string& key, const std::string& text, double low) {
  size_t used = 0;
  double value = NAN;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || !std::isfinite(value) || value < low) {
    char least[32];
    std::snprintf(least, sizeof least, "%g", low);
    throw std::invalid_argument("'" + spec + "': " + key + " = " + text + " is not a number of at least " +
                                least);
  }
  return value;
}

bool flag(const std::string& spec, const std::string& key, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw std::invalid_argument("'" + spec + "': " + key + " is true or false, not " + text);
}

using Setter = std::function<void(StrategySchedule&, const std::string& value)>;

// Each schedule's keys: what its plugin's parameter changes in the schedule.
std::map<std::string, Setter> keysOf(const StrategySchedule& s, const std::string& spec) {
  switch (s.kind) {
    case StrategySchedule::Kind::kBucketed:
      return {{"bucket_cap_mb",
               [spec](auto& x, auto& v) { x.bucketBytes = number(spec, "bucket_cap_mb", v, 0) * kMiB; }},
              {"first_bucket_mb", [spec](auto& x, auto& v) {
                 x.firstBucketBytes = number(spec, "first_bucket_mb", v, 0) * kMiB;
               }}};
    case StrategySchedule::Kind::kFusion:
      return {
          {"fusion_threshold_mb",
           [spec](auto& x, auto& v) { x.fusionBytes = number(spec, "fusion_threshold_mb", v, 0) * kMiB; }},
          {"cycle_time_ms",
           [spec](auto& x, auto& v) { x.cycleS = number(spec, "cycle_time_ms", v, 0.001) * 1e-3; }},
          {"cache_capacity",
           [spec](auto& x, auto& v) { x.cacheBitsBytes = number(spec, "cache_capacity", v, 0) / 8; }},
          {"preset", [spec](auto& x, auto& v) {
             if (v == "horovod-legacy") {
               x.fusionBytes = 64 * kMiB;  // before v0.21: 64 MiB, 5 ms
               x.cycleS = 5e-3;
             } else if (v != "horovod") {
               throw std::invalid_argument("'" + spec + "': preset is horovod or horovod-legacy, not " + v);
             }
           }}};
    case StrategySchedule::Kind::kZero:
      return {
          {"reduce_bucket_size",
           [spec](auto& x, auto& v) { x.reduceBucketBytes = number(spec, "reduce_bucket_size", v, 1) * 4; }},
          {"param_persistence_threshold",
           [spec](auto& x, auto& v) {
             x.persistenceBytes = number(spec, "param_persistence_threshold", v, 0) * 4;
           }},
          {"prefetch", [spec](auto& x, auto& v) { x.prefetch = flag(spec, "prefetch", v); }}};
    case StrategySchedule::Kind::kAllreduce:
      break;
  }
  return {};
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string::npos; start = at + 1)
    parts.push_back(text.substr(start, at - start));
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

std::vector<StrategySchedule> builtInSchedules() {
  using Kind = StrategySchedule::Kind;
  std::vector<StrategySchedule> all;
  all.push_back({.kind = Kind::kAllreduce, .name = "allreduce"});
  all.push_back({.kind = Kind::kBucketed, .name = "bucketed"});
  all.push_back({.kind = Kind::kFusion, .name = "fusion"});
  for (int stage = 1; stage <= 3; ++stage)
    all.push_back({.kind = Kind::kZero, .name = "zero-" + std::to_string(stage), .zeroStage = stage});
  return all;
}

StrategySchedule parseSchedule(const std::string& spec) {
  const std::vector<std::string> parts = split(spec, ':');
  std::string known;
  for (const StrategySchedule& base : builtInSchedules()) {
    known += (known.empty() ? "" : ", ") + base.name;
    if (base.name != parts.front()) continue;
    StrategySchedule s = base;
    s.name = spec;
    const std::map<std::string, Setter> keys = keysOf(base, spec);
    for (size_t i = 1; i < parts.size(); ++i) {
      const size_t eq = parts[i].find('=');
      const std::string key = parts[i].substr(0, eq);
      const auto setter = keys.find(key);
      if (eq == std::string::npos && setter != keys.end())
        throw std::invalid_argument("'" + spec + "': " + key + " needs a value (KEY=VALUE)");
      if (setter == keys.end()) {
        std::string names;
        for (const auto& [name, set] : keys) names += (names.empty() ? "" : ", ") + name;
        throw std::invalid_argument("'" + spec + "': " + parts.front() + " has no parameter '" + key +
                                    "' in a projection (" + (names.empty() ? "it takes none" : names) +
                                    "; KEY=VALUE)");
      }
      setter->second(s, parts[i].substr(eq + 1));
    }
    return s;
  }
  throw std::invalid_argument("no schedule for strategy '" + parts.front() + "'; projected are " + known);
}

}  // namespace dtb::core
