#!/usr/bin/env bash
# Does ZeRO save memory a user can see? Each rank's peak RSS (getrusage, the
# OS's figure) under ZeRO stages 1-3 against allreduce's in the same run, for
# ResNet-18 (SGD with momentum) and ResNet-50 (Adam) at 2 ranks: the ratio
# to allreduce, the saving in MiB, and the saving the ZeRO formulas predict
# (memory_vs_theory). Done-when of issue 14: ZeRO-3 saves at least half the
# predicted saving. About 1.5 minutes.
#   bench/zero_memory/compare.sh            (from the repository root)
source "$(dirname "$0")/../common/bench_lib.sh"
run_matrix bench/zero_memory/matrix.toml
build/bin/dtbench query "$db" "
  SELECT rp.value AS depth, m.label, m.rank,
         ROUND(m.peak_rss_bytes / 1048576.0) AS rss_mib,
         ROUND(m.allreduce_peak_rss_bytes / 1048576.0) AS allreduce_mib,
         ROUND(m.peak_rss_bytes / m.allreduce_peak_rss_bytes, 3) AS ratio_to_allreduce,
         ROUND(m.rss_saving_bytes / 1048576.0) AS saving_mib,
         ROUND(m.theory_saving_bytes / 1048576.0) AS theory_saving_mib,
         ROUND(m.rss_saving_bytes / NULLIF(m.theory_saving_bytes, 0), 2) AS of_theory,
         ROUND(m.buffer_bytes / 1048576.0) AS buffer_mib
  FROM memory_vs_theory m JOIN run_param rp ON rp.run_id = m.run_id AND rp.key = 'model.resnet.depth'
  ORDER BY CAST(rp.value AS INTEGER), m.stage, m.rank"
