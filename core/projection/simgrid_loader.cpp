#include "projection/simgrid_loader.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "projection/simgrid_module.h"

#ifndef DTBENCH_INSTALL_MODULE_DIR
#define DTBENCH_INSTALL_MODULE_DIR "/usr/local/lib/dtbench"
#endif

namespace dtb::core {

std::optional<std::filesystem::path> findSimgridModule() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& dir : {ec ? fs::path() : exe.parent_path() / ".." / "lib" / "dtbench",
                              fs::path(DTBENCH_INSTALL_MODULE_DIR)}) {
    if (dir.empty()) continue;
    const fs::path module = dir / kDtbSimgridModuleName;
    if (fs::is_regular_file(module, ec)) return fs::weakly_canonical(module, ec);
  }
  return std::nullopt;
}

std::vector<double> timeWithSimgridModule(const FlowPlatform& platform,
                                          const std::vector<FlowSchedule>& schedules) {
  const std::optional<std::filesystem::path> module = findSimgridModule();
  if (!module) {
    throw std::runtime_error(
        std::string("this dtbench was built without SimGrid (no ") + kDtbSimgridModuleName +
        " beside it): install libsimgrid-dev (tools/install-deps.sh) and rebuild, or use "
        "--network-model formulas");
  }
  // RTLD_LOCAL: SimGrid's MPI symbols stay the module's.
  void* handle = dlopen(module->c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error(std::string("cannot load ") + module->string() + ": " + dlerror());
  auto* time = reinterpret_cast<DtbSimgridTimeFn*>(dlsym(handle, kDtbSimgridTimeSymbol));
  if (!time) throw std::runtime_error(module->string() + " has no " + kDtbSimgridTimeSymbol);
  std::vector<double> seconds;
  std::string error;
  if (!time(&platform, &schedules, &seconds, &error)) throw std::runtime_error("SimGrid: " + error);
  if (seconds.size() != schedules.size()) throw std::runtime_error("SimGrid timed too few schedules");
  return seconds;  // the module stays loaded: the child ends soon after
}

}  // namespace dtb::core
