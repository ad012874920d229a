// What this binary is: version, commit, compiler, ABI, and the versions of
// the libraries it was built with. Stored with every run.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dtb::core {

struct BuildInfo {
  std::string version;    // "0.1.0"
  std::string gitCommit;  // short hash at configure time, or "unknown"
  std::string abi;        // "1.0"
  std::string buildType;
  std::string compiler;
  // (library, version) pairs, e.g. ("SQLite", "3.40.1").
  std::vector<std::pair<std::string, std::string>> libraries;
};

const BuildInfo& buildInfo();

// "dtbench 0.1.0 (plugin ABI 1.0, commit 1a2b3c4d5e6f, RelWithDebInfo)".
std::string versionLine();

}  // namespace dtb::core
