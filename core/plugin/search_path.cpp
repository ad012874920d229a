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

// Why `path` (the plugin file, or `dir` above it) is unsafe; "" when it is not.
std::string unsafeBecause(const fs::path& path, bool isFile) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return "";  // gone meanwhile: dlopen will say so
  const std::string what = isFile ? "the file" : "its directory " + path.string();
  const uid_t me = geteuid();
  if (info.st_uid != 0 && info.st_uid != me) {
    return what + " is owned by uid " + std::to_string(info.st_uid) + ", neither root nor you (uid " +
           std::to_string(me) + ")";
  }
  const bool stickyRootDir = !isFile && (info.st_mode & S_ISVTX) != 0 && info.st_uid == 0;
  if ((info.st_mode & S_IWOTH) != 0 && !stickyRootDir) {
    return what + " is writable by other users (chmod o-w " + path.string() + ")";
  }
  if ((info.st_mode & S_IWGRP) != 0 && !stickyRootDir) {
    return what + " is writable by its group (chmod g-w " + path.string() + ")";
  }
  return "";
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

fs::path refuseUnsafePath(const fs::path& file) {
  std::error_code ec;
  fs::path real = fs::canonical(file, ec);
  if (ec) throw PluginError(file, "cannot resolve path: " + ec.message());
  if (std::string why = unsafeBecause(real, true); !why.empty()) throw PluginError(file, "refused: " + why);
  for (fs::path dir = real.parent_path();; dir = dir.parent_path()) {
    if (std::string why = unsafeBecause(dir, false); !why.empty()) throw PluginError(file, "refused: " + why);
    if (dir == dir.root_path() || dir.empty()) break;
  }
  return real;
}

}  // namespace dtb::core
