-- What plugins reported with host->metric_add, per run, rank and name:
-- the total over the run's steps and the mean per step (step_metric holds
-- every step's value).
CREATE VIEW plugin_metrics AS
SELECT m.run_id, x.name AS experiment, r.experiment_id, COALESCE(r.label, r.strategy) AS label,
       m.plugin, m.name, m.rank, COUNT(*) AS steps, SUM(m.value) AS total,
       SUM(m.value) / (SELECT COUNT(*) FROM step s WHERE s.run_id = m.run_id AND s.rank = m.rank)
         AS per_step
FROM step_metric m
JOIN run r ON r.id = m.run_id
JOIN experiment x ON x.id = r.experiment_id
GROUP BY m.run_id, m.rank, m.plugin, m.name;
