// Finds, checks and loads plugin libraries.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/loaded_plugin.h"
#include "plugin/search_path.h"

namespace dtb::core {

class PluginLoader {
 public:
  // kTryInChildFirst: each plugin is first loaded in a child process
  // (isolated_call.h), so one that crashes, exits or hangs while loading is
  // refused with a PluginError naming it and this process goes on. The
  // commands use it; a worker, whose plugins the coordinator tried, does not.
  enum class Isolation { kNone, kTryInChildFirst };

  explicit PluginLoader(SearchPath path = SearchPath::fromEnvironment(),
                        Isolation isolation = Isolation::kNone);

  // `spec` is a plugin name ("zero": dtbench-strategy-zero.so on the search
  // path), a file name ("dtbench-strategy-zero.so", on the search path) or a
  // path (anything with a '/'). Throws PluginError, one line naming the file
  // and the cause. Logs the path actually loaded.
  std::shared_ptr<const LoadedPlugin> load(PluginKind kind, std::string_view spec) const;
  std::shared_ptr<const LoadedPlugin> loadFile(PluginKind kind, const std::filesystem::path& file) const;

  // Every dtbench-<kind>-*.so on the search path, loaded or with the reason
  // it could not be. A name found again later in the path is shadowed.
  struct Found {
    PluginKind kind;
    std::filesystem::path file;
    std::shared_ptr<const LoadedPlugin> plugin;  // null when it failed
    std::string error;                           // why it failed
    bool shadowed = false;                       // an earlier file has its name
  };
  std::vector<Found> discover(std::optional<PluginKind> kind = std::nullopt) const;

  const SearchPath& searchPath() const { return path_; }

 private:
  // Loads `file` into this process (after the safety checks).
  std::shared_ptr<const LoadedPlugin> loadHere(PluginKind kind, const std::filesystem::path& file) const;

  SearchPath path_;
  Isolation isolation_;
};

}  // namespace dtb::core
