-- Per optimizer step, what the host did to the gradients' numbers: fp16's
-- loss scale and skipped steps, gradient clipping's norm and factor (from
-- step_metric's host figures, plugins 'precision' and 'clipping'; every
-- rank agrees, rank 0's shown). Only runs that scale the loss or clip have
-- rows, and only with step_records = true (the default). The loss scale of one run, step by step:
--   SELECT step, loss_scale, skipped FROM step_numerics WHERE run_id = 7 ORDER BY step
-- Its columns:
--   run_id         the run (run.id)
--   experiment     the experiment's name
--   experiment_id  the experiment (experiment.id)
--   label          what sets the configuration apart within its experiment, else the strategy
--   world_size     ranks the run started with
--   step           optimizer steps of the run before this one (from 0)
--   epoch          1-based
--   loss           rank 0's mean loss over its samples of the step
--   loss_scale     fp16: the scale the step's gradients had (NULL in other precisions)
--   skipped        fp16: 1 when an overflow on some rank skipped the step, else 0
--   grad_norm      gradient_clipping: the gradients' global L2 norm before clipping (NULL: not clipped, or skipped)
--   clip_factor    gradient_clipping: what the gradients were multiplied by (1: under the norm)
CREATE VIEW step_numerics AS
SELECT s.run_id, x.name AS experiment, r.experiment_id, COALESCE(r.label, r.strategy) AS label, r.world_size,
       s.step, s.epoch,
       s.loss, ls.value AS loss_scale, CAST(sk.value AS INTEGER) AS skipped, gn.value AS grad_norm,
       cf.value AS clip_factor
FROM step s
JOIN run r ON r.id = s.run_id
JOIN experiment x ON x.id = r.experiment_id
LEFT JOIN step_metric ls
  ON ls.run_id = s.run_id AND ls.rank = s.rank AND ls.step = s.step AND ls.plugin = 'precision'
     AND ls.name = 'loss_scale'
LEFT JOIN step_metric sk
  ON sk.run_id = s.run_id AND sk.rank = s.rank AND sk.step = s.step AND sk.plugin = 'precision' AND sk.name = 'skipped'
LEFT JOIN step_metric gn
  ON gn.run_id = s.run_id AND gn.rank = s.rank AND gn.step = s.step AND gn.plugin = 'clipping' AND gn.name = 'grad_norm'
LEFT JOIN step_metric cf
  ON cf.run_id = s.run_id AND cf.rank = s.rank AND cf.step = s.step AND cf.plugin = 'clipping'
     AND cf.name = 'clip_factor'
WHERE s.rank = 0 AND (ls.value IS NOT NULL OR gn.value IS NOT NULL);
