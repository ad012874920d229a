-- Which configuration to use, and why: one row per experiment, model (with
-- its depth: resnet50), dataset and world size, naming the fastest
-- configuration by median samples/s over its repeats and setting it against
-- the runner-up and the slowest.
--   margin          best / runner-up - 1 (0.25: 25 % more samples/s)
--   margin_over_slowest  best / slowest - 1
--   beyond_noise    1 when every repeat of the best beat every repeat of the
--                   runner-up (their ranges [min, max] do not overlap), 0
--                   when they overlap, NULL with a single repeat on either
--                   side or no runner-up (the noise is unknown)
--   why             the measured reason in one line: the phase of the step
--                   (ms per step, steady epochs, mean over repeats) where the
--                   best saves most against the runner-up — exposed
--                   communication, compute (forward + backward), optimizer
--                   or data — then the bus bytes each moves per step, and
--                   the peak RSS per rank where it differs by 5 % or more
-- The *_ms, bus and RSS columns give the figures behind `why` for both.
-- Cells come from cell_figure (one row per cell), ranked per group; only the
-- best and the runner-up have their runs' phases read (run_figure): the
-- cost grows with the cells, not their square.
CREATE VIEW verdict AS
WITH cell AS (
  SELECT c.experiment_id, c.cell, c.world_size, c.repeats, c.median_samples_per_s AS thr,
         c.min_samples_per_s AS lo, c.max_samples_per_s AS hi, c.noisy,
         rm.model,
         r.dataset, COALESCE(r.label, r.strategy) AS label, c.config_key
  FROM cell_figure c
  JOIN run r ON r.id = c.first_run
  JOIN run_model rm ON rm.run_id = r.id
  WHERE r.strategy != 'sweep' AND c.median_samples_per_s IS NOT NULL
), ranked AS (
  SELECT cell.*, ROW_NUMBER() OVER w AS place, COUNT(*) OVER w AS configs, MIN(thr) OVER w AS slowest_thr
  FROM cell
  WINDOW w AS (PARTITION BY experiment_id, model, dataset, world_size ORDER BY thr DESC, cell
               ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
), top AS (  -- the best and the runner-up: only their runs are read further
  SELECT * FROM ranked WHERE place <= 2
), phase AS (
  SELECT t.experiment_id, t.cell,
         AVG(1000.0 * f.steady_seconds / f.steady_steps) AS step_ms,
         AVG(1000.0 * f.steady_comm_exposed_s / f.steady_steps) AS exposed_ms,
         AVG(1000.0 * (f.steady_forward_s + f.steady_backward_s) / f.steady_steps) AS compute_ms,
         AVG(1000.0 * f.steady_optimizer_s / f.steady_steps) AS optimizer_ms,
         AVG(1000.0 * f.steady_data_s / f.steady_steps) AS data_ms,
         AVG(f.steady_bus_bytes / f.steady_steps) AS bus_bytes,
         AVG((SELECT MAX(m.peak_rss_bytes) FROM memory m WHERE m.run_id = r.id)) AS peak_rss_bytes  -- of its ranks
  FROM top t
  JOIN run r ON r.experiment_id = t.experiment_id AND r.cell = t.cell
  JOIN run_figure f ON f.run_id = r.id
  WHERE r.status = 'ok' AND f.steady_steps > 0
  GROUP BY t.experiment_id, t.cell
), figured AS (
  SELECT top.*, phase.step_ms, phase.exposed_ms, phase.compute_ms, phase.optimizer_ms, phase.data_ms,
         phase.bus_bytes, phase.peak_rss_bytes
  FROM top
  LEFT JOIN phase ON phase.experiment_id = top.experiment_id AND phase.cell = top.cell
), pair AS (
  SELECT b.experiment_id, b.model, b.dataset, b.world_size, b.configs,
         b.label AS best, b.config_key AS best_config_key, b.cell AS best_cell, b.repeats,
         b.thr AS samples_per_s, b.noisy,
         s.label AS runner_up, s.config_key AS runner_up_config_key, s.repeats AS runner_up_repeats, s.thr AS runner_up_samples_per_s,
         b.thr / s.thr - 1 AS margin, b.thr / b.slowest_thr - 1 AS margin_over_slowest,
         CASE WHEN s.cell IS NULL OR b.repeats < 2 OR s.repeats < 2 THEN NULL
              WHEN b.lo > s.hi THEN 1 ELSE 0 END AS beyond_noise,
         b.step_ms, s.step_ms AS runner_up_step_ms,
         b.exposed_ms, s.exposed_ms AS runner_up_exposed_ms,
         b.compute_ms, s.compute_ms AS runner_up_compute_ms,
         b.optimizer_ms, s.optimizer_ms AS runner_up_optimizer_ms,
         b.data_ms, s.data_ms AS runner_up_data_ms,
         b.bus_bytes AS bus_bytes_per_step, s.bus_bytes AS runner_up_bus_bytes_per_step,
         b.peak_rss_bytes, s.peak_rss_bytes AS runner_up_peak_rss_bytes,
         -- The phase where the best saves most (ties: the order listed).
         (SELECT name FROM (SELECT 1 AS o, 'exposed communication' AS name,
                                   s.exposed_ms - b.exposed_ms AS saved
                            UNION ALL SELECT 2, 'compute (forward + backward)', s.compute_ms - b.compute_ms
                            UNION ALL SELECT 3, 'optimizer', s.optimizer_ms - b.optimizer_ms
                            UNION ALL SELECT 4, 'data loading', s.data_ms - b.data_ms)
          WHERE saved IS NOT NULL ORDER BY saved DESC, o LIMIT 1) AS phase
  FROM figured b
  LEFT JOIN figured s ON s.experiment_id = b.experiment_id AND s.model = b.model AND s.dataset = b.dataset
   AND s.world_size = b.world_size AND s.place = 2
  WHERE b.place = 1
)
SELECT x.name AS experiment, p.experiment_id, p.model, p.dataset, p.world_size, p.configs,
       p.best, p.best_config_key, p.best_cell, p.repeats, p.samples_per_s, p.noisy,
       p.runner_up, p.runner_up_config_key, p.runner_up_repeats, p.runner_up_samples_per_s, p.margin, p.margin_over_slowest,
       p.beyond_noise,
       CASE
         WHEN p.runner_up IS NULL THEN 'the only configuration measured at this world size'
         WHEN p.phase IS NULL THEN 'no step phases recorded'
         ELSE printf('%s: %.2f vs %.2f ms per step', p.phase,
                     CASE p.phase WHEN 'exposed communication' THEN p.exposed_ms
                                  WHEN 'optimizer' THEN p.optimizer_ms WHEN 'data loading' THEN p.data_ms
                                  ELSE p.compute_ms END,
                     CASE p.phase WHEN 'exposed communication' THEN p.runner_up_exposed_ms
                                  WHEN 'optimizer' THEN p.runner_up_optimizer_ms
                                  WHEN 'data loading' THEN p.runner_up_data_ms
                                  ELSE p.runner_up_compute_ms END)
              || CASE WHEN p.bus_bytes_per_step > 0 OR p.runner_up_bus_bytes_per_step > 0
                      THEN printf('; moves %.3g vs %.3g MB per step', p.bus_bytes_per_step / 1e6,
                                  p.runner_up_bus_bytes_per_step / 1e6) ELSE '' END
              || CASE WHEN ABS(p.peak_rss_bytes - p.runner_up_peak_rss_bytes)
                           >= 0.05 * MAX(p.peak_rss_bytes, p.runner_up_peak_rss_bytes)
                      THEN printf('; peak RSS %d vs %d MiB per rank', CAST(p.peak_rss_bytes / 1048576 AS INTEGER),
                                  CAST(p.runner_up_peak_rss_bytes / 1048576 AS INTEGER)) ELSE '' END
       END AS why,
       p.step_ms, p.runner_up_step_ms, p.exposed_ms, p.runner_up_exposed_ms, p.compute_ms, p.runner_up_compute_ms,
       p.optimizer_ms, p.runner_up_optimizer_ms, p.data_ms, p.runner_up_data_ms,
       p.bus_bytes_per_step, p.runner_up_bus_bytes_per_step, p.peak_rss_bytes, p.runner_up_peak_rss_bytes
FROM pair p
JOIN experiment x ON x.id = p.experiment_id;
