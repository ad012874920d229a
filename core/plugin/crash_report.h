// Which plugin a dying process was in. A plugin that crashes (SIGSEGV,
// SIGBUS, SIGILL, SIGFPE, SIGABRT) or calls exit() while its library loads
// would otherwise end dtbench with a bare signal or exit code: the handlers
// here say, in one line, which plugin file was loading or whose code was on
// the crashing thread's stack, then let the process die as it would have
// (the previous handler — a sanitizer's — runs next, or the default action).
//
// The code ranges of loaded plugins are kept in a fixed table filled at
// load time, so the handler itself only reads memory, walks the stack and
// calls write().
#pragma once

#include <filesystem>
#include <string>

namespace dtb::core::crash {

// Installs the handlers (once per process; a later call only changes where
// the line goes). The line goes to stderr as "dtbench: <what>", and with
// `recordFd` >= 0 also as a worker's error record of `rank`, so the
// coordinator names the plugin instead of only the signal.
void installHandlers(int recordFd = -1, int rank = -1);

// Also writes "#crashed with SIG<name>\n" to `fd` (-1: stop): a child
// trying a plugin tells its parent even when a sanitizer's handler, which
// runs after ours, turns the signal into an exit code.
void alsoReportSignalTo(int fd);

// Remembers the code of the library that `anySymbol` lives in under `label`
// ("strategy plugin 'zero' (/path/dtbench-strategy-zero.so)").
void registerPluginCode(const void* anySymbol, const std::string& label);

// While one lives, a crash or exit() is reported as happening while
// loading `file` (its constructors and entry point).
class Loading {
 public:
  explicit Loading(const std::filesystem::path& file);
  ~Loading();
  Loading(const Loading&) = delete;
  Loading& operator=(const Loading&) = delete;
};

}  // namespace dtb::core::crash
