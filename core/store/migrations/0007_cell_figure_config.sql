-- Each cell's configuration and world size, and its spread and noise flag,
-- beside its figures: `scaling` finds a cell's reference (the smallest world
-- size of the same configuration) through an index instead of sorting every
-- cell, and the noise rule is computed once, where the figures are.
--   spread = (max - min) / median of samples/s; NULL with one repeat
--   noisy  = 1 when the spread is above 10 % or a repeat ran under
--            competing load (run.loaded)
ALTER TABLE cell_figure ADD COLUMN config_key TEXT;      -- the cell's run.config_key: every parameter but world size
ALTER TABLE cell_figure ADD COLUMN world_size INTEGER;   -- the cell's ranks
ALTER TABLE cell_figure ADD COLUMN spread REAL;          -- (max - min) / median of samples/s; NULL with one repeat
ALTER TABLE cell_figure ADD COLUMN noisy INTEGER;        -- 1: spread above 10 % or a repeat under competing load
CREATE INDEX cell_figure_by_config ON cell_figure (experiment_id, config_key, world_size);

DROP TRIGGER cell_figure_recompute;
CREATE TRIGGER cell_figure_recompute AFTER INSERT ON cell_figure_refresh BEGIN
  DELETE FROM cell_figure WHERE experiment_id = NEW.experiment_id AND cell = NEW.cell;
  INSERT INTO cell_figure
  SELECT experiment_id, cell, first_run, repeats, median, low, high, ms_per_step, accuracy, low_accuracy,
         high_accuracy, loaded_runs, config_key, world_size, spread,
         CASE WHEN loaded_runs > 0 OR spread > 0.10 THEN 1 ELSE 0 END
  FROM (SELECT experiment_id, cell, MIN(run_id) AS first_run, COUNT(*) AS repeats,
               AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN samples_per_s END) AS median,
               MIN(samples_per_s) AS low, MAX(samples_per_s) AS high, AVG(ms_per_step) AS ms_per_step,
               AVG(accuracy) AS accuracy, MIN(accuracy) AS low_accuracy, MAX(accuracy) AS high_accuracy,
               COALESCE(SUM(loaded), 0) AS loaded_runs,
               MIN(config_key) AS config_key, MIN(world_size) AS world_size,  -- one per cell
               CASE WHEN COUNT(*) > 1 THEN (MAX(samples_per_s) - MIN(samples_per_s)) /
                    AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN samples_per_s END) END AS spread
        FROM (SELECT r.id AS run_id, r.experiment_id, r.cell, f.steady_samples / f.steady_seconds AS samples_per_s,
                     1000.0 * f.steady_seconds / f.steady_steps AS ms_per_step,
                     f.final_test_accuracy AS accuracy, r.loaded,
                     r.config_key, r.world_size,
                     ROW_NUMBER() OVER (ORDER BY f.steady_samples / f.steady_seconds) AS rn, COUNT(*) OVER () AS n
              FROM run r JOIN run_figure f ON f.run_id = r.id
              WHERE r.experiment_id = NEW.experiment_id AND r.cell = NEW.cell
                AND r.status = 'ok' AND f.steady_samples / f.steady_seconds IS NOT NULL)
        GROUP BY experiment_id, cell);
  DELETE FROM cell_figure_refresh;
END;

-- Every cell already kept, through the same queue.
INSERT INTO cell_figure_refresh SELECT experiment_id, cell FROM cell_figure;
