-- One row per recovery of a run from a failed rank (recovery = "restart",
-- torchrun's way: every worker started again from the last checkpoint; or
-- "elastic", Horovod Elastic's way: the survivors went back to their last
-- commit and on in a new world): what failed, when the coordinator saw it,
-- where the run went on from and the work it had to do again. The
-- recovery_cost view adds the time to detect (from an injected fault) and
-- to recover (to the first step done).
CREATE TABLE recovery (
  run_id         INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  attempt        INTEGER NOT NULL,  -- 1 for the run's first restart (elastic: its reset count, joins included)
  mode           TEXT NOT NULL,     -- restart or elastic
  cause          TEXT NOT NULL,     -- the failure, as the run's error would have read
  failed_at_s    REAL NOT NULL,     -- s since the run began: the coordinator saw the failure
  restarted_at_s REAL NOT NULL,     -- s since the run began: the workers were started again (elastic: the new world written)
  resumed_step   INTEGER NOT NULL,  -- the checkpoint's (elastic: commit's) step the run went on from (0: the beginning)
  lost_steps     INTEGER,           -- steps stored past it before the failure, so run twice; NULL with step_records = false
  PRIMARY KEY (run_id, attempt)
) WITHOUT ROWID;
