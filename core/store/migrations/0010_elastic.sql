-- Elastic runs (recovery = "elastic", Horovod Elastic's way): each new world
-- the coordinator decided, after a failure (the survivors roll back to
-- their last commit and go on) or when a worker joined (at the members'
-- next commit, no rollback). With the cell's world_size at the start, the
-- run's world size over time.
CREATE TABLE world_change (
  run_id     INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  generation INTEGER NOT NULL,  -- 1 for the run's first new world
  at_s       REAL NOT NULL,     -- s since the run began: the coordinator wrote the new world
  kind       TEXT NOT NULL,     -- reset (after a failure), join, join_lost (the joiner died before it got in), leave (workers of hosts discovery dropped), or start (a first world smaller than world_size: the hosts had fewer slots)
  world_size INTEGER NOT NULL,  -- ranks of the new world
  from_step  INTEGER,           -- reset: the step of the commit the new world went back to
  cause      TEXT,              -- what failed (reset, join_lost), or where workers started or which hosts left (join, leave, start)
  PRIMARY KEY (run_id, generation)
) WITHOUT ROWID;

-- Ranks the run went on with after the recovery: every rank for restart,
-- the survivors for elastic.
ALTER TABLE recovery ADD COLUMN world_size INTEGER;  -- ranks after it: every rank (restart), the survivors (elastic)

-- When each step ended, on the run's clock: throughput over time, a
-- recovery's gap included (the report draws it with the faults marked).
ALTER TABLE step ADD COLUMN ended_at_s REAL;  -- s since the run began: the step ended on its rank
