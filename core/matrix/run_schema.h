// The keys of a matrix's [run] table: what every run is, independent of its
// plugins. Declared with the same ParamSpec as plugin parameters, so one set
// of checks (type, range, choices) serves both.
#pragma once

#include <string>
#include <vector>

#include "plugin/param_spec.h"
#include "plugin/plugin_kind.h"

namespace dtb::core {

// The most ranks a run (world_size, min_np, max_np) or a sweep (--ranks)
// may have: a bound on the processes dtbench starts.
constexpr int kMaxWorldSize = 65536;

const std::vector<ParamSpec>& runSchema();
const ParamSpec* findRunKey(const std::string& key);

// The [run] key that names the plugin of `kind`: "strategy", "backend", ...
inline std::string pluginKey(PluginKind kind) { return std::string(kindName(kind)); }

// Values computed from a cell and stored with it (never set by a user).
// batch_size x world_size x accumulation_steps: the samples of one optimizer
// step (DeepSpeed's train_batch_size).
inline constexpr const char* kGlobalBatchKey = "global_batch_size";
inline constexpr const char* kEffectiveLrKey = "lr_effective";  // lr, x world_size when linear

// Keys that say how runs are judged (the verdict's accuracy bar), not what
// runs: left out of a configuration's identity (Cell::configKey), so that
// setting one does not make a configuration new to compare against.
bool isJudgingKey(const std::string& key);

// The declaration of a derived key (its type, for exclude rules), or null.
const ParamSpec* findDerivedKey(const std::string& key);

// The launcher a cell runs with: its `launcher`, where "auto" (the key's
// default) means mpirun for backend "mpi" (whose ranks must be an MPI job)
// and local otherwise.
std::string resolveLauncher(const std::string& launcher, const std::string& backend);

}  // namespace dtb::core
