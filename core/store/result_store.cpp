#include "store/result_store.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <set>
#include <thread>

#include "build_info.h"
#include "log/redact.h"
#include "matrix/run_schema.h"
#include "store/embedded_sql.h"
#include "store/environment.h"
#include "store/record_rows.h"
#include "store/run_owner.h"

namespace dtb::core {
namespace {

template <typename T>
SqlValue optional(const std::optional<T>& value) {
  if (!value) return std::monostate{};
  return *value;
}

SqlValue numeric(const ParamValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return *i;
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* b = std::get_if<bool>(&value)) return int64_t{*b ? 1 : 0};
  return std::monostate{};
}

}  // namespace

const char* runStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kPending:
      return "pending";
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kStopped:
      return "stopped";
    case RunStatus::kInterrupted:
      return "interrupted";
  }
  return "failed";
}

std::string viewName(const char* stem) {
  std::string name(stem);
  const size_t underscore = name.find('_');
  return underscore == std::string::npos ? name : name.substr(underscore + 1);
}

std::string utcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[96];  // room for any int the compiler imagines in each field
  std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(millis));
  return text;
}

int ResultStore::schemaVersion() { return static_cast<int>(schemaMigrations().size()); }

ResultStore::ResultStore(const std::filesystem::path& path) : db_(path, Database::Mode::kReadWrite) {
  // NORMAL with WAL survives a killed process (what we guard against); only a
  // power loss may drop the last transactions.
  // Turning a new file to WAL takes a lock SQLite does not wait for (its
  // busy handler is not called there): several dtbench opening one new store
  // at once retry for up to the usual 10 s instead of failing "locked".
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    try {
      db_.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
      break;
    } catch (const StoreError&) {
      refuseIfNotADatabase();
      const bool busy = (sqlite3_extended_errcode(db_.handle()) & 0xff) == SQLITE_BUSY;
      if (!busy || std::chrono::steady_clock::now() > giveUp) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  migrate();
  createViews();
  markInterruptedRuns();
}

void ResultStore::refuseIfNotADatabase() const {
  // Other errors (read-only, busy, a full disk) say what they are; only a
  // file whose header SQLite cannot read is "not a database".
  const int code = sqlite3_extended_errcode(db_.handle()) & 0xff;
  if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
    throw StoreError(db_.path().string() + ": not a SQLite database (or it is corrupt)");
  }
}

void ResultStore::migrate() {
  // The version is read and the migrations run in one write transaction: two
  // dtbench starting at once on a new store take turns, and the second finds
  // the schema made instead of making it again ("table already exists").
  std::optional<Transaction> tx;
  int version = 0;
  try {
    tx.emplace(db_);
    version = db_.userVersion();
  } catch (const StoreError&) {
    refuseIfNotADatabase();
    throw;
  }
  const int latest = schemaVersion();
  if (version > latest) {
    throw StoreError(db_.path().string() + ": schema version " + std::to_string(version) +
                     " is newer than this dtbench understands (" + std::to_string(latest) +
                     "); open it with a newer dtbench");
  }
  if (version == 0) {
    // A fresh store, or some other application's file: refuse the latter.
    Statement tables = db_.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'");
    tables.step();
    if (tables.columnInt(0) != 0) {
      throw StoreError(db_.path().string() +
                       ": has tables but no dtbench schema version: not a dtbench store");
    }
  }
  for (int v = version; v < latest; ++v) {
    db_.exec(schemaMigrations()[v].sql);
    db_.exec("PRAGMA user_version = " + std::to_string(v + 1));
  }
  if (version < 8 && latest >= 8) {
    // Migration 8 edits run's CHECK by text: a run table written otherwise
    // would keep its old constraint, and every interrupted run fail to store.
    Statement check = db_.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'run' AND sql LIKE ?");
    check.bind(1, std::string("%'interrupted'%"));
    check.step();
    if (check.columnInt(0) != 1) {
      throw StoreError(db_.path().string() +
                       ": migration 8 could not add the status 'interrupted' to table run's "
                       "CHECK constraint (its definition is not the one dtbench wrote)");
    }
  }
  addPhaseColumns();
  if (version < latest) {
    // Migration 8 edits a constraint in place (writable_schema): a new schema
    // cookie makes every connection, this one too, read the schema again.
    Statement cookie = db_.prepare("PRAGMA schema_version");
    cookie.step();
    const int64_t next = cookie.columnInt(0) + 1;
    cookie.reset();
    db_.exec("PRAGMA schema_version = " + std::to_string(next));
  }
  tx->commit();
}

