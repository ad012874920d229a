#include "build_info.h"

#include <sqlite3.h>
#include <toml++/toml.h>

#include <sstream>

#include "build_info_config.h"
#include "dtbench/dtbench.h"

namespace dtb::core {

const BuildInfo& buildInfo() {
  static const BuildInfo info = [] {
    BuildInfo b;
    b.version = DTBENCH_VERSION;
    b.gitCommit = DTBENCH_GIT_COMMIT;
    b.abi = std::to_string(DTB_ABI_MAJOR) + "." + std::to_string(DTB_ABI_MINOR);
    b.buildType = DTBENCH_BUILD_TYPE;
    b.compiler = DTBENCH_CXX_COMPILER;
    b.libraries.emplace_back("SQLite", sqlite3_libversion());
    b.libraries.emplace_back("toml++", std::to_string(TOML_LIB_MAJOR) + "." + std::to_string(TOML_LIB_MINOR) +
                                           "." + std::to_string(TOML_LIB_PATCH));
    std::stringstream built(DTBENCH_LIBRARY_VERSIONS);
    std::string entry;
    while (std::getline(built, entry, ';')) {
      const size_t eq = entry.find('=');
      if (eq != std::string::npos) b.libraries.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    }
    return b;
  }();
  return info;
}

std::string versionLine() {
  const BuildInfo& b = buildInfo();
  return "dtbench " + b.version + " (plugin ABI " + b.abi + ", commit " + b.gitCommit + ", " + b.buildType +
         ")";
}

}  // namespace dtb::core
