-- One row per run with the field's headline figures. Steady-state figures
-- leave out the first epoch (warm-up) when there is more than one (the
-- run_figure table, kept by triggers as epochs are written).
--   run_id                  the run (run.id)
--   experiment              the experiment's name
--   experiment_id           the experiment (experiment.id)
--   cell                    the matrix cell, from 0
--   repeat                  the repeat of the cell, from 0
--   label                   what sets the configuration apart within its experiment ("zero stage=3"),
--                           else the strategy
--   config_key              every parameter but world size: equal keys, same configuration
--   model                   the model, with its depth (resnet50)
--   dataset                 the dataset plugin
--   strategy                the strategy plugin
--   backend                 the communication backend
--   world_size              ranks the run started with
--   batch_size              samples per micro-batch, per rank
--   global_batch_size       samples per optimizer step, all ranks
--   status                  pending, running, ok, failed, stopped (Ctrl-C), or interrupted: its
--                           coordinator died, or sent no heartbeat for two minutes
--   error                   why it failed (rank, plugin, message), or why it reads interrupted
--   epochs                  epochs stored
--   samples_per_s           steady throughput: samples trained per second of training wall time, all ranks
--   samples_per_s_per_rank  samples_per_s / world_size
--   ms_per_step             steady wall time per optimizer step
--   first_epoch_s           the first epoch's training wall time (warm-up included)
--   steady_epoch_s          mean training wall time of the steady epochs
--   final_test_accuracy     the last epoch's test accuracy
--   final_train_loss        the last epoch's training loss
--   loaded                  1 when other processes or the hypervisor took CPU while it ran: its figures
--                           are suspect
--   competing_cpus          cores other processes kept busy, on average
--   competing_processes     the busiest of them, with their CPU seconds
--   steal_share             share of CPU time the hypervisor took
--   load_avg                the machine's 1-minute load average at the end
CREATE VIEW run_summary AS
SELECT r.id AS run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat,
       COALESCE(r.label, r.strategy) AS label, r.config_key,
       rm.model, r.dataset, r.strategy, r.backend, r.world_size, r.batch_size, r.global_batch_size,
       -- A run still 'running' whose coordinator sent no heartbeat for two
       -- minutes is gone (killed, or its machine restarted): the next
       -- dtbench that writes the store marks it so; readers show it now.
       CASE WHEN r.status = 'running' AND r.heartbeat_at IS NOT NULL
                 AND julianday('now') - julianday(r.heartbeat_at) > 120.0 / 86400 THEN 'interrupted'
            ELSE r.status END AS status,
       CASE WHEN r.status = 'running' AND r.heartbeat_at IS NOT NULL
                 AND julianday('now') - julianday(r.heartbeat_at) > 120.0 / 86400
            THEN 'no heartbeat from its coordinator since ' || r.heartbeat_at
            ELSE r.error END AS error,
       f.epochs,
       f.steady_samples / f.steady_seconds AS samples_per_s,
       f.steady_samples / f.steady_seconds / r.world_size AS samples_per_s_per_rank,
       1000.0 * f.steady_seconds / f.steady_steps AS ms_per_step,
       f.first_epoch_s,
       f.steady_seconds / (f.epochs - (f.epochs > 1)) AS steady_epoch_s,
       f.final_test_accuracy,
       f.final_train_loss,
       r.loaded, r.competing_cpus, r.competing_processes, r.steal_share, r.load_avg
FROM run r
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id
LEFT JOIN run_figure f ON f.run_id = r.id;
