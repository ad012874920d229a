-- A run whose coordinator died (SIGKILL, a power loss) stayed 'running' for
-- ever, its partial figures shown as if it went on. Each run now names the
-- process that runs it and when that process was last alive; the next
-- dtbench to open the store for writing marks a run whose coordinator is
-- gone 'interrupted', with the reason (result_store.cpp), and the views show
-- a run without a heartbeat for two minutes as 'interrupted' too.
ALTER TABLE run ADD COLUMN coordinator_host TEXT;      -- the host name of the dtbench process that runs it
ALTER TABLE run ADD COLUMN coordinator_pid INTEGER;   -- the process id of that dtbench
ALTER TABLE run ADD COLUMN coordinator_identity TEXT;  -- boot id and process start time: a reused pid is not taken for it
ALTER TABLE run ADD COLUMN heartbeat_at TEXT;          -- UTC, refreshed every few seconds while the run goes on

-- The new status, added to run's CHECK constraint in place: SQLite's
-- documented way to change a constraint that every stored row still meets
-- (https://sqlite.org/lang_altertable.html, "making other kinds of table
-- schema changes"); the store bumps schema_version after its migrations so
-- every connection reads the new definition.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '''failed'', ''stopped'')', '''failed'', ''stopped'', ''interrupted'')')
 WHERE type = 'table' AND name = 'run';
PRAGMA writable_schema = OFF;
