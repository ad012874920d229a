-- Collective sweeps (dtbench comm) with nccl-tests' figures (GB = 1e9 bytes):
--   algbw = S / t;  busbw = algbw x factor
--   factor: allreduce 2(n-1)/n; reduce_scatter, allgather, alltoall (n-1)/n;
--           broadcast, reduce 1.
-- busbw is comparable across ops and world sizes; of_memcpy reads it against
-- the memcpy bandwidth one rank reached in the same run (bandwidth_reference).
-- world_size as in every view; `ranks` is the same number, kept for queries
-- written before the views shared one name for it.
CREATE VIEW collective_bandwidth AS
SELECT b.*, b.busbw_gbps / b.memcpy_gbps AS of_memcpy
FROM (
  SELECT c.run_id, x.name AS experiment, r.experiment_id, r.backend, r.world_size, r.world_size AS ranks, c.rank, c.op, c.dtype, c.bytes,
         c.iterations, 1e6 * c.time_s AS time_us, 1e6 * c.p50_s AS p50_us, 1e6 * c.p95_s AS p95_us,
         c.wrong,
         c.bytes / c.time_s / 1e9 AS algbw_gbps,
         c.bytes / c.time_s / 1e9 *
           CASE c.op
             WHEN 'allreduce' THEN 2.0 * (r.world_size - 1) / r.world_size
             WHEN 'reduce_scatter' THEN 1.0 * (r.world_size - 1) / r.world_size
             WHEN 'allgather' THEN 1.0 * (r.world_size - 1) / r.world_size
             WHEN 'alltoall' THEN 1.0 * (r.world_size - 1) / r.world_size
             WHEN 'broadcast' THEN 1.0
             WHEN 'reduce' THEN 1.0
           END AS busbw_gbps,
         m.gbps AS memcpy_gbps
  FROM collective c
  JOIN run r ON r.id = c.run_id
  JOIN experiment x ON x.id = r.experiment_id
  LEFT JOIN bandwidth_reference m ON m.run_id = c.run_id AND m.name = 'memcpy'
  WHERE c.op != 'barrier' AND c.time_s > 0
) b;
