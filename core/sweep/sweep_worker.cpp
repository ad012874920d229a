#include "sweep/sweep_worker.h"

#include <memory>

#include "sweep/collective_sweep.h"
#include "sweep/sweep_spec.h"
#include "worker/connect.h"
#include "worker/worker.h"

namespace dtb::core {

int runSweepWorker(const RunSpec& spec, int rank, RecordWriter& records) {
  return runRank(spec, rank, records, [&](const RankPlace&) {
    const SweepSpec sweep = SweepSpec::fromToml(*spec.sweep);
    PluginLoader loader = workerLoader(spec);
    std::unique_ptr<Communicator> comm = connectRank(spec, rank, loader);
    runCollectiveSweep(sweep, *comm, rank, spec.world, records);
  });
}

}  // namespace dtb::core
