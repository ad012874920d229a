#include "worker/worker.h"

#include <chrono>
#include <cstdlib>
#include <memory>

#include "host/wait_guard.h"
#include "log/log.h"
#include "worker/connect.h"
#include "worker/training_worker.h"

namespace dtb::core {

namespace {

// How long a wait may stay in a backend past its timeout before the rank
// ends, and how often the guard looks: a backend that keeps its timeouts
// returns at the deadline; one blocked in MPI never would.
constexpr std::chrono::milliseconds kWaitGrace{2000};
constexpr std::chrono::milliseconds kGuardPeriod{100};

// For the rank's lifetime: a backend may block in a wait (wait_guard.h).
class RankWaitGuard {
 public:
  RankWaitGuard(int rank, RecordWriter& records) {
    WaitGuard::installForProcess(
        std::make_unique<WaitGuard>(kWaitGrace, kGuardPeriod, [rank, &records](const std::string& message) {
          records.error(rank, true, message);  // a stuck collective is most likely a peer's doing
          log(DTB_LOG_ERROR, "worker " + std::to_string(rank), message);
          std::_Exit(1);  // the thread inside the backend cannot be stopped
        }));
  }
  ~RankWaitGuard() { WaitGuard::installForProcess(nullptr); }
  RankWaitGuard(const RankWaitGuard&) = delete;
  RankWaitGuard& operator=(const RankWaitGuard&) = delete;
};

}  // namespace

int runRank(const RunSpec& spec, int rank, RecordWriter& records,
            const std::function<void(const RankPlace&)>& work) {
  const RankWaitGuard guard(rank, records);
  try {
    const RankPlace place = placeRank(spec, rank);  // a bad interface fails here, naming the host
    records.host({0, rank, place.localRank, place.host, place.address, usedInterface(spec, place)});
    work(place);
    records.done(rank);
    return 0;
  } catch (const std::exception& e) {
    // A failed or timed-out collective is most likely a peer's doing; the
    // coordinator prefers other ranks' own errors as the cause.
    const auto* call = dynamic_cast<const PluginCallError*>(&e);
    const bool peer =
        call && (call->status() == DTB_STATUS_COMM_FAILURE || call->status() == DTB_STATUS_TIMEOUT);
    records.error(rank, peer, e.what());
    log(DTB_LOG_ERROR, "worker " + std::to_string(rank), e.what());
    return 1;
  }
}

int runWorker(const RunSpec& spec, int rank, RecordWriter& records) {
  return runRank(spec, rank, records, [&](const RankPlace&) { TrainingWorker(spec, rank, records).run(); });
}

}  // namespace dtb::core
