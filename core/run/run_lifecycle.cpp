#include "run/run_lifecycle.h"

#include <algorithm>
#include <stdexcept>

#include "matrix/run_schema.h"
#include "network/network_emulator.h"
#include "run/network_record.h"

namespace dtb::core {

RunLifecycle::RunLifecycle(const Cell& cell, int64_t runId, const RunContext& context,
                           const std::string& prefix)
    : cell_(cell),
      runId_(runId),
      executable_(context.executable),
      launcher_(resolveLauncher(cell.text("launcher"), cell.text("backend"))),
      scratch_(runDirectory(cell, launcher_, context.database, runId)),
      reaper_(scratch_) {
  spec_.runId = runId;
  spec_.world = static_cast<int>(cell.integer("world_size"));
  spec_.storeDir = (scratch_ / "store").string();
  std::filesystem::create_directory(spec_.storeDir);
  spec_.prefix = prefix + std::to_string(runId);
  spec_.pluginDirs = context.pluginDirs;
  spec_.cell = cell;
}

RunLifecycle::~RunLifecycle() { removeRunDirectory(scratch_); }

std::optional<NetworkProfile> RunLifecycle::shapeNetwork(ResultStore& store) const {
  std::optional<NetworkProfile> network;
  try {
    network = shapeNetworkFor(cell_.text("network"));
  } catch (const std::runtime_error& e) {
    throw NetworkUnavailable(std::string("network: ") + e.what());
  }
  if (network) store.recordNetwork(networkRecord(runId_, *network));
  return network;
}

LaunchOptions RunLifecycle::launchOptions(const InterruptGuard& interrupt) const {
  const double timeout = cell_.real("collective_timeout_s");
  return {executable_,
          specFile(),
          spec_.world,
          threadsPerRank(cell_),
          std::max(60.0, 2 * timeout + 10),
          interrupt.flag(),
          launcher_,
          cell_.text("hostfile"),
          splitWords(cell_.text("launcher_args")),
          cell_.text("interface")};
}

RunStatus finishRun(ResultStore& store, int64_t runId, const LaunchOutcome& outcome,
                    const std::string& wrong) {
  switch (outcome.status) {
    case LaunchOutcome::Status::kOk:
      store.finishRun(runId, wrong.empty() ? RunStatus::kOk : RunStatus::kFailed, wrong);
      return wrong.empty() ? RunStatus::kOk : RunStatus::kFailed;
    case LaunchOutcome::Status::kInterrupted:
      store.finishRun(runId, RunStatus::kStopped, outcome.error);
      return RunStatus::kStopped;
    case LaunchOutcome::Status::kFailed:
      break;
  }
  store.finishRun(runId, RunStatus::kFailed, outcome.error);
  return RunStatus::kFailed;
}

}  // namespace dtb::core
