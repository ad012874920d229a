// What every run goes through, a training cell's and a collective sweep's
// alike: a scratch directory (removed when the run ends, and by a reaper
// even when its coordinator is killed), the spec its ranks read, the
// emulated network its cell names (shaped, and stored with the run), how
// its ranks are launched and watched, and its row finished by how it ended.
// What the ranks do and what their records become are the caller's
// (run/coordinator.cpp for training, sweep/sweep_runner.cpp for dtbench
// comm).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "launch/interrupt_guard.h"
#include "launch/launch.h"
#include "launch/scratch_reaper.h"
#include "matrix/cell.h"
#include "network/network_profile.h"
#include "protocol/run_spec.h"
#include "store/result_store.h"

namespace dtb::core {

// The emulated network a run asks for cannot be had (the cluster's switch
// is gone): the run fails with this, its message starting "network: ".
class NetworkUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What every run of one dtbench command shares: the store its results go
// to, the plugin directories its workers search, and the dtbench binary
// that starts them.
struct RunContext {
  std::filesystem::path database;
  std::vector<std::string> pluginDirs;
  std::filesystem::path executable;
};

class RunLifecycle {
 public:
  // Makes the run's scratch directory, with its reaper, and a spec filled
  // with what every run has (the run, its world, its rendezvous store and
  // key prefix `prefix`<runId>, the plugin directories, the cell). Throws
  // ScratchError when the directory cannot be made.
  RunLifecycle(const Cell& cell, int64_t runId, const RunContext& context, const std::string& prefix);
  ~RunLifecycle();  // removes the scratch directory
  RunLifecycle(const RunLifecycle&) = delete;
  RunLifecycle& operator=(const RunLifecycle&) = delete;

  const std::string& launcher() const { return launcher_; }
  const std::filesystem::path& scratch() const { return scratch_; }
  RunSpec& spec() { return spec_; }  // the caller adds its own, then writes it
  std::filesystem::path specFile() const { return scratch_ / "spec.toml"; }
  void writeSpec() const { spec_.write(specFile()); }

  // The emulated network the cell names, shaped and stored with the run;
  // nullopt when it names none. Throws NetworkUnavailable when it cannot be
  // shaped (and StoreError, as any write, when it cannot be stored).
  std::optional<NetworkProfile> shapeNetwork(ResultStore& store) const;

  // How the ranks are started (by the context's dtbench) and watched: the
  // cell's launcher, hosts and threads; silence longer than a collective may
  // take is a hang.
  LaunchOptions launchOptions(const InterruptGuard& interrupt) const;

 private:
  const Cell& cell_;
  int64_t runId_;
  std::filesystem::path executable_;
  std::string launcher_;
  std::filesystem::path scratch_;
  ScratchReaper reaper_;
  RunSpec spec_;
};

// Stores how the run ended: kOk (or kFailed with `wrong` when the ranks
// finished but the results are wrong), kFailed with the outcome's error,
// or kStopped. Returns the status stored.
RunStatus finishRun(ResultStore& store, int64_t runId, const LaunchOutcome& outcome,
                    const std::string& wrong = "");

}  // namespace dtb::core
