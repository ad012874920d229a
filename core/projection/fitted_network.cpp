#include "projection/fitted_network.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "projection/collective_cost.h"
#include "projection/stored_profile.h"

namespace dtb::core {
namespace {

// A sweep's fit of one collective (collective_fit), f32 where it swept several dtypes.
struct OpFit {
  std::string backend, network;
  int ranks = 0;
  double latencyS = 0, busBytesPerS = 0;
};

std::optional<OpFit> readOpFit(Database& db, int64_t sweepRunId, const std::string& op) {
  Statement fit = db.prepare(
      "SELECT f.backend, f.world_size, f.latency_us, f.bus_gbps, COALESCE(n.profile, '') "
      "FROM collective_fit f LEFT JOIN run_network n ON n.run_id = f.run_id "
      "WHERE f.run_id = ? AND f.op = ? AND f.bus_gbps > 0 ORDER BY f.dtype = 'f32' DESC LIMIT 1");
  fit.bind(1, sweepRunId).bind(2, op);
  if (!fit.step()) return std::nullopt;
  // A least-squares intercept can fall below zero: no latency, then.
  return OpFit{fit.columnText(0), fit.columnText(4), static_cast<int>(fit.columnInt(1)),
               std::max(0.0, fit.columnReal(2)) * 1e-6, fit.columnReal(3) * 1e9};
}

}  // namespace

FittedNetwork readFittedNetwork(Database& db, int64_t sweepRunId) {
  const std::optional<OpFit> allreduce = readOpFit(db, sweepRunId, "allreduce");
  if (!allreduce) {
    throw ProfileError("run " + std::to_string(sweepRunId) +
                       ": no all-reduce fit (collective_fit) — a `dtbench comm --ops allreduce` sweep of 3 "
                       "sizes or more at 2 ranks or more has one");
  }
  FittedNetwork n;
  n.runId = sweepRunId;
  n.backend = allreduce->backend;
  n.ranks = allreduce->ranks;
  n.latencyS = allreduce->latencyS;
  n.busBytesPerS = allreduce->busBytesPerS;
  n.network = allreduce->network;
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
    if (const std::optional<OpFit> own = readOpFit(db, sweepRunId, op)) {
      *into = linkFromHalfRingFit(own->latencyS, own->busBytesPerS, own->ranks);
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
