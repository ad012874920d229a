-- dtbench result store, schema version 1.
-- Forward-only: a later migration adds tables or columns, never drops one.
-- Times are ISO 8601 UTC text; durations are seconds (REAL); sizes bytes.

-- A matrix file run: its name, the TOML as written, where and by which dtbench.
CREATE TABLE experiment (
  id              INTEGER PRIMARY KEY,    -- the experiment's number in this store (experiment_id elsewhere)
  name            TEXT NOT NULL,          -- [experiment] name in the matrix file
  description     TEXT NOT NULL DEFAULT '', -- [experiment] description
  matrix_path     TEXT NOT NULL,          -- the matrix file, as given to dtbench run
  matrix_toml     TEXT NOT NULL,          -- the file as written
  created_at      TEXT NOT NULL,          -- when dtbench run began it
  host            TEXT NOT NULL,          -- the machine the coordinator ran on
  dtbench_version TEXT NOT NULL,          -- the dtbench that ran it
  git_commit      TEXT NOT NULL           -- the source commit that dtbench was built from
);

-- One matrix cell x one repeat.
CREATE TABLE run (
  id                INTEGER PRIMARY KEY,  -- the run's number in this store (run_id elsewhere)
  experiment_id     INTEGER NOT NULL REFERENCES experiment(id), -- the experiment it belongs to
  cell              INTEGER NOT NULL,     -- the matrix cell, from 0: one combination of the matrix's values
  repeat            INTEGER NOT NULL,     -- which repeat of the cell, from 0
  config_key        TEXT NOT NULL,        -- every parameter but world size and what derives from it
  model             TEXT NOT NULL,        -- the model plugin's name (views add its depth: resnet50)
  dataset           TEXT NOT NULL,        -- the dataset plugin's name
  strategy          TEXT NOT NULL,        -- the strategy plugin's name
  backend           TEXT NOT NULL,        -- the communication backend's name
  world_size        INTEGER NOT NULL,     -- ranks the run started with
  batch_size        INTEGER NOT NULL,     -- per rank
  global_batch_size INTEGER NOT NULL,     -- samples per optimizer step over all ranks
  status            TEXT NOT NULL DEFAULT 'pending' -- pending, running, ok, failed, stopped (Ctrl-C) or interrupted (its coordinator died)
                    CHECK (status IN ('pending', 'running', 'ok', 'failed', 'stopped')),
  error             TEXT,                 -- why it failed: rank, plugin, message
  started_at        TEXT,                 -- when its ranks were started
  finished_at       TEXT,                 -- when it ended, however it ended
  UNIQUE (experiment_id, cell, repeat)
);
CREATE INDEX run_by_config ON run (experiment_id, config_key, world_size);

