#include "projection/fitted_network.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "projection/collective_cost.h"
#include "projection/stored_profile.h"

namespace dtb::core {
namespace {

// The sweep's fit of `op` at its ranks, as the link of a half ring; none
// where it has no usable fit of that op.
std::optional<Link> halfRingLink(Database& db, int64_t sweepRunId, const char* op) {
  Statement fit = db.prepare(
      "SELECT world_size, latency_us, bus_gbps FROM collective_fit WHERE run_id = ? AND op = ? AND bus_gbps "
      "> 0 "
      "ORDER BY dtype = 'f32' DESC LIMIT 1");
  fit.bind(1, sweepRunId).bind(2, std::string(op));
  if (!fit.step()) return std::nullopt;
  return linkFromHalfRingFit(std::max(0.0, fit.columnReal(1)) * 1e-6, fit.columnReal(2) * 1e9,
                             static_cast<int>(fit.columnInt(0)));
}

}  // namespace

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
  n.reduceScatterLink = n.allgatherLink = link;
  for (auto [op, into] :
       {std::pair{"reduce_scatter", &n.reduceScatterLink}, std::pair{"allgather", &n.allgatherLink}}) {
    if (const std::optional<Link> own = halfRingLink(db, sweepRunId, op)) {
      *into = *own;
      n.ownFits += std::string(n.ownFits.empty() ? "" : ", ") + op;
    }
  }
  return n;
}

CollectiveCosts fittedCosts(const FittedNetwork& network, int ranks) {
  const Link allreduce = network.system.interNode;
  return {[allreduce, ranks](double bytes) { return ringAllreduceS(bytes, ranks, allreduce); },
          [link = network.reduceScatterLink, ranks](double bytes) {
            return ringReduceScatterS(bytes, ranks, link);
          },
          [link = network.allgatherLink, ranks](double bytes) { return ringAllgatherS(bytes, ranks, link); }};
}

}  // namespace dtb::core
