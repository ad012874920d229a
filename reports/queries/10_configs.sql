-- Report query: the configurations of each experiment — cells that differ
-- only in world size share one (config_key) — with every parameter, so the
-- report can label each configuration by what differs between them. The
-- model with its depth (resnet50): each depth has its own section.
-- {experiments} is replaced by the experiment ids, e.g. 1, 2.
SELECT r.experiment_id, x.name AS experiment, r.config_key, rm.model, r.dataset, r.strategy, r.backend,
       p.key, p.value
FROM run r
JOIN experiment x ON x.id = r.experiment_id
JOIN run_model rm ON rm.run_id = r.id
JOIN run_param p ON p.run_id = r.id
WHERE r.experiment_id IN ({experiments}) AND r.strategy != 'sweep'
GROUP BY r.experiment_id, r.config_key, p.key
ORDER BY r.experiment_id, rm.model, r.config_key, p.key;