void ResultStore::addPhaseColumns() {
  // A phase added to train/step_phases.h after the store was made gets its
  // column here, on the next open; its documentation is the table's too
  // (schema_docs.cpp).
  for (const char* table : {"step", "epoch"}) {
    std::set<std::string> have;
    Statement columns = db_.prepare(std::string("SELECT name FROM pragma_table_info('") + table + "')");
    while (columns.step()) have.insert(columns.columnText(0));
    for (const PhaseInfo& p : kPhases) {
      const bool belongs = std::string(table) == "step" || p.scope == PhaseScope::kPerEpoch;
      if (belongs && !have.count(p.column))
        db_.exec(std::string("ALTER TABLE ") + table + " ADD COLUMN " + p.column + " REAL");
    }
  }
}

void ResultStore::markInterruptedRuns() {
  struct Stale {
    int64_t id;
    std::string reason;
  };
  std::vector<Stale> stale;
  Statement running = db_.prepare(
      "SELECT id, coordinator_host, coordinator_pid, coordinator_identity, heartbeat_at, "
      "julianday('now') - julianday(heartbeat_at) FROM run WHERE status = 'running'");
  while (running.step()) {
    const RunOwner owner{running.columnText(1), running.columnInt(2), running.columnText(3)};
    const std::string heartbeat = running.columnText(4);
    const bool noBeat = sqlite3_column_type(running.handle(), 5) == SQLITE_NULL;
    const auto silentFor = [&](double seconds) {
      return noBeat || sqlite3_column_double(running.handle(), 5) > seconds / 86400.0;
    };
    if (owner.host.empty()) {
      stale.push_back({running.columnInt(0), "left running by a dtbench that recorded no coordinator"});
    } else if (owner.host == hostName()) {
      if (!ownerAlive(owner) && silentFor(kHeartbeatMissedS)) {
        stale.push_back({running.columnInt(0), "its coordinator (pid " + std::to_string(owner.pid) + " on " +
                                                   owner.host + ") is gone; last heartbeat " + heartbeat});
      }
    } else if (!noBeat && silentFor(kHeartbeatStaleS)) {
      stale.push_back({running.columnInt(0),
                       "no heartbeat from its coordinator on " + owner.host + " since " + heartbeat});
    }
  }
  running.reset();
  for (const Stale& run : stale) finishRun(run.id, RunStatus::kInterrupted, run.reason);
}

void ResultStore::heartbeat(int64_t runId) {
  db_.prepare("UPDATE run SET heartbeat_at = ? WHERE id = ?").bind(1, utcNow()).bind(2, runId).run();
}

void ResultStore::createViews() {
  Transaction tx(db_);
  // Drop in reverse order: later views depend on earlier ones.
  const auto views = reportViews();
  for (auto it = views.rbegin(); it != views.rend(); ++it)
    db_.exec("DROP VIEW IF EXISTS " + viewName(it->name));
  for (const EmbeddedSql& view : views) db_.exec(view.sql);
  tx.commit();
}

