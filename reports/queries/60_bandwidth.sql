-- Report query: collective sweeps (dtbench comm) — bus bandwidth against
-- message size per backend, collective, dtype and world size, with the
-- memcpy reference measured in the same run.
SELECT experiment_id, backend, ranks, op, dtype, bytes,
       AVG(busbw_gbps) AS busbw_gbps, AVG(algbw_gbps) AS algbw_gbps,
       AVG(time_us) AS time_us, AVG(p50_us) AS p50_us, AVG(p95_us) AS p95_us,
       MAX(memcpy_gbps) AS memcpy_gbps, SUM(wrong) AS wrong
FROM collective_bandwidth
WHERE experiment_id IN ({experiments})
GROUP BY experiment_id, backend, ranks, op, dtype, bytes
ORDER BY experiment_id, op, backend, ranks, dtype, bytes;
