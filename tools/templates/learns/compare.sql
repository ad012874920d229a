-- {{why}}:
-- the test accuracy on its 4 classes is well above chance (0.25), as with
-- {{reference}}. The test passes on a row saying PASS.
SELECT CASE WHEN mine.final_test_accuracy > 0.5 THEN 'PASS' ELSE 'FAIL' END
       || ': test accuracy ' || ROUND(mine.final_test_accuracy, 4) || ' (my_plugin), '
       || ROUND(base.final_test_accuracy, 4) || ' ({{reference}})' AS verdict
FROM run_summary mine
JOIN run_summary base ON base.experiment_id = mine.experiment_id
WHERE mine.{{kind}} = 'my_plugin' AND base.{{kind}} = '{{reference}}'
  AND mine.status = 'ok' AND base.status = 'ok'
