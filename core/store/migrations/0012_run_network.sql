-- The emulated network a run had (tools/cluster.sh's hosts, the cell's
-- `network`, run_param 'network'): the profile, what its switch
-- applied to every link (one-way latency, rate per direction) and the
-- published figures it stands for, slowed down time_scale times. 'none':
-- the emulated network unshaped. No row: the hosts' own network, which
-- dtbench neither shapes nor measures.
CREATE TABLE run_network (
  run_id               INTEGER PRIMARY KEY REFERENCES run(id), -- the run (run.id)
  profile              TEXT NOT NULL,  -- none, 10gbe, 25gbe, 100gbe, ib-hdr ('none': unshaped)
  latency_us           REAL NOT NULL,  -- as applied, one way, per link
  link_gbps            REAL,           -- as applied, 1e9 bytes/s per direction; NULL: unlimited
  published_latency_us REAL NOT NULL,  -- the interconnect's own one-way latency
  published_gbps       REAL,           -- the interconnect's own rate, 1e9 bytes/s per direction
  time_scale           REAL NOT NULL   -- how many times slower the emulation runs
);
