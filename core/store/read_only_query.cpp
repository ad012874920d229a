#include "store/read_only_query.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "store/store_reader.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

// The time a query has spent inside SQLite: what the limit is about. The
// time its rows take to be written (a slow pipe, `| less`) is not counted.
// Read by the watchdog's thread too, hence atomics (nanoseconds).
class QueryClock {
 public:
  explicit QueryClock(Clock::duration limit) : limit_(limit) {}
  void stepBegins() { stepStarted_ = now(); }
  void stepEnds() { spent_ += now() - stepStarted_.exchange(0); }
  // How far past the limit the query is (negative: not yet).
  Clock::duration overBy() const {
    // spent_ first: a step that ends between the two loads is then counted
    // once or not at all, never twice (stepEnds() clears the start before
    // it adds to spent_).
    const int64_t spent = spent_;
    const int64_t started = stepStarted_;
    const int64_t inStep = started == 0 ? 0 : now() - started;
    return std::chrono::nanoseconds(spent + inStep) - limit_;
  }
  bool inStep() const { return stepStarted_ != 0; }
  bool over() const { return overBy().count() > 0; }

 private:
  static int64_t now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  }
  Clock::duration limit_;
  std::atomic<int64_t> spent_{0};
  std::atomic<int64_t> stepStarted_{0};  // 0: between steps
};

// SQLite calls this every few thousand virtual-machine steps; non-zero
// interrupts the statement (sqlite3_progress_handler).
int pastLimit(void* clock) { return static_cast<const QueryClock*>(clock)->over() ? 1 : 0; }

// The progress handler is not called inside one SQL function: printf('%.*c',
// 2000000000, 'x') spins in SQLite 3.40's formatter for 18 s whatever the limit.
// This thread interrupts SQLite at the limit (taken at the next opcode) and
// hands an overrun past kOverrunGrace to the caller (the CLI ends the
// process, saying why): a limit nothing outlives.
constexpr auto kOverrunGrace = std::chrono::seconds(kQueryOverrunGraceS);

class QueryWatchdog {
 public:
  QueryWatchdog(sqlite3* db, const QueryClock& clock, std::function<void()> overrun)
      : thread_([this, db, &clock, overrun = std::move(overrun)] {
          std::unique_lock lock(mutex_);
          bool interrupted = false;
          while (!done_) {
            wake_.wait_for(lock, std::chrono::milliseconds(50));
            if (done_) break;
            const Clock::duration over = clock.overBy();
            if (over.count() > 0 && !interrupted) {
              sqlite3_interrupt(db);
              interrupted = true;
            }
            // Only while SQLite holds the thread: between steps the caller is
            // writing rows, and its own check of the limit comes next.
            if (over > kOverrunGrace && clock.inStep() && overrun) overrun();
          }
        }) {}
  ~QueryWatchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  QueryWatchdog(const QueryWatchdog&) = delete;
  QueryWatchdog& operator=(const QueryWatchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;  // last: started once the members it uses exist
};

// SQLite's message for a statement that does not compile, with the line of
// the query it points at and a caret under the place (sqlite3_error_offset).
std::string syntaxError(sqlite3* db, const std::string& sql) {
  std::string message = sqlite3_errmsg(db);
  const int offset = sqlite3_error_offset(db);
  if (offset < 0 || static_cast<size_t>(offset) > sql.size()) return message;
  const size_t lineStart = sql.rfind('\n', offset == 0 ? 0 : static_cast<size_t>(offset) - 1);
  const size_t begin = lineStart == std::string::npos || offset == 0 ? 0 : lineStart + 1;
  const size_t end = std::min(sql.find('\n', static_cast<size_t>(offset)), sql.size());
  const int line = 1 + static_cast<int>(std::count(sql.begin(), sql.begin() + offset, '\n'));
  const size_t column = static_cast<size_t>(offset) - begin;
  return message + " (line " + std::to_string(line) + ", column " + std::to_string(column + 1) + ")\n  " +
         sql.substr(begin, end - begin) + "\n  " + std::string(column, ' ') + "^";
}

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
  // No value longer than kMaxQueryValueBytes: zeroblob(), replace() and
  // friends fail with "string or blob too big" instead of taking memory.
  sqlite3_limit(db.handle(), SQLITE_LIMIT_LENGTH, kMaxQueryValueBytes);
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK) {
    throw StoreError(path + ": " + syntaxError(db.handle(), sql));
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
  std::optional<QueryWatchdog> watchdog;
  if (limit.count() > 0) watchdog.emplace(db.handle(), clock, handler.overrun);

  std::vector<std::string> columns;
  for (int i = 0; i < statement.columnCount(); ++i) columns.push_back(statement.columnName(i));
  handler.columns(std::move(columns));
  for (;;) {
    bool more = false;
    clock.stepBegins();
    try {
      more = statement.step();
      clock.stepEnds();
    } catch (const StoreError&) {
      clock.stepEnds();  // out of SQLite: the watchdog has nothing left to stop
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
