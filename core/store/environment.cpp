#include "store/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "build_info.h"
#include "cuda/cuda_probe.h"

namespace dtb::core {

std::string procField(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with(key)) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

std::vector<std::pair<std::string, std::string>> captureEnvironment() {
  std::vector<std::pair<std::string, std::string>> env;
  env.emplace_back("host", hostName());
  utsname os{};
  if (uname(&os) == 0) env.emplace_back("os", std::string(os.sysname) + " " + os.release + " " + os.machine);
  env.emplace_back("cpu_model", procField("/proc/cpuinfo", "model name"));
  env.emplace_back("cpu_cores", std::to_string(std::thread::hardware_concurrency()));
  std::string memory = procField("/proc/meminfo", "MemTotal");  // "24590000 kB"
  if (!memory.empty()) env.emplace_back("memory_bytes", std::to_string(std::stoll(memory) * 1024));

  const CudaProbe cuda = probeCuda();
  std::string gpus;
  for (const std::string& name : cuda.devices) gpus += (gpus.empty() ? "" : ", ") + name;
  env.emplace_back("gpus", gpus.empty() ? "none (" + cuda.problem + ")" : gpus);
  if (cuda.driverVersion > 0) env.emplace_back("cuda_driver", std::to_string(cuda.driverVersion));

  const BuildInfo& build = buildInfo();
  env.emplace_back("dtbench_version", build.version);
  env.emplace_back("git_commit", build.gitCommit);
  env.emplace_back("abi", build.abi);
  env.emplace_back("compiler", build.compiler);
  env.emplace_back("build_type", build.buildType);
  for (const auto& [library, version] : build.libraries) env.emplace_back("lib." + library, version);

  // Only variables that change what dtbench does; values of others are never read.
  for (const char* name : {"DTBENCH_PLUGIN_PATH", "DTBENCH_LOG", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES"}) {
    if (const char* value = std::getenv(name)) env.emplace_back(std::string("env.") + name, value);
  }
  return env;
}

}  // namespace dtb::core
