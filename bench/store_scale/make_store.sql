-- A result store of months of use, for bench/store_scale/compare.sh (1,000
-- experiments, 100 steps a run: 10,000 runs, 1 M step rows) and the view
-- cost test (tests/core/store/view_cost_test.cpp, smaller): experiments of
-- 10 runs (5 configurations x world sizes 1 and 2), each run 3 epochs and
-- its steps on 1 rank, a memory row, its parameters. Run on a store dtbench
-- created (schema and views), after
--   CREATE TEMP TABLE bench_size AS SELECT <experiments> AS experiments, <steps> AS steps;
DELETE FROM step_metric; DELETE FROM step; DELETE FROM epoch; DELETE FROM memory; DELETE FROM run_param;
DELETE FROM event; DELETE FROM collective; DELETE FROM bandwidth_reference; DELETE FROM environment;
DELETE FROM plugin_load; DELETE FROM run; DELETE FROM experiment;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < (SELECT experiments FROM bench_size))
INSERT INTO experiment (id, name, matrix_path, matrix_toml, created_at, host, dtbench_version, git_commit)
SELECT i, 'exp' || i, 'm.toml', '', '2026-11-23T00:00:00Z', 'bench', '0', '' FROM n;

-- Run id r: experiment (r - 1) / 10 + 1, cell (r - 1) % 10: configuration
-- cell / 2 (strategy), world size 1 + cell % 2.
WITH RECURSIVE n(r) AS (SELECT 1 UNION ALL SELECT r + 1 FROM n WHERE r < 10 * (SELECT experiments FROM bench_size))
INSERT INTO run (id, experiment_id, cell, repeat, config_key, model, dataset, strategy, backend, world_size,
                 batch_size, global_batch_size, status, label, loaded, competing_cpus)
SELECT r, (r - 1) / 10 + 1, (r - 1) % 10, 0, 'strategy=s' || ((r - 1) % 10 / 2), 'lenet', 'idx',
       's' || ((r - 1) % 10 / 2), 'gloo', 1 + (r - 1) % 2, 32, 32 * (1 + (r - 1) % 2), 'ok',
       's' || ((r - 1) % 10 / 2), 0, 0.01
FROM n;

INSERT INTO run_param (run_id, key, value, value_num)
SELECT id, 'world_size', world_size, world_size FROM run
UNION ALL SELECT id, 'strategy', '"' || strategy || '"', NULL FROM run
UNION ALL SELECT id, 'batch_size', '32', 32 FROM run;

WITH RECURSIVE e(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM e WHERE k < 3)
INSERT INTO epoch (run_id, epoch, steps, samples, seconds, data_s, forward_s, backward_s, comm_exposed_s,
                   comm_total_s, optimizer_s, train_loss, test_accuracy, step_bus_bytes)
SELECT r.id, e.k, 100, 3200 * r.world_size, 1.0 + (r.id % 7) * 0.01, 0.1, 0.3, 0.4, 0.1, 0.2, 0.05,
       1.0 / e.k, 0.9 + 0.01 * e.k, 1000.0 * (r.world_size - 1)
FROM run r, e;

WITH RECURSIVE s(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM s WHERE k < (SELECT steps FROM bench_size) - 1)
INSERT INTO step (run_id, rank, step, epoch, seconds, data_s, forward_s, backward_s, comm_exposed_s, optimizer_s,
                  loss, samples)
SELECT r.id, 0, s.k, 1 + s.k * 3 / (SELECT steps FROM bench_size), 0.01, 0.001, 0.003, 0.004, 0.001, 0.0005, 1.0 / (1 + s.k), 32
FROM run r, s;

INSERT INTO memory (run_id, rank, param_bytes, grad_bytes, optimizer_bytes, buffer_bytes, peak_rss_bytes,
                    param_elements, state_floats)
SELECT id, 0, 4000, 4000, 4000, 0, 1 << 20, 1000, 1 FROM run;
