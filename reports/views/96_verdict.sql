-- Which configuration to use, and why: one row per experiment, model (with
-- its depth: resnet50), dataset and world size. The winner is the fastest
-- configuration (median samples/s over its repeats) among those that reach
-- the experiment's accuracy: throughput at equal accuracy, as the field
-- compares systems. The accuracy to reach (accuracy_bar) is the matrix's
-- `target_accuracy` when it sets one; else the best mean final test accuracy
-- of the group less the larger of that configuration's own spread over its
-- repeats (max - min) and the matrix's `accuracy_tolerance` (default 0.01,
-- one point). A faster configuration that misses the bar is named in
-- `missed` with what it cost, never called best.
-- A margin counts only beyond noise: every configuration that reached the
-- bar ran at least two repeats, none of those the decision rests on (the
-- best, the runner-up, any tied with the best) ran under competing load,
-- and every repeat of the best beat every repeat of every other. Otherwise
-- the decision says so (tie within noise, inconclusive, noise unknown)
-- instead of "use X". Where a target is set and the tie is the best and the
-- runner-up alone, time to target (as the view time_to_target counts it)
-- settles it for the best when all its repeats got there before any of the
-- runner-up's; when the runner-up's did, the tie stands and says so.
--   experiment           the experiment's name
--   experiment_id        the experiment
--   model                the model, with its depth (resnet50)
--   dataset              the dataset plugin
--   world_size           ranks that trained
--   configs              configurations measured in this group
--   decision             the headline: "use X", "tie within noise: X, Y" (by name),
--                        "inconclusive: loaded runs (X 2/3)", "X fastest, noise
--                        unknown (one repeat)", "the only configuration
--                        measured at this world size", "no configuration
--                        reached the target accuracy ..."
--   best                 the fastest configuration that reached the accuracy bar (NULL: none did)
--   best_config_key      the best configuration's full settings
--   best_cell            the best configuration's matrix cell
--   repeats              the best configuration's successful repeats
--   samples_per_s        the best configuration's median samples/s
--   noisy                1 when the best configuration's repeats spread over 10 % or ran under load
--   loaded_runs          the best configuration's repeats that ran under competing load
--   best_test_accuracy   the best configuration's mean final test accuracy
--   runner_up            the next fastest configuration that reached the bar
--   runner_up_config_key  the runner-up's full settings
--   runner_up_repeats    the runner-up's successful repeats
--   runner_up_samples_per_s  the runner-up's median samples/s
--   runner_up_loaded_runs    the runner-up's repeats that ran under competing load
--   runner_up_test_accuracy  the runner-up's mean final test accuracy
--   margin               best / runner-up - 1 in samples/s (0.25: 25 % more)
--   margin_over_slowest  best / slowest configuration of the group - 1
--   beyond_noise         1 when every repeat of the best beat every repeat of every other
--                        configuration that reached the bar, 0 when a range overlaps
--                        the best's, NULL with a single repeat of any of them or no
--                        runner-up
--   tied                 the configurations whose range of samples/s overlaps the best's, by name
--   missed               faster configurations that missed the accuracy bar, with
--                        their gain and loss ("topk: +3 % samples/s, -6.1 pt accuracy")
--   target_accuracy      the matrix's target accuracy (NULL: none set)
--   accuracy_bar         the mean final test accuracy a configuration had to reach
--   why                  the measured reason in one line: the phase of the step
--                        (ms per step, steady epochs, mean over repeats) where
--                        the best saves most against the runner-up beyond that
--                        phase's own spread over the repeats, then the bus bytes
--                        each moves per step and the peak RSS per rank where it
--                        differs by 5 % or more
--   seconds_to_target    the best's mean training seconds to the target accuracy (target set, all repeats reached it)
--   runner_up_seconds_to_target  the runner-up's, likewise
--   step_ms              the best's wall time per step
--   runner_up_step_ms    the runner-up's
--   exposed_ms           the best's exposed communication per step (its training thread blocked on communication)
--   runner_up_exposed_ms  the runner-up's
--   compute_ms           the best's forward + backward per step
--   runner_up_compute_ms  the runner-up's
--   optimizer_ms         the best's optimizer step and the strategy's own computation per step
--   runner_up_optimizer_ms   the runner-up's
--   data_ms              the best's wait for data per step
--   runner_up_data_ms    the runner-up's
--   bus_bytes_per_step   the best's bus bytes per step and rank (nccl-tests' bus bytes)
--   runner_up_bus_bytes_per_step  the runner-up's
--   peak_rss_bytes       the best's peak resident memory of its largest rank
--   runner_up_peak_rss_bytes      the runner-up's
-- Cells come from cell_figure (one row per cell), ranked per group; only the
-- best and the runner-up have their runs' phases read (run_figure): the
-- cost grows with the cells, not their square.
CREATE VIEW verdict AS
WITH cell AS (
  SELECT c.experiment_id, c.cell, c.world_size, c.repeats, c.median_samples_per_s AS thr,
         c.min_samples_per_s AS lo, c.max_samples_per_s AS hi, c.noisy, c.loaded_runs,
         c.mean_test_accuracy AS acc, COALESCE(c.max_test_accuracy - c.min_test_accuracy, 0) AS acc_spread,
         rm.model, r.dataset, COALESCE(r.label, r.strategy) AS label, c.config_key,
         (SELECT p.value_num FROM run_param p WHERE p.run_id = r.id AND p.key = 'target_accuracy') AS target,
         COALESCE((SELECT p.value_num FROM run_param p WHERE p.run_id = r.id AND p.key = 'accuracy_tolerance'),
                  0.01) AS tolerance
  FROM cell_figure c
  JOIN run r ON r.id = c.first_run
  JOIN run_model rm ON rm.run_id = r.id
  WHERE r.strategy != 'sweep' AND c.median_samples_per_s IS NOT NULL
), barred AS (  -- the accuracy bar of each group
  SELECT cell.*,
         CASE WHEN MAX(target) OVER g > 0 THEN MAX(target) OVER g END AS target_accuracy,
         CASE WHEN MAX(target) OVER g > 0 THEN MAX(target) OVER g
              ELSE FIRST_VALUE(acc - MAX(acc_spread, tolerance))
                     OVER (PARTITION BY experiment_id, model, dataset, world_size
                           ORDER BY acc IS NULL, acc DESC, thr DESC) END AS bar,
         COUNT(*) OVER g AS configs, MIN(thr) OVER g AS slowest_thr
  FROM cell
  WINDOW g AS (PARTITION BY experiment_id, model, dataset, world_size)
), judged AS (
  SELECT barred.*,
         CASE WHEN bar IS NULL AND target_accuracy IS NULL THEN 1  -- no accuracy measured: throughput alone
              WHEN acc IS NULL OR bar IS NULL THEN 0
              WHEN acc >= bar - 1e-9 THEN 1 ELSE 0 END AS reached
  FROM barred
), ranked AS (
  SELECT judged.*,
         ROW_NUMBER() OVER (PARTITION BY experiment_id, model, dataset, world_size
                            ORDER BY reached DESC, thr DESC, cell) AS place
  FROM judged
), top AS (  -- the best and the runner-up: only their runs are read further
  SELECT * FROM ranked WHERE place <= 2 AND reached = 1
), run_phase AS (
  SELECT t.experiment_id, t.cell, r.id AS run_id,
         1000.0 * f.steady_seconds / f.steady_steps AS step_ms,
         1000.0 * f.steady_comm_exposed_s / f.steady_steps AS exposed_ms,
         1000.0 * (f.steady_forward_s + f.steady_backward_s) / f.steady_steps AS compute_ms,
         1000.0 * f.steady_optimizer_s / f.steady_steps AS optimizer_ms,
         1000.0 * f.steady_data_s / f.steady_steps AS data_ms,
         f.steady_bus_bytes / f.steady_steps AS bus_bytes,
         (SELECT MAX(m.peak_rss_bytes) FROM memory m WHERE m.run_id = r.id) AS peak_rss_bytes,  -- of its ranks
         -- Training seconds to the target (as time_to_target), inline: a
         -- windowed view would be computed whole for every run.
         (SELECT SUM(e2.seconds) FROM epoch e2
          WHERE e2.run_id = r.id
            AND e2.epoch <= (SELECT MIN(e1.epoch) FROM epoch e1
                             WHERE e1.run_id = r.id AND e1.test_accuracy >= t.target_accuracy)) AS to_target
  FROM top t
  JOIN run r ON r.experiment_id = t.experiment_id AND r.cell = t.cell
  JOIN run_figure f ON f.run_id = r.id
  WHERE r.status = 'ok' AND f.steady_steps > 0
), phase AS (  -- means over the repeats, and each phase's range over them
  SELECT experiment_id, cell, AVG(step_ms) AS step_ms,
         AVG(exposed_ms) AS exposed_ms, MIN(exposed_ms) AS exposed_lo, MAX(exposed_ms) AS exposed_hi,
         AVG(compute_ms) AS compute_ms, MIN(compute_ms) AS compute_lo, MAX(compute_ms) AS compute_hi,
         AVG(optimizer_ms) AS optimizer_ms, MIN(optimizer_ms) AS optimizer_lo, MAX(optimizer_ms) AS optimizer_hi,
         AVG(data_ms) AS data_ms, MIN(data_ms) AS data_lo, MAX(data_ms) AS data_hi,
         AVG(bus_bytes) AS bus_bytes, AVG(peak_rss_bytes) AS peak_rss_bytes,
         CASE WHEN COUNT(to_target) = COUNT(*) THEN AVG(to_target) END AS to_target,
         CASE WHEN COUNT(to_target) = COUNT(*) THEN MIN(to_target) END AS to_target_lo,
         CASE WHEN COUNT(to_target) = COUNT(*) THEN MAX(to_target) END AS to_target_hi
  FROM run_phase
  GROUP BY experiment_id, cell
), figured AS (
  SELECT top.*, phase.step_ms, phase.exposed_ms, phase.exposed_lo, phase.exposed_hi, phase.compute_ms,
         phase.compute_lo, phase.compute_hi, phase.optimizer_ms, phase.optimizer_lo, phase.optimizer_hi,
         phase.data_ms, phase.data_lo, phase.data_hi, phase.bus_bytes, phase.peak_rss_bytes,
         phase.to_target, phase.to_target_lo, phase.to_target_hi
  FROM top
  LEFT JOIN phase ON phase.experiment_id = top.experiment_id AND phase.cell = top.cell
), grp AS (  -- one row per group: its first place, whether or not it reached the bar
  SELECT * FROM ranked WHERE place = 1
), pair AS (
  SELECT g.experiment_id, g.model, g.dataset, g.world_size, g.configs, g.target_accuracy, g.bar,
         b.label AS best, b.config_key AS best_config_key, b.cell AS best_cell, b.repeats,
         b.thr AS samples_per_s, b.noisy, b.loaded_runs, b.acc AS best_test_accuracy,
         s.label AS runner_up, s.config_key AS runner_up_config_key, s.repeats AS runner_up_repeats,
         s.thr AS runner_up_samples_per_s, s.loaded_runs AS runner_up_loaded_runs,
         s.acc AS runner_up_test_accuracy,
         b.thr / s.thr - 1 AS margin, b.thr / g.slowest_thr - 1 AS margin_over_slowest,
         -- Beyond noise: every repeat of the best beat every repeat of every
         -- other configuration that reached the bar (not only the runner-up's:
         -- a wide third one may overlap the best where the runner-up does not).
         CASE WHEN s.cell IS NULL OR (SELECT MIN(t.repeats) FROM ranked t
                                      WHERE t.experiment_id = g.experiment_id AND t.model = g.model
                                        AND t.dataset = g.dataset AND t.world_size = g.world_size
                                        AND t.reached = 1) < 2 THEN NULL
              WHEN b.lo > (SELECT MAX(t.hi) FROM ranked t
                           WHERE t.experiment_id = g.experiment_id AND t.model = g.model AND t.dataset = g.dataset
                             AND t.world_size = g.world_size AND t.reached = 1 AND t.place > 1) THEN 1
              ELSE 0 END AS beyond_noise,
         -- Time to target settles a throughput tie of two for the best when
         -- its repeats all got there before any of the runner-up's (1), or
         -- says the runner-up got there first (-1); 0 when they overlap.
         CASE WHEN b.repeats < 2 OR s.repeats < 2 THEN 0
              WHEN b.to_target_hi < s.to_target_lo THEN 1
              WHEN s.to_target_hi < b.to_target_lo THEN -1 ELSE 0 END AS first_to_target,
         b.to_target AS seconds_to_target, s.to_target AS runner_up_seconds_to_target,
         b.step_ms, s.step_ms AS runner_up_step_ms,
         b.exposed_ms, s.exposed_ms AS runner_up_exposed_ms,
         b.compute_ms, s.compute_ms AS runner_up_compute_ms,
         b.optimizer_ms, s.optimizer_ms AS runner_up_optimizer_ms,
         b.data_ms, s.data_ms AS runner_up_data_ms,
         b.bus_bytes AS bus_bytes_per_step, s.bus_bytes AS runner_up_bus_bytes_per_step,
         b.peak_rss_bytes, s.peak_rss_bytes AS runner_up_peak_rss_bytes,
         -- The phase where the best saves most against the runner-up, among
         -- those whose difference lies beyond the phase's own spread: every
         -- repeat of the best faster than every repeat of the runner-up. With
         -- one repeat on either side nothing is known of the spread: the
         -- largest saving is named, marked so. Ties: the order listed.
         (SELECT name FROM (SELECT 1 AS o, 'exposed communication' AS name, s.exposed_ms - b.exposed_ms AS saved,
                                   b.exposed_hi < s.exposed_lo AS apart
                            UNION ALL SELECT 2, 'compute (forward + backward)', s.compute_ms - b.compute_ms,
                                             b.compute_hi < s.compute_lo
                            UNION ALL SELECT 3, 'optimizer and strategy compute', s.optimizer_ms - b.optimizer_ms,
                                             b.optimizer_hi < s.optimizer_lo
                            UNION ALL SELECT 4, 'data loading', s.data_ms - b.data_ms, b.data_hi < s.data_lo)
          WHERE saved > 0 AND (apart OR b.repeats < 2 OR s.repeats < 2)
          ORDER BY saved DESC, o LIMIT 1) AS phase,
         -- The configurations tied with the best (their ranges overlap its),
         -- by name, so that the same tie reads the same in every rerun.
         (SELECT group_concat(label, ', ')
          FROM (SELECT t.label FROM ranked t
                WHERE t.experiment_id = b.experiment_id AND t.model = b.model AND t.dataset = b.dataset
                  AND t.world_size = b.world_size AND t.reached = 1 AND t.place > 1 AND t.hi >= b.lo
                ORDER BY t.label, t.cell)) AS tied,
         (SELECT COUNT(*) FROM ranked t
          WHERE t.experiment_id = b.experiment_id AND t.model = b.model AND t.dataset = b.dataset
            AND t.world_size = b.world_size AND t.reached = 1 AND t.place > 1 AND t.hi >= b.lo) AS tied_count,
         -- The whole tie, the best among them, by name.
         (SELECT group_concat(label, ', ')
          FROM (SELECT t.label FROM ranked t
                WHERE t.experiment_id = b.experiment_id AND t.model = b.model AND t.dataset = b.dataset
                  AND t.world_size = b.world_size AND t.reached = 1 AND (t.place = 1 OR t.hi >= b.lo)
                ORDER BY t.label, t.cell)) AS tie,
         -- Loaded runs among the configurations the decision rests on: the
         -- best, the runner-up and every one tied with the best.
         (SELECT group_concat(item, ', ')
          FROM (SELECT printf('%s %d/%d', t.label, t.loaded_runs, t.repeats) AS item FROM ranked t
                WHERE t.experiment_id = b.experiment_id AND t.model = b.model AND t.dataset = b.dataset
                  AND t.world_size = b.world_size AND t.reached = 1 AND t.loaded_runs > 0
                  AND (t.place <= 2 OR t.hi >= b.lo)
                ORDER BY t.label, t.cell)) AS loaded_contenders,
         -- Faster configurations that missed the bar, with what each gains and loses.
         (SELECT group_concat(item, '; ')
          FROM (SELECT CASE WHEN b.cell IS NULL OR m.acc IS NULL
                            THEN m.label || ': test accuracy ' || CASE WHEN m.acc IS NULL THEN 'unknown' ELSE printf('%.4f', m.acc) END
                            ELSE printf('%s: %+.1f %% samples/s, %+.1f pt accuracy', m.label,
                                        100.0 * (m.thr / b.thr - 1), 100.0 * (m.acc - b.acc)) END AS item
                FROM ranked m
                WHERE m.experiment_id = g.experiment_id AND m.model = g.model AND m.dataset = g.dataset
                  AND m.world_size = g.world_size AND m.reached = 0 AND (b.cell IS NULL OR m.thr > b.thr)
                ORDER BY m.thr DESC, m.cell)) AS missed,
         (SELECT MAX(m.acc) FROM ranked m
          WHERE m.experiment_id = g.experiment_id AND m.model = g.model AND m.dataset = g.dataset
            AND m.world_size = g.world_size) AS group_best_accuracy
  FROM grp g
  LEFT JOIN figured b ON b.experiment_id = g.experiment_id AND b.model = g.model AND b.dataset = g.dataset
   AND b.world_size = g.world_size AND b.place = 1
  LEFT JOIN figured s ON s.experiment_id = g.experiment_id AND s.model = g.model AND s.dataset = g.dataset
   AND s.world_size = g.world_size AND s.place = 2
)
SELECT x.name AS experiment, p.experiment_id, p.model, p.dataset, p.world_size, p.configs,
       CASE
         WHEN p.best IS NULL THEN
           printf('no configuration reached the target accuracy %.4g (the best reached %s)', p.target_accuracy,
                  CASE WHEN p.group_best_accuracy IS NULL THEN 'no test accuracy'
                       ELSE printf('%.4f', p.group_best_accuracy) END)
         WHEN p.configs = 1 THEN 'the only configuration measured at this world size'
         WHEN p.runner_up IS NULL THEN 'use ' || p.best || ' (the only configuration that reached the accuracy)'
         WHEN p.loaded_contenders IS NOT NULL THEN 'inconclusive: loaded runs (' || p.loaded_contenders || ')'
         WHEN p.beyond_noise IS NULL THEN p.best || ' fastest, noise unknown (one repeat)'
         WHEN p.beyond_noise = 0 AND p.tied_count = 1 AND p.tied = p.runner_up AND p.first_to_target = 1 THEN
           printf('use %s: reaches the target accuracy first (%.3g vs %.3g s); samples/s tied within noise',
                  p.best, p.seconds_to_target, p.runner_up_seconds_to_target)
         WHEN p.beyond_noise = 0 AND p.tied_count = 1 AND p.tied = p.runner_up AND p.first_to_target = -1 THEN
           printf('tie within noise: %s; %s reaches the target accuracy first (%.3g vs %.3g s)', p.tie,
                  p.runner_up, p.runner_up_seconds_to_target, p.seconds_to_target)
         WHEN p.beyond_noise = 0 THEN 'tie within noise: ' || p.tie
         ELSE 'use ' || p.best
       END AS decision,
       p.best, p.best_config_key, p.best_cell, p.repeats, p.samples_per_s, p.noisy, p.loaded_runs,
       p.best_test_accuracy,
       p.runner_up, p.runner_up_config_key, p.runner_up_repeats, p.runner_up_samples_per_s,
       p.runner_up_loaded_runs, p.runner_up_test_accuracy, p.margin, p.margin_over_slowest, p.beyond_noise,
       p.tied, p.missed, p.target_accuracy, p.bar AS accuracy_bar,
       CASE
         WHEN p.best IS NULL THEN NULL
         WHEN p.runner_up IS NULL AND p.configs = 1 THEN 'the only configuration measured at this world size'
         WHEN p.runner_up IS NULL THEN 'every other configuration missed the accuracy bar'
         WHEN p.step_ms IS NULL OR p.runner_up_step_ms IS NULL THEN 'no step phases recorded'
         ELSE CASE WHEN p.phase IS NULL THEN 'no phase differs beyond its repeats'' spread'
                   ELSE printf('%s: %.2f vs %.2f ms per step%s', p.phase,
                              CASE p.phase WHEN 'exposed communication' THEN p.exposed_ms
                                           WHEN 'optimizer and strategy compute' THEN p.optimizer_ms
                                           WHEN 'data loading' THEN p.data_ms
                                           ELSE p.compute_ms END,
                              CASE p.phase WHEN 'exposed communication' THEN p.runner_up_exposed_ms
                                           WHEN 'optimizer and strategy compute' THEN p.runner_up_optimizer_ms
                                           WHEN 'data loading' THEN p.runner_up_data_ms
                                           ELSE p.runner_up_compute_ms END,
                              CASE WHEN p.repeats < 2 OR p.runner_up_repeats < 2 THEN ' (noise unknown)' ELSE '' END) END
              || CASE WHEN p.bus_bytes_per_step > 0 OR p.runner_up_bus_bytes_per_step > 0
                      THEN printf('; moves %.3g vs %.3g MB per step', p.bus_bytes_per_step / 1e6,
                                  p.runner_up_bus_bytes_per_step / 1e6) ELSE '' END
              || CASE WHEN ABS(p.peak_rss_bytes - p.runner_up_peak_rss_bytes)
                           >= 0.05 * MAX(p.peak_rss_bytes, p.runner_up_peak_rss_bytes)
                      THEN printf('; peak RSS %d vs %d MiB per rank', CAST(p.peak_rss_bytes / 1048576 AS INTEGER),
                                  CAST(p.runner_up_peak_rss_bytes / 1048576 AS INTEGER)) ELSE '' END
       END AS why,
       p.seconds_to_target, p.runner_up_seconds_to_target,
       p.step_ms, p.runner_up_step_ms, p.exposed_ms, p.runner_up_exposed_ms, p.compute_ms, p.runner_up_compute_ms,
       p.optimizer_ms, p.runner_up_optimizer_ms, p.data_ms, p.runner_up_data_ms,
       p.bus_bytes_per_step, p.runner_up_bus_bytes_per_step, p.peak_rss_bytes, p.runner_up_peak_rss_bytes
FROM pair p
JOIN experiment x ON x.id = p.experiment_id;
