-- Both strategies train (every run ok, a finite final loss); local SGD that
-- averages every step ends where allreduce does; every 4 steps it issues
-- fewer all-reduces per step. The test passes on PASS.
WITH per_run AS (
  SELECT r.id, r.strategy, COALESCE(p.value_num, 0) AS sync_every, r.status, f.final_train_loss AS loss,
         (SELECT AVG(s.collectives) FROM step s WHERE s.run_id = r.id) AS collectives_per_step
  FROM run r
  JOIN run_figure f ON f.run_id = r.id
  LEFT JOIN run_param p ON p.run_id = r.id AND p.key = 'strategy.local_sgd.sync_every'
  WHERE r.experiment_id = (SELECT MAX(id) FROM experiment)
)
SELECT CASE WHEN (SELECT COUNT(*) FROM per_run WHERE status = 'ok' AND loss BETWEEN 0 AND 1e308) = 3
             AND ABS(every1.loss - base.loss) <= 1e-3 * base.loss
             AND every4.collectives_per_step < base.collectives_per_step
            THEN 'PASS' ELSE 'FAIL' END
       || ': final loss ' || ROUND(base.loss, 6) || ' (allreduce), ' || ROUND(every1.loss, 6)
       || ' (sync_every=1), ' || ROUND(every4.loss, 6) || ' (sync_every=4); all-reduces per step '
       || base.collectives_per_step || ', ' || every1.collectives_per_step || ', '
       || every4.collectives_per_step AS verdict
FROM per_run base, per_run every1, per_run every4
WHERE base.strategy = 'allreduce'
  AND every1.strategy = 'local_sgd' AND every1.sync_every = 1
  AND every4.strategy = 'local_sgd' AND every4.sync_every = 4
