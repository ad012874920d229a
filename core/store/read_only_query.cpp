#include "store/read_only_query.h"

#include <cstdio>

#include "store/store_reader.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

// The time a query has spent inside SQLite: what the limit is about. The
// time its rows take to be written (a slow pipe, `| less`) is not counted.
struct QueryClock {
  Clock::duration limit;
  Clock::duration spent{};
  Clock::time_point stepStarted;
  bool over() const { return spent + (Clock::now() - stepStarted) > limit; }
};

// SQLite calls this every few thousand virtual-machine steps; non-zero
// interrupts the statement (sqlite3_progress_handler).
int pastLimit(void* clock) { return static_cast<const QueryClock*>(clock)->over() ? 1 : 0; }

// Whether `tail` holds only what SQLite skips (blanks, ';', comments).
bool onlyCommentsLeft(sqlite3* db, const char* tail) {
  while (tail != nullptr && *tail != '\0') {
    sqlite3_stmt* next = nullptr;
    const char* rest = nullptr;
    if (sqlite3_prepare_v2(db, tail, -1, &next, &rest) != SQLITE_OK || next != nullptr) {
      sqlite3_finalize(next);
      return false;
    }
    if (rest == tail) return false;  // no progress: do not loop
    tail = rest;
  }
  return true;
}

}  // namespace

void streamReadOnlyQuery(Database& db, const std::string& sql, std::chrono::milliseconds limit,
                         const RowHandler& handler) {
  const std::string& path = db.path().string();
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK) {
    throw StoreError(path + ": " + sqlite3_errmsg(db.handle()));
  }
  sqlite3_finalize(raw);
  if (raw == nullptr) throw StoreError("the query is empty");
  if (!onlyCommentsLeft(db.handle(), tail)) {
    throw StoreError("one statement at a time, please: found more after the first ';'");
  }
  const size_t length = static_cast<size_t>(tail - sql.c_str());
  Statement statement = db.prepare(std::string_view(sql.c_str(), length));
  if (!statement.readOnly()) {
    throw StoreError(path +
                     ": dtbench query is read-only and this statement would change the database; "
                     "results are written only by dtbench run");
  }
  QueryClock clock{limit};
  if (limit.count() > 0) sqlite3_progress_handler(db.handle(), 10000, pastLimit, &clock);
  struct Unset {  // the handler points at this frame's clock
    sqlite3* db;
    ~Unset() { sqlite3_progress_handler(db, 0, nullptr, nullptr); }
  } unset{db.handle()};

  std::vector<std::string> columns;
  for (int i = 0; i < statement.columnCount(); ++i) columns.push_back(statement.columnName(i));
  handler.columns(std::move(columns));
  for (;;) {
    bool more = false;
    clock.stepStarted = Clock::now();
    try {
      more = statement.step();
      clock.spent += Clock::now() - clock.stepStarted;
    } catch (const StoreError&) {
      if (limit.count() > 0 && sqlite3_errcode(db.handle()) == SQLITE_INTERRUPT) {
        const double seconds = std::chrono::duration<double>(limit).count();
        char text[64];
        std::snprintf(text, sizeof(text), "%g", seconds);
        throw StoreError(path + ": the query was stopped after " + text +
                         " s (--timeout SECONDS allows longer; 0 for no limit)");
      }
      throw;
    }
    if (!more) break;
    std::vector<SqlValue> row;
    for (int i = 0; i < statement.columnCount(); ++i) row.push_back(statement.column(i));
    handler.row(std::move(row));
  }
}

QueryResult runReadOnlyQuery(Database& db, const std::string& sql) {
  QueryResult result;
  streamReadOnlyQuery(db, sql, std::chrono::milliseconds(0),
                      {[&](std::vector<std::string> columns) { result.columns = std::move(columns); },
                       [&](std::vector<SqlValue> row) { result.rows.push_back(std::move(row)); }});
  return result;
}

QueryResult runReadOnlyQuery(const std::filesystem::path& path, const std::string& sql) {
  Database db = openStoreForReading(path);
  return runReadOnlyQuery(db, sql);
}

}  // namespace dtb::core
