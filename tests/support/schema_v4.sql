-- Turns a fresh store back into schema version 4, as a dtbench of that
-- version left it, for the tests of the upgrade (result_store_test.cpp,
-- read_only_cli_test.sh): each migration after 4 adds its undo here.
DROP VIEW projection_error;
DROP TRIGGER run_figure_after_epoch_insert;
DROP TRIGGER run_figure_after_epoch_update;
DROP TRIGGER run_figure_after_epoch_delete;
DROP VIEW run_figure_of_epochs;
DROP VIEW step_breakdown;
DROP VIEW verdict;
DROP VIEW scaling;
DROP VIEW repeat_stats;
DROP VIEW run_summary;
DROP TABLE run_figure;
DROP TRIGGER cell_figure_after_run_update;
DROP TRIGGER cell_figure_after_run_delete;
DROP TABLE cell_figure_refresh;
DROP TABLE cell_figure;
ALTER TABLE run DROP COLUMN coordinator_host;
ALTER TABLE run DROP COLUMN coordinator_pid;
ALTER TABLE run DROP COLUMN coordinator_identity;
ALTER TABLE run DROP COLUMN heartbeat_at;
DROP VIEW recovery_by_mode;
DROP VIEW recovery_cost;
DROP TABLE recovery;
DROP TABLE world_change;
ALTER TABLE step DROP COLUMN ended_at_s;
DROP TABLE rank_host;
DROP TABLE run_network;
DROP TABLE gradient_ready;
DROP TABLE projection;
ALTER TABLE memory DROP COLUMN gpu_used_bytes;
ALTER TABLE memory DROP COLUMN gpu_peak_allocated_bytes;
PRAGMA user_version = 4;
