-- Speed-up and parallel efficiency against the smallest world size with
-- otherwise equal parameters (same experiment, same config_key), from the
-- median throughput over repeats (of the reference too, never one run).
-- With throughput_G the median samples/s at world size G:
--   S_G = throughput_G / throughput_ref   (= T_ref / T_G for the same work)
--   E_G = S_G x G_ref / G
-- Both are NULL at the reference world size itself, and where the
-- configuration has no smaller world size: there is nothing to compare.
-- noisy = 1 when this cell or its reference is (repeat_stats.noisy); the
-- cell's own repeat figures (min, max, spread, accuracy) come along, so a
-- query needs no second join to repeat_stats.
-- The reference is found per cell through cell_figure's index by
-- configuration and world size (ties at the smallest world size: the lowest
-- cell), so nothing sorts every cell.
--   experiment            the experiment's name
--   experiment_id         the experiment (experiment.id)
--   label                 what sets the configuration apart within its experiment, else the strategy
--   config_key            every parameter but world size: the configuration compared across sizes
--   strategy              the strategy plugin
--   backend               the communication backend
--   model                 the model, with its depth (resnet50)
--   world_size            G, this cell's ranks
--   global_batch_size     samples per optimizer step, all ranks
--   repeats               this cell's successful runs with a throughput
--   samples_per_s         this cell's median steady throughput over its repeats
--   ref_world_size        G_ref, the smallest world size of the configuration
--   ref_samples_per_s     the reference cell's median throughput
--   speedup               S_G = samples_per_s / ref_samples_per_s; NULL at the reference size
--   efficiency            E_G = S_G x G_ref / G (1: perfect scaling); NULL at the reference size
--   noisy                 1 when this cell or its reference is noisy (repeat_stats.noisy)
--   min_samples_per_s     this cell's slowest repeat
--   max_samples_per_s     this cell's fastest repeat
--   mean_ms_per_step      steady ms per optimizer step, mean over the repeats
--   spread                (max - min) / median of samples/s; NULL with one repeat
--   loaded_runs           repeats that ran under competing load
--   mean_test_accuracy    final test accuracy, mean over the repeats
--   min_test_accuracy     the lowest repeat's final test accuracy
--   max_test_accuracy     the highest repeat's final test accuracy
CREATE VIEW scaling AS
SELECT q.experiment, q.experiment_id, q.label, q.config_key, q.strategy, q.backend, q.model,
       q.world_size, q.global_batch_size, q.repeats,
       q.median_samples_per_s AS samples_per_s,
       f.world_size AS ref_world_size, f.median_samples_per_s AS ref_samples_per_s,
       CASE WHEN q.world_size > f.world_size THEN q.median_samples_per_s / f.median_samples_per_s END AS speedup,
       CASE WHEN q.world_size > f.world_size
            THEN q.median_samples_per_s / f.median_samples_per_s * f.world_size / q.world_size END AS efficiency,
       MAX(q.noisy, f.noisy) AS noisy,
       q.min_samples_per_s, q.max_samples_per_s, q.mean_ms_per_step, q.spread, q.loaded_runs,
       q.mean_test_accuracy, q.min_test_accuracy, q.max_test_accuracy
FROM repeat_stats q
JOIN cell_figure f ON f.experiment_id = q.experiment_id AND f.cell = (
  SELECT cell FROM cell_figure
  WHERE experiment_id = q.experiment_id AND config_key = q.config_key
  ORDER BY world_size, cell LIMIT 1);