int64_t ResultStore::addExperiment(const ExperimentInfo& info) {
  const BuildInfo& build = buildInfo();
  Statement insert = db_.prepare(
      "INSERT INTO experiment (name, description, matrix_path, matrix_toml, created_at, host, "
      "dtbench_version, git_commit) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  // The matrix as written, but never a password in a URL (log/redact.h).
  insert.bind(1, info.name)
      .bind(2, info.description)
      .bind(3, info.matrixPath)
      .bind(4, redactSecrets(info.matrixToml));
  insert.bind(5, utcNow()).bind(6, hostName()).bind(7, build.version).bind(8, build.gitCommit);
  insert.run();
  return db_.lastInsertId();
}

int64_t ResultStore::addRun(int64_t experimentId, const Cell& cell, int repeat, const std::string& label) {
  Transaction tx(db_);
  Statement insert = db_.prepare(
      "INSERT INTO run (experiment_id, cell, repeat, config_key, model, dataset, strategy, backend, "
      "world_size, batch_size, global_batch_size, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, experimentId).bind(2, int64_t{cell.index}).bind(3, int64_t{repeat});
  insert.bind(4, redactSecrets(cell.configKey())).bind(5, cell.text("model")).bind(6, cell.text("dataset"));
  insert.bind(7, cell.text("strategy")).bind(8, cell.text("backend"));
  insert.bind(9, cell.integer("world_size")).bind(10, cell.integer("batch_size"));
  insert.bind(11, cell.integer(kGlobalBatchKey))
      .bind(12, redactSecrets(label.empty() ? cell.text("strategy") : label));
  insert.run();
  const int64_t runId = db_.lastInsertId();
  Statement param = db_.prepare("INSERT INTO run_param (run_id, key, value, value_num) VALUES (?, ?, ?, ?)");
  for (const auto& [key, value] : cell.values) {
    param.bind(1, runId).bind(2, key).bind(3, redactSecrets(formatParamValue(value))).bind(4, numeric(value));
    param.run();
  }
  tx.commit();
  return runId;
}

void ResultStore::startRun(int64_t runId, const std::vector<std::pair<std::string, std::string>>& environment,
                           const std::vector<PluginLoadRecord>& plugins) {
  Transaction tx(db_);
  const RunOwner owner = thisProcessAsOwner();
  const std::string now = utcNow();
  Statement update = db_.prepare(
      "UPDATE run SET status = 'running', started_at = ?, heartbeat_at = ?, coordinator_host = ?, "
      "coordinator_pid = ?, coordinator_identity = ? WHERE id = ?");
  update.bind(1, now)
      .bind(2, now)
      .bind(3, owner.host)
      .bind(4, owner.pid)
      .bind(5, owner.identity)
      .bind(6, runId);
  update.run();
  Statement env = db_.prepare("INSERT OR REPLACE INTO environment (run_id, key, value) VALUES (?, ?, ?)");
  for (const auto& [key, value] : environment) env.bind(1, runId).bind(2, key).bind(3, value).run();
  Statement load = db_.prepare(
      "INSERT OR REPLACE INTO plugin_load (run_id, kind, name, version, abi, path) VALUES (?, ?, ?, ?, ?, "
      "?)");
  for (const PluginLoadRecord& p : plugins) {
    load.bind(1, runId)
        .bind(2, p.kind)
        .bind(3, p.name)
        .bind(4, p.version)
        .bind(5, p.abi)
        .bind(6, p.path)
        .run();
  }
  tx.commit();
}

void ResultStore::finishRun(int64_t runId, RunStatus status, const std::string& error) {
  Statement update = db_.prepare("UPDATE run SET status = ?, error = ?, finished_at = ? WHERE id = ?");
  update.bind(1, std::string(runStatusName(status)));
  if (error.empty()) {
    update.bind(2, std::nullopt);
  } else {
    update.bind(2, redactSecrets(error));
  }
  update.bind(3, utcNow()).bind(4, runId).run();
}

void ResultStore::recordLoad(int64_t runId, const MachineLoadRecord& load) {
  Statement update = db_.prepare(
      "UPDATE run SET cpus = ?, competing_cpus = ?, steal_share = ?, load_avg = ?, loaded = ?, "
      "competing_processes = ? WHERE id = ?");
  update.bind(1, int64_t{load.cpus}).bind(2, optional(load.competingCpus)).bind(3, optional(load.stealShare));
  update.bind(4, optional(load.loadAverage)).bind(5, int64_t{load.loaded ? 1 : 0});
  update.bind(6, load.competingProcesses).bind(7, runId).run();
}

int64_t ResultStore::forgetStepsFrom(int64_t runId, int64_t step) {
  Transaction tx(db_);
  Statement reached = db_.prepare("SELECT COALESCE(MAX(step) + 1, 0) FROM step WHERE run_id = ?");
  reached.bind(1, runId);
  reached.step();
  const int64_t lost = std::max<int64_t>(0, reached.columnInt(0) - step);
  for (const char* table : {"step", "step_metric"}) {
    db_.prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ? AND step >= ?")
        .bind(1, runId)
        .bind(2, step)
        .run();
  }
  tx.commit();
  return lost;
}

void ResultStore::addRecovery(const RecoveryRecord& r) {
  insertRows(db_, "INSERT", "recovery", {recoveryRow(r)});
}

void ResultStore::addWorldChange(const WorldChangeRecord& w) {
  insertRows(db_, "INSERT", "world_change", {worldChangeRow(w)});
}

void ResultStore::write(const RecordBatch& batch) {
  if (batch.empty()) return;
  Transaction tx(db_);
  insertRecords(db_, "INSERT OR REPLACE", "epoch", batch.epochs, epochRow);
  insertRecords(db_, "INSERT OR REPLACE", "step", batch.steps, stepRow);
  insertRecords(db_, "INSERT", "step_metric", batch.metrics, metricRow,
                "ON CONFLICT DO UPDATE SET value = value + excluded.value");
  insertRecords(db_, "INSERT", "collective", batch.collectives, collectiveRow);
  insertRecords(db_, "INSERT OR REPLACE", "bandwidth_reference", batch.references, referenceRow);
  insertRecords(db_, "INSERT", "event", batch.events, eventRow);
  insertRecords(db_, "INSERT OR REPLACE", "memory", batch.memory, memoryRow);
  insertRecords(db_, "INSERT OR REPLACE", "rank_host", batch.hosts, hostRow);
  insertRecords(db_, "INSERT OR REPLACE", "gradient_ready", batch.gradients, gradientRow);
  tx.commit();
}

void ResultStore::recordProjection(const std::vector<ProjectionRecord>& rows) {
  std::vector<ProjectionRecord> stamped = rows;
  const std::string now = utcNow();
  for (ProjectionRecord& p : stamped) p.createdAt = now;
  Transaction tx(db_);
  insertRecords(db_, "INSERT OR REPLACE", "projection", stamped, projectionRow);
  tx.commit();
}

void ResultStore::recordNetwork(const RunNetworkRecord& n) {
  insertRows(db_, "INSERT OR REPLACE", "run_network", {networkRow(n)});
}

}  // namespace dtb::core