-- Every value of the cell, run keys and plugin parameters ("strategy.zero.stage").
CREATE TABLE run_param (
  run_id    INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  key       TEXT NOT NULL,                -- the key as the matrix names it: "world_size", "strategy.zero.stage"
  value     TEXT NOT NULL,                -- as written in TOML
  value_num REAL,                         -- numeric values, for arithmetic in SQL
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

-- Per epoch; phase seconds are summed over the epoch's steps, averaged over ranks.
CREATE TABLE epoch (
  run_id         INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  epoch          INTEGER NOT NULL,        -- 1-based
  steps          INTEGER NOT NULL,        -- optimizer steps the epoch trained
  samples        INTEGER NOT NULL,        -- trained samples, all ranks
  seconds        REAL NOT NULL,           -- wall time of the training part
  data_s         REAL,                    -- waiting for the loader
  forward_s      REAL,                    -- computing the forward pass (its communication waits taken out)
  backward_s     REAL,                    -- computing the backward pass (its communication waits taken out)
  comm_exposed_s REAL,                    -- the training thread blocked on communication, in any phase
  comm_total_s   REAL,                    -- the backend's busy time, overlapped or not; NULL when it does not count it
  optimizer_s    REAL,                    -- the strategy's step and its own compute after backward (waits taken out)
  train_loss     REAL,                    -- mean loss over the epoch's trained samples, all ranks
  train_accuracy REAL,                    -- share of the epoch's trained samples classified right
  test_loss      REAL,                    -- mean loss over the test split after the epoch
  test_accuracy  REAL,                    -- share of the test split classified right after the epoch
  bytes_sent     INTEGER,                 -- per rank: the data size S of the epoch's steps' collectives, summed (as step.bytes_sent); what crossed the network is step_bus_bytes x steps
  collectives    INTEGER,                 -- per rank: collectives the epoch's steps issued (barriers included)
  PRIMARY KEY (run_id, epoch)
) WITHOUT ROWID;

-- One optimizer step of one rank (step_records = true, the default).
CREATE TABLE step (
  run_id         INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  rank           INTEGER NOT NULL,        -- the rank in the world that ran the step
  step           INTEGER NOT NULL,        -- optimizer steps of the run before this one (from 0)
  epoch          INTEGER NOT NULL,        -- 1-based
  seconds        REAL NOT NULL,           -- the step's wall time on this rank, from asking for data to the update's end
  data_s         REAL,                    -- waiting for the loader
  forward_s      REAL,                    -- computing the forward pass (forward_wait_s taken out)
  backward_s     REAL,                    -- computing the backward pass (backward_wait_s taken out)
  comm_exposed_s REAL,                    -- the training thread blocked on communication, in any phase
  optimizer_s    REAL,                    -- the strategy's step and its own compute after backward (waits taken out)
  loss           REAL,                    -- mean loss over this rank's samples of the step
  bytes_sent     INTEGER,                 -- the data size S of the step's collectives, summed (nccl-tests' size: the buffer of an all-reduce or broadcast, every rank's blocks of a reduce-scatter or all-gather); what crossed the network is bus_bytes
  collectives    INTEGER,                 -- collectives the strategy issued in the step (barriers included)
  PRIMARY KEY (run_id, rank, step)
) WITHOUT ROWID;

-- Timed collectives (dtbench comm sweeps, per-op figures of runs).
-- bytes is S as nccl-tests defines it (whole array for reduce-scatter/all-gather).
CREATE TABLE collective (
  run_id     INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  rank       INTEGER NOT NULL,            -- the rank that timed it
  op         TEXT NOT NULL CHECK (op IN ('allreduce', 'reduce_scatter', 'allgather', 'broadcast', 'reduce', 'alltoall', 'barrier')), -- the collective
  dtype      TEXT NOT NULL,               -- element type: float, half, bfloat16, double, int8, ...
  bytes      INTEGER NOT NULL,            -- S, the data size (nccl-tests' size: the whole array for reduce-scatter and all-gather)
  iterations INTEGER NOT NULL,            -- timed operations
  time_s     REAL NOT NULL,               -- mean per operation
  p50_s      REAL,                        -- median per operation
  p95_s      REAL,                        -- 95th percentile per operation
  wrong      INTEGER NOT NULL DEFAULT 0   -- elements that failed the correctness check
);
CREATE INDEX collective_by_run ON collective (run_id, op, bytes);

-- What happened to a run beside its steps: faults, membership changes, rebucketing, overflows.
CREATE TABLE event (
  id     INTEGER PRIMARY KEY,             -- in the order stored
  run_id INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  rank   INTEGER,                         -- NULL: the coordinator
  at_s   REAL NOT NULL,                   -- seconds since the run started
  kind   TEXT NOT NULL,                   -- fault, membership, rebucket, overflow, ...
  detail TEXT NOT NULL DEFAULT ''         -- what happened, in words
);
CREATE INDEX event_by_run ON event (run_id);

-- Per rank of a run: the bytes the strategy holds by category (its ledger) and the peak RSS the OS saw.
CREATE TABLE memory (
  run_id          INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  rank            INTEGER NOT NULL,       -- the rank it measured
  param_bytes     INTEGER,                -- parameters this rank holds
  grad_bytes      INTEGER,                -- gradients this rank holds
  optimizer_bytes INTEGER,                -- optimizer state this rank holds (momentum, Adam's moments)
  buffer_bytes    INTEGER,                -- the strategy's other buffers (staging, gather pools, fusion buffer)
  peak_rss_bytes  INTEGER,                -- the process's peak resident memory, as the OS saw it
  PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;

-- Where and with what a run ran. Never the whole process environment.
CREATE TABLE environment (
  run_id INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  key    TEXT NOT NULL,                   -- what: host, os, cpu_model, cpu_cores, memory_bytes, gpus, compiler, ...
  value  TEXT NOT NULL,                   -- its value
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

-- The plugins a run loaded: name, version, ABI and the path actually loaded.
CREATE TABLE plugin_load (
  run_id  INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  kind    TEXT NOT NULL,                  -- model, dataset, strategy or backend
  name    TEXT NOT NULL,                  -- the plugin's name
  version TEXT NOT NULL,                  -- the plugin's own version
  abi     TEXT NOT NULL,                  -- the plugin ABI it was built for, major.minor
  path    TEXT NOT NULL,                  -- the library file loaded
  PRIMARY KEY (run_id, kind)
) WITHOUT ROWID;
