-- When each gradient of each rank became ready in backward, the mean over
-- the run's steps but its first: the order and the times a strategy's
-- communication can overlap, which `dtbench project` schedules DDP's
-- buckets, Horovod's fusion cycles and ZeRO's reduce-scatters against. On
-- a GPU the times are when the GPU computed each gradient (CUDA events on
-- the model's stream).
CREATE TABLE gradient_ready (
  run_id     INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  rank       INTEGER NOT NULL,  -- the rank in the run's world
  param      INTEGER NOT NULL,  -- the parameter's index, in the model's registration order
  layer      INTEGER NOT NULL,  -- the layer that uses it
  name       TEXT NOT NULL,     -- the parameter's name, e.g. conv1.weight
  bytes      INTEGER NOT NULL,  -- the gradient's size
  ready_s    REAL NOT NULL,     -- seconds after backward began, the mean over the steps
  backward_s REAL NOT NULL,     -- the mean length of those backwards
  steps      INTEGER NOT NULL,  -- the backwards averaged (micro-batches count each)
  PRIMARY KEY (run_id, rank, param)
) WITHOUT ROWID;
