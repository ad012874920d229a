-- Spread over the repeats of each cell (successful runs only). The figures
-- over the repeats, spread and noisy included, are kept per cell in
-- cell_figure (updated by triggers as runs finish); one run of the cell
-- describes it. A row per cell: the cost grows with the cells asked for.
--   experiment            the experiment's name
--   experiment_id         the experiment (experiment.id)
--   cell                  the matrix cell, from 0
--   label                 what sets the configuration apart within its experiment, else the strategy
--   config_key            every parameter but world size: equal keys, same configuration
--   strategy              the strategy plugin
--   backend               the communication backend
--   model                 the model, with its depth (resnet50)
--   world_size            the cell's ranks
--   global_batch_size     samples per optimizer step, all ranks
--   repeats               successful runs with a throughput
--   median_samples_per_s  median of the repeats' steady throughputs (run_summary.samples_per_s)
--   min_samples_per_s     the slowest repeat's
--   max_samples_per_s     the fastest repeat's
--   mean_ms_per_step      steady ms per optimizer step, mean over the repeats
--   mean_test_accuracy    final test accuracy, mean over the repeats
--   min_test_accuracy     the lowest repeat's final test accuracy
--   max_test_accuracy     the highest repeat's final test accuracy
--   loaded_runs           repeats that ran under competing load (run.loaded)
--   spread                (max - min) / median of samples/s; NULL with one repeat
--   noisy                 1 when the spread is above 10 % or a repeat ran under competing load:
--                         compare such cells with care, or run them again with more repeats
--                         on a quieter machine
CREATE VIEW repeat_stats AS
SELECT x.name AS experiment, c.experiment_id, c.cell, COALESCE(r.label, r.strategy) AS label, r.config_key,
       r.strategy, r.backend, rm.model, r.world_size, r.global_batch_size, c.repeats,
       c.median_samples_per_s, c.min_samples_per_s, c.max_samples_per_s, c.mean_ms_per_step,
       c.mean_test_accuracy, c.min_test_accuracy, c.max_test_accuracy, c.loaded_runs, c.spread, c.noisy
FROM cell_figure c
JOIN run r ON r.id = c.first_run
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = c.experiment_id;
