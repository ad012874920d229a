// Where plugins are looked for, and the safety check on what is found there.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/plugin_kind.h"

namespace dtb::core {

class SearchPath {
 public:
  SearchPath() = default;
  explicit SearchPath(std::vector<std::filesystem::path> dirs) : dirs_(std::move(dirs)) {}

  // In order: each directory of $DTBENCH_PLUGIN_PATH (':'-separated), the
  // plugin directory beside the running executable (<bin>/../lib/dtbench/
  // plugins: the build tree and an installed tree look alike), and the
  // install prefix's. Missing directories are kept out.
  static SearchPath fromEnvironment();
  // `first` (--plugin-path, a run's plugin directories), in their order,
  // then fromEnvironment().
  static SearchPath fromEnvironmentAfter(const std::vector<std::string>& first);

  void prepend(const std::filesystem::path& dir);
  const std::vector<std::filesystem::path>& dirs() const { return dirs_; }

  // The first dtbench-<kind>-<name>.so in the path order; nullopt if none.
  std::optional<std::filesystem::path> find(PluginKind kind, std::string_view name) const;
  // The first file called `fileName` in the path order.
  std::optional<std::filesystem::path> findFile(std::string_view fileName) const;

 private:
  std::vector<std::filesystem::path> dirs_;
};

// Throws PluginError unless `file` and every directory above it, up to the
// root, are owned by root or by this user and writable by nobody else — as
// sshd's StrictModes checks a user's keys: whoever can write any of them
// can swap the code dtbench is about to run. A root-owned sticky directory
// (/tmp) is allowed: others may add files there but not replace ours.
// Returns the file's canonical path: the one to load, so a symlink changed
// after the check cannot point the loader elsewhere.
std::filesystem::path refuseUnsafePath(const std::filesystem::path& file);

}  // namespace dtb::core
