// What to say about a key or value a matrix does not know: the closest known
// name, or, for words of torchrun and DeepSpeed (nproc_per_node,
// gradient_accumulation_steps, ...), dtbench's word and how the two differ.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plugin/param_spec.h"

namespace dtb::core {

// " (did you mean 'world_size'? ...)" for an unknown `key`, or "" when
// nothing is close. A word of another tool gets its translation; any other
// the closest of `candidates` (closestName, host/plugin_config.h).
std::string unknownKeyHint(const std::string& key, const std::vector<ParamSpec>& candidates);

// " (what dtbench does instead)" for a word of DeepSpeed's configuration
// that has no dtbench key (fp16, overlap_comm, offload_optimizer, or a table
// such as zero_optimization), or "".
std::string foreignWordHint(const std::string& word);

// The problem with a rendezvous_store value, or nullopt: it is "" (a file
// store) or redis://... (core/worker/connect.cpp refuses anything else at run
// time; this says so at validate time, with torchrun's HOST:PORT named).
std::optional<std::string> rendezvousStoreProblem(const std::string& value);

}  // namespace dtb::core
