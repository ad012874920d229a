-- Numbers users can trust: per-step records that say where each wait went,
-- plugin metrics, a label for what sets a configuration apart, and the
-- machine's load while each run ran.

-- The training thread's communication waits, taken out of the phase they
-- happened in (all part of comm_exposed_s), and what the step moved.
ALTER TABLE step ADD COLUMN samples INTEGER;          -- trained samples, this rank
ALTER TABLE step ADD COLUMN comm_total_s REAL;        -- the backend's busy time, overlapped or not
ALTER TABLE step ADD COLUMN bus_bytes REAL;           -- what the rank sent for the step's collectives in a bandwidth-optimal algorithm, nccl-tests' bus bytes: S x 2(n-1)/n for all-reduce, S x (n-1)/n for reduce-scatter and all-gather, S for broadcast
ALTER TABLE step ADD COLUMN forward_wait_s REAL;      -- waits in forward (e.g. ZeRO-3's gathers)
ALTER TABLE step ADD COLUMN backward_wait_s REAL;     -- waits in backward's hooks
ALTER TABLE step ADD COLUMN optimizer_wait_s REAL;    -- waits in the strategy's step (e.g. ZeRO's all-gather)

-- What a plugin added with host->metric_add during one step of one rank.
CREATE TABLE step_metric (
  run_id INTEGER NOT NULL REFERENCES run(id),         -- the run (run.id)
  rank   INTEGER NOT NULL,                            -- the rank whose plugin reported it
  step   INTEGER NOT NULL,                            -- the optimizer step (step.step)
  plugin TEXT NOT NULL,                               -- strategy, backend, model, dataset
  name   TEXT NOT NULL,                               -- the metric's name, as the plugin gave it
  value  REAL NOT NULL,                               -- the sum of what it added in the step
  PRIMARY KEY (run_id, rank, step, plugin, name)
) WITHOUT ROWID;

-- What distinguishes the run's configuration within its experiment, e.g.
-- "fusion threshold=67108864", "zero stage=3", "resnet50 bucketed".
ALTER TABLE run ADD COLUMN label TEXT;  -- what sets the configuration apart: "zero stage=3", "resnet50 bucketed"; NULL: none (views read the strategy)

-- The machine while the run ran (coordinator's view, /proc): other
-- processes' CPU use, the hypervisor's steal, the load average.
ALTER TABLE run ADD COLUMN cpus INTEGER;              -- online cores
ALTER TABLE run ADD COLUMN competing_cpus REAL;       -- cores other processes kept busy, on average
ALTER TABLE run ADD COLUMN steal_share REAL;          -- share of CPU time the hypervisor took
ALTER TABLE run ADD COLUMN load_avg REAL;             -- 1-minute load average at the end
ALTER TABLE run ADD COLUMN competing_processes TEXT;  -- the busiest others, e.g. "cc1plus 4.20 s, ninja 0.31 s"
ALTER TABLE run ADD COLUMN loaded INTEGER;            -- 1: competing load or steal past the thresholds
