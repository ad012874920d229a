// Reading a plugin's descriptor into the host's own structs.
//
// The host keeps one zero-initialised struct of its current layout per kind
// and copies in as many bytes as the plugin declared (header.struct_size), so
// members a plugin built against an older minor version lacks read as NULL.
// Older ABI majors get an adapter here, like NCCL's tuner_v*.cc, so the rest
// of the host only ever sees the newest layout.
#pragma once

#include <variant>

#include "dtbench/backend.h"
#include "dtbench/dataset.h"
#include "dtbench/model.h"
#include "dtbench/strategy.h"
#include "plugin/plugin_kind.h"

namespace dtb::core {

using AnyDescriptor = std::variant<dtb_strategy_plugin_v1_t, dtb_backend_plugin_v1_t, dtb_model_plugin_v1_t,
                                   dtb_dataset_plugin_v1_t>;

// Oldest and newest ABI majors this host can load; entry symbols are probed
// from newest to oldest.
inline constexpr unsigned kOldestAbiMajor = 1;
inline constexpr unsigned kNewestAbiMajor = DTB_ABI_MAJOR;

// Bytes a descriptor of `kind` must at least have: its ABI 1.0 size.
size_t minimumDescriptorSize(PluginKind kind);

// Converts the descriptor an entry symbol of ABI `major` returned. The header
// must already have been checked (struct_size >= minimumDescriptorSize).
// Throws std::invalid_argument naming a required member that is NULL.
AnyDescriptor adaptDescriptor(PluginKind kind, unsigned major, const void* raw);

}  // namespace dtb::core
