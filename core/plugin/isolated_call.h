// Running plugin code where it cannot take dtbench down: in a forked child.
// Loading a plugin runs its constructors and entry point, and `dtbench
// check` creates an instance of each; a plugin that crashes, calls exit() or
// hangs there would end or freeze the whole command. The commands that look
// at many plugins (plugins, check, validate, run) try each in a child first
// and name the plugin that failed, in one line, while they go on with the
// rest. The child's stdout and stderr are discarded: the parent reports.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace dtb::core {

struct IsolatedOutcome {
  bool completed = false;  // `work` returned in the child
  std::string result;      // what it returned: "" or a problem to report
  std::string death;       // otherwise how the child ended, e.g. "crashed with SIGSEGV"
};

// Runs `work` in a forked child and waits up to `limit` for it. `work`
// returns text for the parent (a problem, or "" when all went well) and
// must not let an exception out (the child reports it as its result).
IsolatedOutcome runIsolated(const std::function<std::string()>& work, std::chrono::milliseconds limit);

}  // namespace dtb::core
