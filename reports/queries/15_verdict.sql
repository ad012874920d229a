-- Report query: the verdict at the top of the report — per experiment,
-- model, dataset and world size, the decision (the headline: "use X", a tie
-- within noise, inconclusive under load, noise unknown, or no configuration
-- reaching the accuracy), why, the faster configurations that missed the
-- accuracy, the best's margin over the runner-up and the slowest, whether
-- that margin is beyond the repeats' noise, its test accuracy and the
-- accuracy it had to reach (the view `verdict` documents each column). The
-- report reads decision, missed, accuracy_bar, target_accuracy and
-- best_test_accuracy where they are there, and names the fastest without.
SELECT * FROM verdict
WHERE experiment_id IN ({experiments})
ORDER BY experiment_id, model, dataset, world_size;
