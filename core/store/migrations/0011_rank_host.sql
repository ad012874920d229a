-- Where each rank of a run lived: its host, its rank among that host's
-- ranks (the launcher's local rank: the GPU it picks), and the address its
-- transport bound (the cell's interface, run_param 'interface'). Every
-- run's ranks, on one host or several.
CREATE TABLE rank_host (
  run_id     INTEGER NOT NULL REFERENCES run(id), -- the run (run.id)
  rank       INTEGER NOT NULL,  -- the rank in the run's world
  host       TEXT NOT NULL,     -- the rank's host name (gethostname)
  local_rank INTEGER NOT NULL,  -- among the ranks on that host
  address    TEXT NOT NULL,     -- what its transport bound: an address, or a host name to resolve
  PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;
