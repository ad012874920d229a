-- Where a step's time goes, per run, in ms per step (steady epochs); the
-- phases sum to step_ms (other_ms is what no phase holds: the loop itself).
-- On a CPU the backend's threads share cores with compute: "hidden" time is
-- overlapped, not free (docs/comparing-strategies.md).
--   run_id              the run
--   experiment          the experiment's name
--   experiment_id       the experiment
--   cell                the matrix cell the run belongs to
--   repeat              the run's repeat within its cell, from 0
--   label               what sets the run's configuration apart within its experiment
--   strategy            the strategy plugin
--   backend             the communication backend plugin
--   model               the model, with its depth (resnet50)
--   world_size          ranks that trained
--   step_ms             wall time per optimizer step
--   data_ms             waiting for the data loader
--   forward_ms          forward, less its communication waits
--   backward_ms         backward with the strategy's hooks, less their communication waits
--   comm_exposed_ms     the training thread blocked on communication, in any
--                       phase: every wait in forward, backward, finish_backward
--                       or the strategy's step (taken out of those), and a wait
--                       for the strategy's own thread where it declares it
--   comm_total_ms       the backend's busy time, overlapped or not
--   comm_hidden_ms      total - exposed, never below 0
--   optimizer_ms        the strategy's step and its own computation after
--                       backward (finish_backward less its waits: top-k,
--                       compression, copies)
--   other_ms            what no phase holds: the training loop itself
--   data_share          data_ms / step_ms, in [0, 1]: the step's share spent
--                       waiting for the loader (decoding, when no thread is ahead)
--   comm_exposed_share  exposed communication / step time, in [0, 1]
--   comm_hidden_share   hidden / total communication, in [0, 1]; NULL where
--                       nothing crossed the network (one rank) or the backend
--                       does not count its busy time
--   loaded              1 when other processes or the hypervisor took CPU while the run ran
CREATE VIEW step_breakdown AS
SELECT f.run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
       r.strategy, r.backend, rm.model, r.world_size,
       1000.0 * f.steady_seconds / f.steady_steps AS step_ms,
       1000.0 * f.steady_data_s / f.steady_steps AS data_ms,
       1000.0 * f.steady_forward_s / f.steady_steps AS forward_ms,
       1000.0 * f.steady_backward_s / f.steady_steps AS backward_ms,
       1000.0 * f.steady_comm_exposed_s / f.steady_steps AS comm_exposed_ms,
       1000.0 * f.steady_comm_total_s / f.steady_steps AS comm_total_ms,
       1000.0 * MAX(f.steady_comm_total_s - f.steady_comm_exposed_s, 0) / f.steady_steps AS comm_hidden_ms,
       1000.0 * f.steady_optimizer_s / f.steady_steps AS optimizer_ms,
       1000.0 * (f.steady_seconds - COALESCE(f.steady_data_s, 0) - COALESCE(f.steady_forward_s, 0)
                 - COALESCE(f.steady_backward_s, 0) - COALESCE(f.steady_comm_exposed_s, 0)
                 - COALESCE(f.steady_optimizer_s, 0)) / f.steady_steps AS other_ms,
       MIN(MAX(f.steady_data_s / f.steady_seconds, 0), 1) AS data_share,
       MIN(MAX(f.steady_comm_exposed_s / f.steady_seconds, 0), 1) AS comm_exposed_share,
       CASE WHEN f.steady_bus_bytes > 0 AND f.steady_comm_total_s > 0
            THEN MIN(MAX(f.steady_comm_total_s - f.steady_comm_exposed_s, 0) / f.steady_comm_total_s, 1) END
         AS comm_hidden_share,
       r.loaded
FROM run_figure f
JOIN run r ON r.id = f.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id;
