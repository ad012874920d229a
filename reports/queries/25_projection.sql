-- Report query: what `dtbench project --store` projected from the runs of
-- these experiments (the projection table): each strategy's parallel
-- efficiency and throughput on a target system's GPUs, drawn dashed
-- beside the measured scaling.
SELECT r.experiment_id, rm.model, p.run_id, p.system, p.target, p.strategy, p.gpus, p.samples_per_s,
       p.ref_gpus, p.efficiency, p.exposed_share
FROM projection p
JOIN run r ON r.id = p.run_id
JOIN run_model rm ON rm.run_id = p.run_id
WHERE r.experiment_id IN ({experiments})
ORDER BY r.experiment_id, rm.model, p.system, p.run_id, p.target, p.strategy, p.gpus;
