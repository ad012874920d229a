-- A store that answers at 10,000 runs: each run's figures over its epochs,
-- kept by triggers as epochs are written (whoever writes them), so the
-- views read one row per run instead of aggregating every epoch each time.
-- "Steady" leaves out the first epoch (warm-up) when there is more than one.
CREATE TABLE run_figure (
  run_id              INTEGER PRIMARY KEY REFERENCES run(id),
  epochs              INTEGER NOT NULL,
  last_epoch          INTEGER NOT NULL,
  first_epoch_s       REAL,
  steady_steps        INTEGER,
  steady_samples      INTEGER,
  steady_seconds      REAL,
  steady_data_s       REAL,
  steady_forward_s    REAL,
  steady_backward_s   REAL,
  steady_comm_exposed_s REAL,
  steady_comm_total_s REAL,
  steady_optimizer_s  REAL,
  steady_bus_bytes    REAL,                 -- per-step bus bytes x steps, summed
  final_test_accuracy REAL,
  final_train_loss    REAL
);

-- What run_figure holds, computed from the epochs (for the triggers, and
-- once below for the runs already stored).
CREATE VIEW run_figure_of_epochs AS
SELECT e.run_id, COUNT(*) AS epochs, MAX(epoch) AS last_epoch,
       MAX(CASE WHEN epoch = 1 THEN seconds END) AS first_epoch_s,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN steps END) ELSE SUM(steps) END AS steady_steps,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN samples END) ELSE SUM(samples) END AS steady_samples,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN seconds END) ELSE SUM(seconds) END AS steady_seconds,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN data_s END) ELSE SUM(data_s) END AS steady_data_s,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN forward_s END) ELSE SUM(forward_s) END AS steady_forward_s,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN backward_s END) ELSE SUM(backward_s) END AS steady_backward_s,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN comm_exposed_s END) ELSE SUM(comm_exposed_s) END AS steady_comm_exposed_s,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN comm_total_s END) ELSE SUM(comm_total_s) END AS steady_comm_total_s,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN optimizer_s END) ELSE SUM(optimizer_s) END AS steady_optimizer_s,
       CASE WHEN COUNT(*) > 1 THEN SUM(CASE WHEN epoch > 1 THEN step_bus_bytes * steps END) ELSE SUM(step_bus_bytes * steps) END AS steady_bus_bytes,
       (SELECT l.test_accuracy FROM epoch l WHERE l.run_id = e.run_id ORDER BY l.epoch DESC LIMIT 1)
         AS final_test_accuracy,
       (SELECT l.train_loss FROM epoch l WHERE l.run_id = e.run_id ORDER BY l.epoch DESC LIMIT 1)
         AS final_train_loss
FROM epoch e
GROUP BY e.run_id;

CREATE TRIGGER run_figure_after_epoch_insert AFTER INSERT ON epoch BEGIN
  INSERT OR REPLACE INTO run_figure SELECT * FROM run_figure_of_epochs WHERE run_id = NEW.run_id;
END;
CREATE TRIGGER run_figure_after_epoch_update AFTER UPDATE ON epoch BEGIN
  DELETE FROM run_figure WHERE run_id IN (OLD.run_id, NEW.run_id);
  INSERT OR REPLACE INTO run_figure SELECT * FROM run_figure_of_epochs WHERE run_id IN (OLD.run_id, NEW.run_id);
END;
CREATE TRIGGER run_figure_after_epoch_delete AFTER DELETE ON epoch BEGIN
  DELETE FROM run_figure WHERE run_id = OLD.run_id;
  INSERT OR REPLACE INTO run_figure SELECT * FROM run_figure_of_epochs WHERE run_id = OLD.run_id;
END;

INSERT INTO run_figure SELECT * FROM run_figure_of_epochs;
