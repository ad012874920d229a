#!/usr/bin/env bash
# The cost of per-step records (the step and step_metric tables), as a ratio
# measured in one run: median steady samples/s with step_records = true over
# the median with false, six interleaved pairs. 1.00 is free; the target is
# above 0.99 (under 1 % of step time). Also prints the step time, the rows
# stored per second, and how many runs saw competing load.
#   bench/step_records/compare.sh            (from the repository root)
source "$(dirname "$0")/../common/bench_lib.sh"
run_matrix bench/step_records/matrix.toml
build/bin/dtbench query "$db" "
  WITH runs AS (
    SELECT p.value AS step_records, s.samples_per_s, s.ms_per_step, s.loaded,
           ROW_NUMBER() OVER (PARTITION BY p.value ORDER BY s.samples_per_s) AS rn,
           COUNT(*) OVER (PARTITION BY p.value) AS n
    FROM run_summary s JOIN run_param p ON p.run_id = s.run_id AND p.key = 'step_records'
    WHERE s.status = 'ok'
  ), medians AS (
    SELECT step_records, COUNT(*) AS runs, SUM(loaded) AS loaded_runs,
           AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN samples_per_s END) AS samples_per_s,
           AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN ms_per_step END) AS ms_per_step,
           MIN(samples_per_s) AS min_samples_per_s, MAX(samples_per_s) AS max_samples_per_s
    FROM runs GROUP BY step_records
  )
  SELECT m.step_records, m.runs, m.loaded_runs, ROUND(m.samples_per_s, 1) AS median_samples_per_s,
         ROUND(m.min_samples_per_s, 1) AS min, ROUND(m.max_samples_per_s, 1) AS max,
         ROUND(m.ms_per_step, 3) AS ms_per_step,
         ROUND(m.samples_per_s / (SELECT samples_per_s FROM medians WHERE step_records = 'false'), 4) AS ratio_to_off
  FROM medians m ORDER BY m.step_records DESC"
build/bin/dtbench query "$db" "SELECT COUNT(*) AS step_rows, COUNT(DISTINCT run_id) AS runs FROM step"
