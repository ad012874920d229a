#include "projection/stored_profile.h"

#include <algorithm>
#include <string>

namespace dtb::core {
namespace {

std::string runParam(Database& db, int64_t runId, const std::string& key, const std::string& fallback) {
  Statement q = db.prepare("SELECT value FROM run_param WHERE run_id = ? AND key = ?");
  q.bind(1, runId).bind(2, key);
  return q.step() ? q.columnText(0) : fallback;
}

}  // namespace

ProfiledRun readProfiledRun(Database& db, int64_t runId) {
  const std::string which = "run " + std::to_string(runId);
  ProfiledRun run;
  run.runId = runId;
  Statement r = db.prepare(
      "SELECT rm.model, r.dataset, r.strategy, r.world_size FROM run r JOIN run_model rm ON rm.run_id = r.id "
      "WHERE r.id = ?");
  r.bind(1, runId);
  if (!r.step()) throw ProfileError(which + ": no such run in this store");
  run.model = r.columnText(0);
  run.dataset = r.columnText(1);
  run.strategy = r.columnText(2);
  run.worldSize = static_cast<int>(r.columnInt(3));
  run.device = runParam(db, runId, "device", "cpu");
  if (run.device.size() >= 2 && run.device.front() == '"')
    run.device = run.device.substr(1, run.device.size() - 2);

  StepProfile& p = run.profile;
  Statement phases = db.prepare(
      "SELECT data_ms, forward_ms, backward_ms, optimizer_ms, other_ms FROM step_breakdown WHERE run_id = ?");
  phases.bind(1, runId);
  if (!phases.step() || phases.columnReal(2) <= 0)
    throw ProfileError(which + ": no steady steps with their phases (a run needs 2 epochs, or step records)");
  p.dataS = phases.columnReal(0) / 1e3;
  p.forwardS = phases.columnReal(1) / 1e3;
  p.backwardS = phases.columnReal(2) / 1e3;
  p.optimizerS = phases.columnReal(3) / 1e3;
  p.otherS = std::max(0.0, phases.columnReal(4) / 1e3);
  p.samplesPerStep = std::stoll(runParam(db, runId, "batch_size", "0")) *
                     std::stoll(runParam(db, runId, "accumulation_steps", "1"));

  // Rank 0's times, as a share of the backward they were measured in,
  // placed in the steady steps' backward.
  Statement g = db.prepare(
      "SELECT param, layer, bytes, ready_s, backward_s FROM gradient_ready WHERE run_id = ? AND rank = 0 "
      "ORDER BY ready_s, param");
  g.bind(1, runId);
  while (g.step()) {
    const double measuredBackwardS = g.columnReal(4);
    const double share = measuredBackwardS > 0 ? std::min(1.0, g.columnReal(3) / measuredBackwardS) : 1.0;
    p.gradients.push_back({g.columnInt(0), g.columnInt(1), g.columnReal(2), share * p.backwardS});
  }
  if (p.gradients.empty() && run.device == "cuda")
    throw ProfileError(which +
                       ": no gradient_ready rows: a GPU run under a strategy that listens for no "
                       "gradient (" +
                       run.strategy +
                       ") is not profiled where its model waits for the GPU before each hook (the model "
                       "parameter wait_for_gradients = true, a model without gpu_stream, a dtbench before "
                       "ABI 1.13), since the profile alone would make every layer wait; project a run of "
                       "bucketed, fusion or zero on the GPU, or one on the CPU");
  if (p.gradients.empty())
    throw ProfileError(which +
                       ": no gradient_ready rows (the run failed before its end, or a dtbench before "
                       "the projection stored it): run it again");
  return run;
}

}  // namespace dtb::core
