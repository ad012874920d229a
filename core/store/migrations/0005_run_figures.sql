-- Each run's figures over its epochs, kept by triggers as epochs are
-- written (whoever writes them), so the views read one row per run instead
-- of aggregating every epoch each time. "Steady" leaves out the first epoch
-- (warm-up) when there is more than one.
CREATE TABLE run_figure (
  run_id              INTEGER PRIMARY KEY REFERENCES run(id), -- the run (run.id)
  epochs              INTEGER NOT NULL,     -- epochs stored
  last_epoch          INTEGER NOT NULL,     -- the highest epoch stored (1-based)
  first_epoch_s       REAL,                 -- the first epoch's training wall time
  steady_steps        INTEGER,              -- optimizer steps of the steady epochs
  steady_samples      INTEGER,              -- samples trained in the steady epochs, all ranks
  steady_seconds      REAL,                 -- training wall time of the steady epochs
  steady_data_s       REAL,                 -- their loader waits (mean over ranks)
  steady_forward_s    REAL,                 -- their forward compute (mean over ranks)
  steady_backward_s   REAL,                 -- their backward compute (mean over ranks)
  steady_comm_exposed_s REAL,               -- their exposed communication (mean over ranks)
  steady_comm_total_s REAL,                 -- the backend's busy time in them, overlapped or not (mean over ranks)
  steady_optimizer_s  REAL,                 -- their strategy step and its compute after backward (mean over ranks)
  steady_bus_bytes    REAL,                 -- per-step bus bytes x steps, summed
  final_test_accuracy REAL,                 -- the last epoch's test accuracy
  final_train_loss    REAL                  -- the last epoch's training loss
);

-- What run_figure holds, computed from the epochs: the triggers that keep
-- run_figure read it. Its columns are run_figure's.
--   run_id                 the run (run.id)
--   epochs                 epochs stored
--   last_epoch             the highest epoch stored (1-based)
--   first_epoch_s          the first epoch's training wall time
--   steady_steps           optimizer steps of the steady epochs (all but the first, when there are several)
--   steady_samples         samples trained in the steady epochs, all ranks
--   steady_seconds         training wall time of the steady epochs
--   steady_data_s          their loader waits (mean over ranks)
--   steady_forward_s       their forward compute (mean over ranks)
--   steady_backward_s      their backward compute (mean over ranks)
--   steady_comm_exposed_s  their exposed communication (mean over ranks)
--   steady_comm_total_s    the backend's busy time in them, overlapped or not (mean over ranks)
--   steady_optimizer_s     their strategy step and its compute after backward (mean over ranks)
--   steady_bus_bytes       per-step bus bytes x steps, summed
--   final_test_accuracy    the last epoch's test accuracy
--   final_train_loss       the last epoch's training loss
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
