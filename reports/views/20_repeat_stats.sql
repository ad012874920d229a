-- Spread over the repeats of each cell (successful runs only).
--   spread = (max - min) / median of samples/s; NULL with one repeat
--   noisy  = 1 when the spread is above 10 % or a repeat ran under
--            competing load (run.loaded): compare such cells with care, or
--            run them again with more repeats on a quieter machine.
-- The figures over the repeats, spread and noisy included, are kept per cell
-- in cell_figure (updated by triggers as runs finish); one run of the cell
-- describes it. A row per cell: the cost grows with the cells asked for.
CREATE VIEW repeat_stats AS
SELECT x.name AS experiment, c.experiment_id, c.cell, COALESCE(r.label, r.strategy) AS label, r.config_key,
       r.strategy, r.backend, rm.model, r.world_size, r.global_batch_size, c.repeats,
       c.median_samples_per_s, c.min_samples_per_s, c.max_samples_per_s, c.mean_ms_per_step,
       c.mean_test_accuracy, c.min_test_accuracy, c.max_test_accuracy, c.loaded_runs, c.spread, c.noisy
FROM cell_figure c
JOIN run r ON r.id = c.first_run
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = c.experiment_id;
