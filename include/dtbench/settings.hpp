// settings.hpp — a plugin's parameters, each declared once with its type,
// default, documentation and range: the declaration is both what the
// descriptor lists (so `dtbench plugins` documents it and the host checks
// matrices against it) and how the plugin reads its value. Optional C++
// helper; header-only.
//
//   inline constexpr dtb::IntSetting kSyncEvery{"sync_every", "4", "Steps between averages",
//   dtb::atLeast(1)}; const dtb_param_spec_t kParams[] = {kSyncEvery.spec()};         // in the descriptor
//   const int64_t every = kSyncEvery.get(host);                      // in create
#ifndef DTBENCH_SETTINGS_HPP
#define DTBENCH_SETTINGS_HPP

#include <cstdint>
#include <string>

#include "dtbench/plugin.hpp"

namespace dtb {

// Bounds of a number (or of each element of an int list).
struct Range {
  double min = 0;
  double max = 0;
  uint32_t flags = 0;  // DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX
};
constexpr Range atLeast(double min) { return {min, 0, DTB_PARAM_HAS_MIN}; }
constexpr Range between(double min, double max) { return {min, max, DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX}; }

template <dtb_param_type_t Type>
class Setting {
 public:
  // `defaultValue` in TOML syntax ("25", "true", "ring"); nullptr: the
  // matrix must set it. `choices`: allowed strings separated by '|'.
  constexpr Setting(const char* name, const char* defaultValue, const char* doc, Range range = {},
                    const char* choices = nullptr)
      : name_(name), default_(defaultValue), doc_(doc), range_(range), choices_(choices) {}

  constexpr const char* name() const { return name_; }
  constexpr dtb_param_spec_t spec() const {
    return {sizeof(dtb_param_spec_t),
            name_,
            Type,
            default_,
            doc_,
            range_.flags,
            range_.min,
            range_.max,
            choices_};
  }

  // The instance's value (the host filled in the default and checked the
  // range before create). Throws, naming the setting, if the lookup fails.
  auto get(const dtb_host_t* host) const {
    if constexpr (Type == DTB_PARAM_BOOL) {
      int32_t value = 0;
      check(host->config_get_bool(host->ctx, name_, &value), name_);
      return value != 0;
    } else if constexpr (Type == DTB_PARAM_INT) {
      int64_t value = 0;
      check(host->config_get_int(host->ctx, name_, &value), name_);
      return value;
    } else if constexpr (Type == DTB_PARAM_FLOAT) {
      double value = 0;
      check(host->config_get_float(host->ctx, name_, &value), name_);
      return value;
    } else {
      static_assert(Type == DTB_PARAM_STRING, "int lists: read them with config_get_int_list");
      const char* value = nullptr;
      check(host->config_get_string(host->ctx, name_, &value), name_);
      return std::string(value);
    }
  }

 private:
  const char* name_;
  const char* default_;
  const char* doc_;
  Range range_;
  const char* choices_;
};

using BoolSetting = Setting<DTB_PARAM_BOOL>;
using IntSetting = Setting<DTB_PARAM_INT>;
using FloatSetting = Setting<DTB_PARAM_FLOAT>;
using StringSetting = Setting<DTB_PARAM_STRING>;

}  // namespace dtb

#endif  // DTBENCH_SETTINGS_HPP
