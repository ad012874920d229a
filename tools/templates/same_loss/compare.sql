-- {{why}},
-- so both runs of the matrix end with the same training loss. The test
-- passes on a row saying PASS.
SELECT CASE WHEN ABS(mine.final_train_loss - base.final_train_loss) <= 1e-4 * (1 + ABS(base.final_train_loss))
            THEN 'PASS' ELSE 'FAIL' END
       || ': final training loss ' || ROUND(mine.final_train_loss, 6) || ' (my_plugin), '
       || ROUND(base.final_train_loss, 6) || ' ({{reference}})' AS verdict
FROM run_summary mine
JOIN run_summary base ON base.experiment_id = mine.experiment_id
WHERE mine.{{kind}} = 'my_plugin' AND base.{{kind}} = '{{reference}}'
  AND mine.status = 'ok' AND base.status = 'ok'
