-- A store that answers at 10,000 runs, one level above run_figure: each
-- cell's figures over its successful repeats (median, min and max samples/s,
-- step time, accuracy, competing load), kept by triggers as runs and their
-- figures change, so repeat_stats and scaling read a row per cell instead of
-- ranking every run each time. A cell with no successful run that has a
-- throughput has no row.
CREATE TABLE cell_figure (
  experiment_id        INTEGER NOT NULL REFERENCES experiment(id),
  cell                 INTEGER NOT NULL,
  first_run            INTEGER NOT NULL,      -- the cell's lowest counted run id: what describes the cell
  repeats              INTEGER NOT NULL,      -- successful runs with a throughput
  median_samples_per_s REAL,
  min_samples_per_s    REAL,
  max_samples_per_s    REAL,
  mean_ms_per_step     REAL,
  mean_test_accuracy   REAL,
  min_test_accuracy    REAL,
  max_test_accuracy    REAL,
  loaded_runs          INTEGER NOT NULL,
  PRIMARY KEY (experiment_id, cell)
) WITHOUT ROWID;

-- The cells to compute again: the triggers below queue a cell here, and the
-- one trigger on this table recomputes it and empties the queue. (SQLite
-- pushes no filter into a windowed view, and triggers cannot use WITH: this
-- keeps the computation for one cell in one place.)
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
