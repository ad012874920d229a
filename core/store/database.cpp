#include "store/database.h"

#include <cctype>
#include <string>

namespace dtb::core {

namespace {

// `path` as an SQLite URI ("file:/a%20b.db?mode=ro"): every byte but the
// unreserved ones and '/' percent-encoded, so '?', '#' and '%' in a name stay
// part of it.
std::string readOnlyUri(const std::filesystem::path& path, bool immutable) {
  static const char* hex = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : std::filesystem::absolute(path).string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    }
  }
  return uri + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

}  // namespace

Database::Database(const std::filesystem::path& path, Mode mode, int busyTimeoutMs) : path_(path) {
  const bool reading = mode == Mode::kReadOnly || mode == Mode::kImmutable;
  if (mode != Mode::kReadWrite && !std::filesystem::exists(path))
    throw StoreError(path.string() + ": no such database file");
  const std::string name = reading ? readOnlyUri(path, mode == Mode::kImmutable) : path.string();
  const int flags = reading                   ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
                    : mode == Mode::kExisting ? SQLITE_OPEN_READWRITE
                                              : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(path.string() + ": cannot open: " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busyTimeoutMs);
}

Database::~Database() { sqlite3_close_v2(db_); }

Database::Database(Database&& other) noexcept : path_(std::move(other.path_)), db_(other.db_) {
  other.db_ = nullptr;
}

void Database::fail(const std::string& what) const {
  throw StoreError(path_.string() + ": " + what + ": " + sqlite3_errmsg(db_));
}

void Database::exec(std::string_view sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw StoreError(path_.string() + ": " + text);
  }
}

Statement Database::prepare(std::string_view sql) { return Statement(*this, sql); }

int64_t Database::lastInsertId() const { return sqlite3_last_insert_rowid(db_); }

int Database::userVersion() {
  Statement s = prepare("PRAGMA user_version");
  s.step();
  return static_cast<int>(s.columnInt(0));
}

Statement::Statement(Database& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK) {
    db.fail("cannot prepare `" + std::string(sql.substr(0, 80)) + "`");
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK) {
    db_->fail("bind");
  }
  return *this;
}

Statement& Statement::bind(int index, std::nullopt_t) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_->fail("bind");
  return *this;
}

Statement& Statement::bind(int index, const SqlValue& value) {
  struct Binder {
    Statement& s;
    int i;
    void operator()(std::monostate) { s.bind(i, std::nullopt); }
    void operator()(int64_t v) { s.bind(i, v); }
    void operator()(double v) { s.bind(i, v); }
    void operator()(const std::string& v) { s.bind(i, v); }
  };
  std::visit(Binder{*this, index}, value);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("cannot run `" + std::string(sqlite3_sql(stmt_)).substr(0, 80) + "`");
}

void Statement::run() {
  step();
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int Statement::columnCount() const { return sqlite3_column_count(stmt_); }

std::string Statement::columnName(int index) const { return sqlite3_column_name(stmt_, index); }

SqlValue Statement::column(int index) const {
  switch (sqlite3_column_type(stmt_, index)) {
    case SQLITE_INTEGER:
      return static_cast<int64_t>(sqlite3_column_int64(stmt_, index));
    case SQLITE_FLOAT:
      return sqlite3_column_double(stmt_, index);
    case SQLITE_NULL:
      return std::monostate{};
    default:
      return columnText(index);  // text; blobs shown as their bytes
  }
}

int64_t Statement::columnInt(int index) const { return sqlite3_column_int64(stmt_, index); }

double Statement::columnReal(int index) const { return sqlite3_column_double(stmt_, index); }

std::string Statement::columnText(int index) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  return text ? std::string(text, sqlite3_column_bytes(stmt_, index)) : std::string();
}

bool Statement::readOnly() const { return sqlite3_stmt_readonly(stmt_) != 0; }

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace dtb::core
