-- Collective sweeps (dtbench comm) with nccl-tests' bandwidth figures, GB =
-- 1e9 bytes. For a collective of data size S taking t at n ranks:
--   algbw = S / t;  busbw = algbw x factor
--   factor: allreduce 2(n-1)/n; reduce_scatter, allgather, alltoall (n-1)/n;
--           broadcast, reduce 1.
-- busbw is comparable across ops and world sizes; of_memcpy reads it against
-- the memcpy bandwidth one rank reached in the same run (bandwidth_reference).
--   run_id         the sweep's run (run.id)
--   experiment     the experiment's name
--   experiment_id  the experiment (experiment.id)
--   label          what sets the configuration apart within its experiment, else the strategy
--   backend        the communication backend
--   world_size     n, the ranks
--   ranks          the same as world_size (another name for it)
--   rank           the rank that timed it
--   op             allreduce, reduce_scatter, allgather, broadcast, reduce or alltoall
--   dtype          element type: float, half, bfloat16, double, int8, ...
--   bytes          S, the data size (nccl-tests' size: the whole array for reduce-scatter and all-gather)
--   iterations     timed operations
--   time_us        mean time per operation
--   p50_us         median time per operation
--   p95_us         95th percentile time per operation
--   wrong          elements that failed the correctness check (0: all right)
--   algbw_gbps     algorithm bandwidth S / t, GB = 1e9 bytes
--   busbw_gbps     bus bandwidth algbw x the op's factor: what each rank's link carried
--   memcpy_gbps    what one rank copied per second while every rank copied, in the same run
--   of_memcpy      busbw_gbps / memcpy_gbps
CREATE VIEW collective_bandwidth AS
SELECT b.*, b.busbw_gbps / b.memcpy_gbps AS of_memcpy
FROM (
  SELECT c.run_id, x.name AS experiment, r.experiment_id, COALESCE(r.label, r.strategy) AS label, r.backend,
         r.world_size, r.world_size AS ranks, c.rank, c.op, c.dtype, c.bytes,
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
