-- Collectives are exact whatever carries them, so training over my_plugin
-- ends with the same loss as over gloo. The test passes on PASS.
SELECT CASE WHEN ABS(mine.final_train_loss - base.final_train_loss) <= 1e-4 * (1 + ABS(base.final_train_loss))
            THEN 'PASS' ELSE 'FAIL' END
       || ': final training loss ' || ROUND(mine.final_train_loss, 6) || ' (my_plugin), '
       || ROUND(base.final_train_loss, 6) || ' (gloo)' AS verdict
FROM run_summary mine
JOIN run_summary base ON base.experiment_id = mine.experiment_id
WHERE mine.backend = 'my_plugin' AND base.backend = 'gloo'
  AND mine.status = 'ok' AND base.status = 'ok'
