#include "run/worker.h"

#include "log/log.h"
#include "run/connect.h"
#include "run/training_worker.h"
#include "sweep/collective_sweep.h"

namespace dtb::core {

int runWorker(const RunSpec& spec, int rank, RecordWriter& records) {
  try {
    if (spec.sweep) {
      PluginLoader loader = workerLoader(spec);
      std::unique_ptr<Communicator> comm = connectRank(spec, rank, loader);
      runCollectiveSweep(*spec.sweep, *comm, rank, spec.world, records);
    } else {
      TrainingWorker(spec, rank, records).run();
    }
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

}  // namespace dtb::core
