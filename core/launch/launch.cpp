#include "launch/launch.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "launch/job_launcher.h"
#include "launch/local_launcher.h"
#include "launch/rank_environment.h"

namespace dtb::core {

LaunchOutcome launch(const LaunchOptions& options, const RecordHandler& onRecord) {
  // Local ranks, and mpirun's own out-of-band channel, use the interface on
  // this host: one it lacks is said here, before anything starts (mpirun
  // would only say "no available network for out-of-band messaging").
  // (Not for srun's and ssh's: this host need not be one of theirs; each
  // rank checks its own.)
  if (!options.interface.empty() && options.launcher != "srun" && options.launcher != "ssh") {
    try {
      bindAddress(options.launcher, options.interface);
    } catch (const std::runtime_error& e) {
      return {
          LaunchOutcome::Status::kFailed,
          std::string(e.what()) +
              (options.launcher == "mpirun" ? "; mpirun talks to its ranks over it from this host too" : "")};
    }
  }
  // The ssh launcher's ranks are this process's children as local ones are:
  // the same launcher watches them (local_ranks.cpp starts them remotely).
  if (options.launcher == "local" || options.launcher == "ssh") return launchLocal(options, onRecord);
  return launchJob(options, onRecord);
}

std::filesystem::path temporaryDirectory(const std::string& use) {
  // std::filesystem::temp_directory_path() reads TMPDIR and fails with a
  // bare "temp_directory_path: No such file or directory": say which.
  const char* tmpdir = std::getenv("TMPDIR");
  const bool fromVariable = tmpdir != nullptr && *tmpdir != '\0';
  std::filesystem::path dir = fromVariable ? tmpdir : "/tmp";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec) || access(dir.c_str(), W_OK | X_OK) != 0) {
    throw ScratchError(std::string(fromVariable ? "TMPDIR=" : "") + dir.string() +
                       (std::filesystem::exists(dir, ec) ? ": not a directory this user can write in"
                                                         : ": no such directory") +
                       "; " + use);
  }
  return dir;
}

std::filesystem::path runDirectoryBase(const Cell& cell, const std::string& launcher,
                                       const std::filesystem::path& database) {
  std::filesystem::path base = cell.text("rendezvous_dir");
  if (base.empty() && launcher == "local") {
    base = temporaryDirectory(
        "a local run makes its scratch directory there: point TMPDIR at one, or set rendezvous_dir");
  }
  if (base.empty()) base = std::filesystem::absolute(database).parent_path() / ".dtbench-rendezvous";
  return base;
}

std::filesystem::path runDirectory(const Cell& cell, const std::string& launcher,
                                   const std::filesystem::path& database, int64_t runId) {
  const std::filesystem::path base = runDirectoryBase(cell, launcher, database);
  std::error_code ignored;
  std::filesystem::create_directories(base, ignored);
  std::string pattern = (base / ("run-" + std::to_string(runId) + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw ScratchError("cannot create a run directory in " + base.string() + ": " + std::strerror(errno));
  return pattern;
}

void removeRunDirectory(const std::filesystem::path& directory) {
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  const std::filesystem::path parent = directory.parent_path();
  if (parent.filename() == ".dtbench-rendezvous" && std::filesystem::is_empty(parent, ignored)) {
    std::filesystem::remove(parent, ignored);
  }
}

std::vector<std::string> splitWords(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace dtb::core
