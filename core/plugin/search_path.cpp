#include "plugin/search_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "plugin/plugin_error.h"

#ifndef DTBENCH_INSTALL_PLUGIN_DIR
#define DTBENCH_INSTALL_PLUGIN_DIR "/usr/local/lib/dtbench/plugins"
#endif

namespace dtb::core {
namespace fs = std::filesystem;

namespace {

std::optional<fs::path> executableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return exe.parent_path();
}

void addIfDirectory(std::vector<fs::path>& dirs, const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  fs::path canonical = fs::weakly_canonical(dir, ec);
  if (ec) canonical = dir;
  for (const fs::path& known : dirs) {
    if (known == canonical) return;
  }
  dirs.push_back(canonical);
}

bool writableByOthers(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;
  return (info.st_mode & S_IWOTH) != 0;
}

}  // namespace

SearchPath SearchPath::fromEnvironment() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("DTBENCH_PLUGIN_PATH")) {
    std::stringstream entries(env);
    std::string entry;
    while (std::getline(entries, entry, ':')) {
      if (!entry.empty()) addIfDirectory(dirs, entry);
    }
  }
  if (auto dir = executableDir()) addIfDirectory(dirs, *dir / ".." / "lib" / "dtbench" / "plugins");
  addIfDirectory(dirs, DTBENCH_INSTALL_PLUGIN_DIR);
  return SearchPath(std::move(dirs));
}

SearchPath SearchPath::fromEnvironmentAfter(const std::vector<std::string>& first) {
  SearchPath path = fromEnvironment();
  for (auto it = first.rbegin(); it != first.rend(); ++it) path.prepend(*it);
  return path;
}

void SearchPath::prepend(const fs::path& dir) {
  std::vector<fs::path> dirs;
  addIfDirectory(dirs, dir);
  for (const fs::path& known : dirs_) addIfDirectory(dirs, known);
  dirs_ = std::move(dirs);
}

std::optional<fs::path> SearchPath::find(PluginKind kind, std::string_view name) const {
  return findFile(pluginFileName(kind, name));
}

std::optional<fs::path> SearchPath::findFile(std::string_view fileName) const {
  for (const fs::path& dir : dirs_) {
    fs::path candidate = dir / fileName;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

void refuseWritableByOthers(const fs::path& file) {
  std::error_code ec;
  fs::path real = fs::canonical(file, ec);
  if (ec) throw PluginError(file, "cannot resolve path: " + ec.message());
  if (writableByOthers(real)) {
    throw PluginError(file, "refused: the file is writable by other users (chmod o-w it)");
  }
  if (writableByOthers(real.parent_path())) {
    throw PluginError(file, "refused: its directory " + real.parent_path().string() +
                                " is writable by other users (chmod o-w it)");
  }
}

}  // namespace dtb::core
