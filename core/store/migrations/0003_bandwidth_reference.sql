-- What this machine can move, measured in the same run as the collectives it
-- frames (dtbench comm): a collective's bus bandwidth read as a fraction of it.
CREATE TABLE bandwidth_reference (
  run_id INTEGER NOT NULL REFERENCES run(id), -- the sweep's run (run.id)
  name   TEXT NOT NULL,   -- memcpy: one rank copying while every rank copies
  bytes  INTEGER NOT NULL, -- the size of each copy
  gbps   REAL NOT NULL,   -- bytes copied per second / 1e9, median of the repetitions
  PRIMARY KEY (run_id, name)
) WITHOUT ROWID;
