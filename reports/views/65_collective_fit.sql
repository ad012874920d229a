-- The latency-bandwidth (alpha-beta) model of each swept collective, fitted
-- to its sizes: t = latency + bus bytes / bandwidth, bus bytes = S x the bus
-- factor (as busbw_gbps). Weighted least squares, weights 1/t^2 (relative
-- errors: the small sizes decide the latency, the large ones the bandwidth),
-- as `dtbench comm` prints it after its table. NULL with fewer than 3 sizes
-- or times that do not grow with size (one rank: no bus).
--   run_id         the sweep's run (run.id)
--   experiment     the experiment's name
--   experiment_id  the experiment (experiment.id)
--   label          what sets the configuration apart within its experiment, else the strategy
--   backend        the communication backend
--   world_size     the ranks
--   op             the collective
--   dtype          element type
--   sizes          message sizes fitted (rows of collective_bandwidth)
--   latency_us     the fit's latency: the time of an empty message
--   bus_gbps       the fit's bandwidth: bus bytes per second, GB = 1e9 bytes
CREATE VIEW collective_fit AS
SELECT run_id, experiment, experiment_id, label, backend, world_size, op, dtype, sizes,
       (sy - slope * sx) / sw AS latency_us,
       1e-3 / slope AS bus_gbps
FROM (
  SELECT *,
         CASE WHEN sizes >= 3 AND sw * sxx - sx * sx > 0 AND sw * sxy - sx * sy > 0
              THEN (sw * sxy - sx * sy) / (sw * sxx - sx * sx) END AS slope
  FROM (
    SELECT run_id, experiment, experiment_id, label, backend, world_size, op, dtype, COUNT(*) AS sizes,
           SUM(1.0 / (time_us * time_us)) AS sw,
           SUM(bus_bytes / (time_us * time_us)) AS sx,
           SUM(1.0 / time_us) AS sy,
           SUM(bus_bytes * bus_bytes / (time_us * time_us)) AS sxx,
           SUM(bus_bytes / time_us) AS sxy
    FROM (SELECT *, busbw_gbps * time_us * 1e3 AS bus_bytes FROM collective_bandwidth)
    GROUP BY run_id, op, dtype
  )
);
