-- Each cell's figures over its successful repeats (median, min and max
-- samples/s, step time, accuracy, competing load), kept by triggers as runs
-- and their figures change, so repeat_stats and scaling read a row per cell
-- instead of ranking every run each time. A cell with no successful run
-- that has a throughput has no row. Throughput is steady samples/s (epochs
-- after the first), as run_summary's samples_per_s.
CREATE TABLE cell_figure (
  experiment_id        INTEGER NOT NULL REFERENCES experiment(id), -- the experiment (experiment.id)
  cell                 INTEGER NOT NULL,      -- the matrix cell (run.cell)
  first_run            INTEGER NOT NULL,      -- the cell's lowest counted run id: what describes the cell
  repeats              INTEGER NOT NULL,      -- successful runs with a throughput
  median_samples_per_s REAL,                  -- median of the repeats' throughputs
  min_samples_per_s    REAL,                  -- the slowest repeat's throughput
  max_samples_per_s    REAL,                  -- the fastest repeat's throughput
  mean_ms_per_step     REAL,                  -- steady ms per optimizer step, mean over the repeats
  mean_test_accuracy   REAL,                  -- final test accuracy, mean over the repeats
  min_test_accuracy    REAL,                  -- the lowest repeat's final test accuracy
  max_test_accuracy    REAL,                  -- the highest repeat's final test accuracy
  loaded_runs          INTEGER NOT NULL,      -- repeats that ran under competing load (run.loaded)
  PRIMARY KEY (experiment_id, cell)
) WITHOUT ROWID;

-- A queue of cells whose figures are to be computed again, always empty
-- between statements: triggers on run and run_figure queue a cell here, and
-- the one trigger on this table recomputes its cell_figure row and empties
-- the queue. (SQLite pushes no filter into a windowed view, and triggers
-- cannot use WITH: this keeps the computation for one cell in one place.)
--   experiment_id, cell  the cell to compute again
CREATE TABLE cell_figure_refresh (experiment_id INTEGER NOT NULL, cell INTEGER NOT NULL);

CREATE TRIGGER cell_figure_recompute AFTER INSERT ON cell_figure_refresh BEGIN
  DELETE FROM cell_figure WHERE experiment_id = NEW.experiment_id AND cell = NEW.cell;
  INSERT INTO cell_figure
  SELECT experiment_id, cell, MIN(run_id), COUNT(*),
         AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN samples_per_s END),
         MIN(samples_per_s), MAX(samples_per_s), AVG(ms_per_step),
         AVG(accuracy), MIN(accuracy), MAX(accuracy), COALESCE(SUM(loaded), 0)
  FROM (SELECT r.id AS run_id, r.experiment_id, r.cell, f.steady_samples / f.steady_seconds AS samples_per_s,
               1000.0 * f.steady_seconds / f.steady_steps AS ms_per_step, f.final_test_accuracy AS accuracy,
               r.loaded, ROW_NUMBER() OVER (ORDER BY f.steady_samples / f.steady_seconds) AS rn,
               COUNT(*) OVER () AS n
        FROM run r JOIN run_figure f ON f.run_id = r.id
        WHERE r.experiment_id = NEW.experiment_id AND r.cell = NEW.cell
          AND r.status = 'ok' AND f.steady_samples / f.steady_seconds IS NOT NULL)
  GROUP BY experiment_id, cell;
  DELETE FROM cell_figure_refresh;
END;

CREATE TRIGGER cell_figure_after_run_figure_insert AFTER INSERT ON run_figure BEGIN
  INSERT INTO cell_figure_refresh SELECT experiment_id, cell FROM run WHERE id = NEW.run_id;
END;
CREATE TRIGGER cell_figure_after_run_figure_update AFTER UPDATE ON run_figure BEGIN
  INSERT INTO cell_figure_refresh SELECT experiment_id, cell FROM run WHERE id IN (OLD.run_id, NEW.run_id);
END;
CREATE TRIGGER cell_figure_after_run_figure_delete AFTER DELETE ON run_figure BEGIN
  INSERT INTO cell_figure_refresh SELECT experiment_id, cell FROM run WHERE id = OLD.run_id;
END;
CREATE TRIGGER cell_figure_after_run_update AFTER UPDATE OF experiment_id, cell, status, loaded ON run BEGIN
  INSERT INTO cell_figure_refresh VALUES (OLD.experiment_id, OLD.cell);
  INSERT INTO cell_figure_refresh SELECT NEW.experiment_id, NEW.cell
   WHERE NEW.experiment_id <> OLD.experiment_id OR NEW.cell <> OLD.cell;
END;
CREATE TRIGGER cell_figure_after_run_delete AFTER DELETE ON run BEGIN
  INSERT INTO cell_figure_refresh VALUES (OLD.experiment_id, OLD.cell);
END;

-- The runs already stored: every cell through the same queue.
INSERT INTO cell_figure_refresh SELECT DISTINCT experiment_id, cell FROM run;
