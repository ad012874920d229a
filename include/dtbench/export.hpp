// export.hpp — optional C++20 helpers for a plugin's header and its entry
// point, so the wiring of a C++ plugin is one statement:
//
//   namespace my::plugin {
//   DTB_EXPORT_MODEL_PLUGIN(dtb::modelDescriptor<LeNet>("lenet", "0.1.0", "LeNet ...", kParams))
//   }  // namespace my::plugin
//
// The macro defines the kind's entry symbol, dtb_model_plugin_v1() here,
// with C linkage (the namespace it stands in does not change the symbol),
// returning the descriptor it builds on its first call. Header-only.
#ifndef DTBENCH_EXPORT_HPP
#define DTBENCH_EXPORT_HPP

#include <cstdint>
#include <span>
#include <type_traits>

#include "dtbench/backend.h"
#include "dtbench/dataset.h"
#include "dtbench/model.h"
#include "dtbench/strategy.h"

namespace dtb {

// The kind a descriptor type belongs to.
template <typename Descriptor>
constexpr dtb_plugin_kind_t kindOf() {
  if constexpr (std::is_same_v<Descriptor, dtb_strategy_plugin_v1_t>) return DTB_PLUGIN_STRATEGY;
  if constexpr (std::is_same_v<Descriptor, dtb_backend_plugin_v1_t>) return DTB_PLUGIN_BACKEND;
  if constexpr (std::is_same_v<Descriptor, dtb_model_plugin_v1_t>) return DTB_PLUGIN_MODEL;
  if constexpr (std::is_same_v<Descriptor, dtb_dataset_plugin_v1_t>) return DTB_PLUGIN_DATASET;
}

// The header every descriptor starts with: the size of the whole descriptor
// and the ABI version this plugin is built with, its kind, and its
// parameters (the array's length is the count). The strings and `params`
// must outlive the library's use (string literals, a namespace-scope array).
template <typename Descriptor>
dtb_plugin_header_t pluginHeader(const char* name, const char* version, const char* description,
                                 std::span<const dtb_param_spec_t> params = {}) {
  return {sizeof(Descriptor),
          DTB_ABI_VERSION,
          kindOf<Descriptor>(),
          name,
          version,
          description,
          params.empty() ? nullptr : params.data(),
          static_cast<uint32_t>(params.size())};
}

}  // namespace dtb

#define DTB_DEFINE_PLUGIN_ENTRY(type, symbol, ...) \
  extern "C" DTB_EXPORT const type* symbol(void) { \
    static const type descriptor = __VA_ARGS__;    \
    return &descriptor;                            \
  }

#define DTB_EXPORT_STRATEGY_PLUGIN(...) \
  DTB_DEFINE_PLUGIN_ENTRY(dtb_strategy_plugin_v1_t, dtb_strategy_plugin_v1, __VA_ARGS__)
#define DTB_EXPORT_BACKEND_PLUGIN(...) \
  DTB_DEFINE_PLUGIN_ENTRY(dtb_backend_plugin_v1_t, dtb_backend_plugin_v1, __VA_ARGS__)
#define DTB_EXPORT_MODEL_PLUGIN(...) \
  DTB_DEFINE_PLUGIN_ENTRY(dtb_model_plugin_v1_t, dtb_model_plugin_v1, __VA_ARGS__)
#define DTB_EXPORT_DATASET_PLUGIN(...) \
  DTB_DEFINE_PLUGIN_ENTRY(dtb_dataset_plugin_v1_t, dtb_dataset_plugin_v1, __VA_ARGS__)

#endif  // DTBENCH_EXPORT_HPP
