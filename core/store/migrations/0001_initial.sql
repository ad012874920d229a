-- dtbench result store, schema version 1.
-- Forward-only: a later migration adds tables or columns, never drops one.
-- Times are ISO 8601 UTC text; durations are seconds (REAL); sizes bytes.

-- A matrix file run: its name, the TOML as written, where and by which dtbench.
CREATE TABLE experiment (
  id              INTEGER PRIMARY KEY,
  name            TEXT NOT NULL,
  description     TEXT NOT NULL DEFAULT '',
  matrix_path     TEXT NOT NULL,
  matrix_toml     TEXT NOT NULL,          -- the file as written
  created_at      TEXT NOT NULL,
  host            TEXT NOT NULL,
  dtbench_version TEXT NOT NULL,
  git_commit      TEXT NOT NULL
);

-- One matrix cell x one repeat.
CREATE TABLE run (
  id                INTEGER PRIMARY KEY,
  experiment_id     INTEGER NOT NULL REFERENCES experiment(id),
  cell              INTEGER NOT NULL,
  repeat            INTEGER NOT NULL,
  config_key        TEXT NOT NULL,        -- every parameter but world size and what derives from it
  model             TEXT NOT NULL,
  dataset           TEXT NOT NULL,
  strategy          TEXT NOT NULL,
  backend           TEXT NOT NULL,
  world_size        INTEGER NOT NULL,
  batch_size        INTEGER NOT NULL,     -- per rank
  global_batch_size INTEGER NOT NULL,
  status            TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'running', 'ok', 'failed', 'stopped')),
  error             TEXT,                 -- why it failed: rank, plugin, message
  started_at        TEXT,
  finished_at       TEXT,
  UNIQUE (experiment_id, cell, repeat)
);
CREATE INDEX run_by_config ON run (experiment_id, config_key, world_size);

-- Every value of the cell, run keys and plugin parameters ("strategy.zero.stage").
CREATE TABLE run_param (
  run_id    INTEGER NOT NULL REFERENCES run(id),
  key       TEXT NOT NULL,
  value     TEXT NOT NULL,                -- as written in TOML
  value_num REAL,                         -- numeric values, for arithmetic in SQL
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

-- Per epoch; phase seconds are summed over the epoch's steps, averaged over ranks.
CREATE TABLE epoch (
  run_id         INTEGER NOT NULL REFERENCES run(id),
  epoch          INTEGER NOT NULL,        -- 1-based
  steps          INTEGER NOT NULL,
  samples        INTEGER NOT NULL,        -- trained samples, all ranks
  seconds        REAL NOT NULL,           -- wall time of the training part
  data_s         REAL,                    -- waiting for the loader
  forward_s      REAL,
  backward_s     REAL,
  comm_exposed_s REAL,                    -- communication not hidden behind compute
  comm_total_s   REAL,
  optimizer_s    REAL,
  train_loss     REAL,
  train_accuracy REAL,
  test_loss      REAL,
  test_accuracy  REAL,
  bytes_sent     INTEGER,                 -- per rank
  collectives    INTEGER,                 -- per rank
  PRIMARY KEY (run_id, epoch)
) WITHOUT ROWID;

-- Optional full per-step rows.
CREATE TABLE step (
  run_id         INTEGER NOT NULL REFERENCES run(id),
  rank           INTEGER NOT NULL,
  step           INTEGER NOT NULL,
  epoch          INTEGER NOT NULL,
  seconds        REAL NOT NULL,
  data_s         REAL,
  forward_s      REAL,
  backward_s     REAL,
  comm_exposed_s REAL,
  optimizer_s    REAL,
  loss           REAL,
  bytes_sent     INTEGER,
  collectives    INTEGER,
  PRIMARY KEY (run_id, rank, step)
) WITHOUT ROWID;

-- Timed collectives (dtbench comm sweeps, per-op figures of runs).
-- bytes is S as nccl-tests defines it (whole array for reduce-scatter/all-gather).
CREATE TABLE collective (
  run_id     INTEGER NOT NULL REFERENCES run(id),
  rank       INTEGER NOT NULL,
  op         TEXT NOT NULL CHECK (op IN ('allreduce', 'reduce_scatter', 'allgather', 'broadcast', 'reduce', 'alltoall', 'barrier')),
  dtype      TEXT NOT NULL,
  bytes      INTEGER NOT NULL,
  iterations INTEGER NOT NULL,
  time_s     REAL NOT NULL,               -- mean per operation
  p50_s      REAL,
  p95_s      REAL,
  wrong      INTEGER NOT NULL DEFAULT 0   -- elements that failed the correctness check
);
CREATE INDEX collective_by_run ON collective (run_id, op, bytes);

-- What happened to a run beside its steps: faults, membership changes, rebucketing, overflows.
CREATE TABLE event (
  id     INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES run(id),
  rank   INTEGER,                         -- NULL: the coordinator
  at_s   REAL NOT NULL,                   -- seconds since the run started
  kind   TEXT NOT NULL,                   -- fault, membership, rebucket, overflow, ...
  detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX event_by_run ON event (run_id);

-- Per rank of a run: the bytes the strategy holds by category (its ledger) and the peak RSS the OS saw.
CREATE TABLE memory (
  run_id          INTEGER NOT NULL REFERENCES run(id),
  rank            INTEGER NOT NULL,
  param_bytes     INTEGER,
  grad_bytes      INTEGER,
  optimizer_bytes INTEGER,
  buffer_bytes    INTEGER,
  peak_rss_bytes  INTEGER,
  PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;

-- Where and with what a run ran. Never the whole process environment.
CREATE TABLE environment (
  run_id INTEGER NOT NULL REFERENCES run(id),
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

-- The plugins a run loaded: name, version, ABI and the path actually loaded.
CREATE TABLE plugin_load (
  run_id  INTEGER NOT NULL REFERENCES run(id),
  kind    TEXT NOT NULL,
  name    TEXT NOT NULL,
  version TEXT NOT NULL,
  abi     TEXT NOT NULL,
  path    TEXT NOT NULL,
  PRIMARY KEY (run_id, kind)
) WITHOUT ROWID;
