-- my_plugin learns: its test accuracy on 4 classes is well above chance
-- (0.25), as the built-in linear model's is. The test passes on PASS.
SELECT CASE WHEN mine.final_test_accuracy > 0.5 THEN 'PASS' ELSE 'FAIL' END
       || ': test accuracy ' || ROUND(mine.final_test_accuracy, 4) || ' (my_plugin), '
       || ROUND(base.final_test_accuracy, 4) || ' (linear)' AS verdict
FROM run_summary mine
JOIN run_summary base ON base.experiment_id = mine.experiment_id
WHERE mine.model = 'my_plugin' AND base.model = 'linear'
  AND mine.status = 'ok' AND base.status = 'ok'
