#include "projection/fitted_network.h"

#include <algorithm>

#include "projection/alpha_beta_link.h"
#include "projection/stored_profile.h"

namespace dtb::core {

FittedNetwork readFittedNetwork(Database& db, int64_t sweepRunId) {
  Statement fit = db.prepare(
      "SELECT f.backend, f.world_size, f.latency_us, f.bus_gbps, COALESCE(n.profile, '') "
      "FROM collective_fit f LEFT JOIN run_network n ON n.run_id = f.run_id "
      "WHERE f.run_id = ? AND f.op = 'allreduce' AND f.bus_gbps > 0 ORDER BY f.dtype = 'f32' DESC LIMIT 1");
  fit.bind(1, sweepRunId);
  if (!fit.step()) {
    throw ProfileError("run " + std::to_string(sweepRunId) +
                       ": no all-reduce fit (collective_fit) — a `dtbench comm --ops allreduce` sweep of 3 "
                       "sizes or more at 2 ranks or more has one");
  }
  FittedNetwork n;
  n.runId = sweepRunId;
  n.backend = fit.columnText(0);
  n.ranks = static_cast<int>(fit.columnInt(1));
  // A least-squares intercept can fall below zero: no latency, then.
  n.latencyS = std::max(0.0, fit.columnReal(2)) * 1e-6;
  n.busBytesPerS = fit.columnReal(3) * 1e9;
  n.network = fit.columnText(4);
  const Link link = linkFromAllreduceFit(n.latencyS, n.busBytesPerS, n.ranks);
  n.system.name = n.backend + " all-reduce fit of run " + std::to_string(sweepRunId) +
                  (n.network.empty() ? "" : " (" + n.network + ")");
  n.system.gpusPerNode = 1;
  n.system.nicsPerNode = 1;
  n.system.intraNode = link;
  n.system.interNode = link;
  return n;
}

}  // namespace dtb::core
