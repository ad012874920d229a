-- What plugins reported with host->metric_add, per run, rank and name:
-- the total over the run's steps and the mean per step (step_metric holds
-- every step's value).
--   run_id         the run
--   experiment     the experiment's name
--   experiment_id  the experiment
--   label          what sets the run's configuration apart within its experiment
--   world_size     ranks that trained
--   plugin         the kind of plugin that reported it: strategy, backend, model or dataset; or the
--                  host's own figures: precision (fp16's loss scaler), clipping (gradient_clipping)
--   name           the metric's name, as the plugin gave it (e.g. fusion.cycles, theory.bus_bytes)
--   rank           the rank that reported it
--   steps          the steps of that rank with a value of this metric
--   total          the sum of the metric over the run's steps
--   per_step       total / every step of that rank, with a value or not
CREATE VIEW plugin_metrics AS
SELECT m.run_id, x.name AS experiment, r.experiment_id, COALESCE(r.label, r.strategy) AS label, r.world_size,
       m.plugin, m.name, m.rank, COUNT(*) AS steps, SUM(m.value) AS total,
       SUM(m.value) / (SELECT COUNT(*) FROM step s WHERE s.run_id = m.run_id AND s.rank = m.rank)
         AS per_step
FROM step_metric m
JOIN run r ON r.id = m.run_id
JOIN experiment x ON x.id = r.experiment_id
GROUP BY m.run_id, m.rank, m.plugin, m.name;
