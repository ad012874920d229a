// The store answers in time that grows with the rows asked for, never with
// runs x cells: each view and report query is run on the same synthetic
// store at two sizes (bench/store_scale/make_store.sql), and the SQLite
// virtual machine's step count — deterministic, unlike wall time — may grow
// at most a little faster than the store (sorting is n log n). A correlated
// subquery or a nested scan per row grows with the square and fails here.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "store/database.h"
#include "store/embedded_sql.h"
#include "store/result_store.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A store of `experiments` x 10 runs, each with 3 epochs and 10 steps.
std::filesystem::path makeStore(const std::filesystem::path& dir, int experiments) {
  const std::filesystem::path path = dir / ("store" + std::to_string(experiments) + ".db");
  { ResultStore store(path); }  // schema and views
  Database db(path, Database::Mode::kReadWrite);
  db.exec("CREATE TEMP TABLE bench_size AS SELECT " + std::to_string(experiments) +
          " AS experiments, 10 AS steps");
  db.exec(readFile(std::string(DTBENCH_SOURCE_DIR) + "/bench/store_scale/make_store.sql"));
  return path;
}

// Virtual machine steps to read every row of `sql`.
int64_t vmSteps(const std::filesystem::path& path, const std::string& sql) {
  Database db(path, Database::Mode::kReadOnly);
  Statement s = db.prepare(sql);
  while (s.step()) {
  }
  return sqlite3_stmt_status(s.handle(), SQLITE_STMTSTATUS_VM_STEP, 0);
}

// Report queries with their placeholders filled: every experiment, or the first two.
std::string filled(std::string sql, int experiments) {
  std::string ids;
  for (int i = 1; i <= experiments; ++i) ids += (i > 1 ? "," : "") + std::to_string(i);
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{experiments}", ids},
                                   {"{experiment_a}", "1"},
                                   {"{experiment_b}", "2"}}) {
    for (size_t at; (at = sql.find(key)) != std::string::npos;) sql.replace(at, key.size(), value);
  }
  return sql;
}

TEST(ViewCost, GrowsWithTheStoreNotItsSquare) {
  testing::TempDir dir;
  constexpr int kSmall = 40, kLarge = 160;  // experiments: 400 and 1,600 runs
  const std::filesystem::path small = makeStore(dir.path(), kSmall), large = makeStore(dir.path(), kLarge);
  std::vector<std::pair<std::string, std::string>> queries;  // name, SQL at small and at large
  for (const EmbeddedSql& view : reportViews()) {
    queries.push_back({viewName(view.name), "SELECT * FROM " + viewName(view.name)});
  }
  queries.push_back({"runs",
                     "SELECT * FROM run_summary s LEFT JOIN repeat_stats q "
                     "ON q.experiment_id = s.experiment_id AND q.cell = s.cell"});
  for (const auto& [name, sql] : queries) {
    const double ratio = double(vmSteps(large, sql)) / double(vmSteps(small, sql));
    // 4x the rows: linear is 4, n log n a little more; a square would be 16.
    EXPECT_LT(ratio, 6.0) << name << ": " << ratio << "x the steps for 4x the runs";
  }
  for (const EmbeddedSql& query : reportQueries()) {
    const double ratio =
        double(vmSteps(large, filled(query.sql, kLarge))) / double(vmSteps(small, filled(query.sql, kSmall)));
    EXPECT_LT(ratio, 6.0) << "report query " << query.name << ": " << ratio << "x the steps for 4x the runs";
  }
}

}  // namespace
}  // namespace dtb::core
