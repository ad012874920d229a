-- What `dtbench project --store` predicted from a stored run: its step
-- under each strategy's schedule on a target system's GPUs
-- (docs/projection.md). Projections, not measurements: the report draws
-- them on a chart of their own, beside the measured efficiency of the
-- run's experiment.
CREATE TABLE projection (
  run_id          INTEGER NOT NULL REFERENCES run(id), -- the run the step profile came from
  system          TEXT NOT NULL,     -- the system file's name, or the sweep whose fit stood for the network
  network         TEXT NOT NULL,     -- that sweep's emulated network (run_network.profile); '' for a system file
  target          TEXT NOT NULL,     -- how one GPU's step was decided: a throughput, a speed-up, as measured
  strategy        TEXT NOT NULL,     -- the schedule simulated: allreduce, bucketed, fusion, zero-1, zero-2, zero-3
  gpus            INTEGER NOT NULL,  -- GPUs training together
  nodes           INTEGER NOT NULL,  -- the nodes they fill
  samples_per_gpu INTEGER NOT NULL,  -- one GPU's samples a step
  step_s          REAL NOT NULL,     -- a step: data, compute, exposed communication, the loop
  samples_per_s   REAL NOT NULL,     -- every GPU's samples together
  ref_gpus        INTEGER NOT NULL,  -- the GPU count speed-up and efficiency are against
  speedup         REAL NOT NULL,     -- samples_per_s against the reference count's
  efficiency      REAL NOT NULL,     -- speedup x ref_gpus / gpus
  exposed_share   REAL NOT NULL,     -- the step's share spent waiting for communication
  comm_s          REAL NOT NULL,     -- the communication stream's busy time a step, hidden or not
  created_at      TEXT NOT NULL,     -- when it was projected (ISO 8601, UTC)
  PRIMARY KEY (run_id, system, target, strategy, gpus)
) WITHOUT ROWID;
