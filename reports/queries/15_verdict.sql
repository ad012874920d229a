-- Report query: the verdict at the top of the report — per experiment,
-- model, dataset and world size, the fastest configuration, its margin over
-- the runner-up and the slowest, whether that margin is beyond the repeats'
-- noise, and why (the view `verdict` documents each column).
SELECT * FROM verdict
WHERE experiment_id IN ({experiments})
ORDER BY experiment_id, model, dataset, world_size;
