// dtbench query: strictly read-only, one statement, and the four formats.
#include <gtest/gtest.h>
#include <unistd.h>

#include "sample_store.h"
#include "store/read_only_query.h"
#include "store/result_format.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {
namespace fs = std::filesystem;

class QueryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    temp_ = new testing::TempDir();
    dir_ = temp_->path();
    testing::writeSampleStore(dir_ / "results.db");
  }
  static void TearDownTestSuite() { delete temp_; }

  static std::string error(const std::string& sql) {
    try {
      runReadOnlyQuery(dir_ / "results.db", sql);
    } catch (const StoreError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error for: " << sql;
    return "";
  }

  static inline testing::TempDir* temp_ = nullptr;
  static inline fs::path dir_;
};

TEST_F(QueryTest, ReturnsColumnsAndRows) {
  QueryResult r = runReadOnlyQuery(
      dir_ / "results.db", "SELECT strategy, world_size, speedup FROM scaling ORDER BY strategy, world_size");
  EXPECT_EQ(r.columns, (std::vector<std::string>{"strategy", "world_size", "speedup"}));
  ASSERT_EQ(r.rows.size(), 6u);
  EXPECT_EQ(std::get<std::string>(r.rows[0][0]), "allreduce");
}

TEST_F(QueryTest, RefusesEveryKindOfWrite) {
  for (const char* sql : {"INSERT INTO experiment (name) VALUES ('x')", "DELETE FROM run", "DROP TABLE run",
                          "UPDATE run SET status = 'ok'", "CREATE TABLE t (x)", "PRAGMA user_version = 5"}) {
    EXPECT_NE(error(sql).find("read-only"), std::string::npos) << sql;
  }
  // And nothing changed.
  QueryResult r = runReadOnlyQuery(dir_ / "results.db", "SELECT COUNT(*) FROM run");
  EXPECT_EQ(std::get<int64_t>(r.rows[0][0]), 20);
}

TEST_F(QueryTest, OneStatementAtATime) {
  EXPECT_NE(error("SELECT 1; DELETE FROM run").find("one statement at a time"), std::string::npos);
  EXPECT_NO_THROW(runReadOnlyQuery(dir_ / "results.db", "SELECT 1;  \n"));
  EXPECT_NE(error("SELECT 1; /* and */ SELECT 2").find("one statement at a time"), std::string::npos);
  // What SQLite itself skips after the statement is no second statement.
  EXPECT_NO_THROW(runReadOnlyQuery(dir_ / "results.db", "SELECT 1; -- the answer"));
  EXPECT_NO_THROW(runReadOnlyQuery(dir_ / "results.db", "SELECT 1 /* one */; /* done */ ;\n-- bye\n"));
}

TEST_F(QueryTest, SyntaxErrorsAndMissingFilesAreNamed) {
  EXPECT_NE(error("SELEC 1").find("syntax error"), std::string::npos);
  EXPECT_NE(error("SELECT nope FROM run").find("no such column: nope"), std::string::npos);
  try {
    runReadOnlyQuery(dir_ / "missing.db", "SELECT 1");
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.db: no such database file"), std::string::npos);
  }
  EXPECT_FALSE(fs::exists(dir_ / "missing.db"));  // read-only never creates
}

QueryResult tricky() {
  QueryResult r;
  r.columns = {"name", "n", "x", "none"};
  r.rows = {{std::string("a,\"b\"|c\nd"), int64_t{42}, 0.1, std::monostate{}}};
  return r;
}

TEST(ResultFormat, CsvQuotesPerRfc4180) {
  EXPECT_EQ(formatResult(tricky(), ResultFormat::kCsv), "name,n,x,none\r\n\"a,\"\"b\"\"|c\nd\",42,0.1,\r\n");
}

// CSV and JSON print the shortest text that reads back as the same double:
// exact, and without binary noise (0.1, not 0.10000000000000001).
TEST(ResultFormat, FloatsAreShortAndExact) {
  for (double v : {0.1, 0.4, 1.0 / 3.0, 1e-300, 123456789.125, -2.5e17}) {
    QueryResult r;
    r.columns = {"x"};
    r.rows = {{v}};
    const std::string csv = formatResult(r, ResultFormat::kCsv);
    const std::string text = csv.substr(csv.find('\n') + 1, csv.rfind('\r') - csv.find('\n') - 1);
    EXPECT_EQ(std::stod(text), v) << text;
    EXPECT_LE(text.size(), 24u) << text;
  }
}

TEST(ResultFormat, JsonEscapesAndKeepsTypes) {
  EXPECT_EQ(formatResult(tricky(), ResultFormat::kJson),
            "[\n {\"name\": \"a,\\\"b\\\"|c\\nd\", \"n\": 42, \"x\": 0.1, \"none\": null}\n]\n");
  QueryResult empty;
  empty.columns = {"x"};
  EXPECT_EQ(formatResult(empty, ResultFormat::kJson), "[]\n");
}

TEST(ResultFormat, MarkdownEscapesPipesAndAlignsNumbersRight) {
  EXPECT_EQ(formatResult(tricky(), ResultFormat::kMarkdown),
            "| name       |   n |   x | none |\n"
            "| ---------- | --: | --: | ---: |\n"
            "| a,\"b\"\\|c d |  42 | 0.1 |      |\n");
}

TEST(ResultFormat, TableCountsRows) {
  const std::string table = formatResult(tricky(), ResultFormat::kTable);
  EXPECT_NE(table.find("(1 row)"), std::string::npos) << table;
  EXPECT_EQ(parseResultFormat("markdown"), ResultFormat::kMarkdown);
  EXPECT_FALSE(parseResultFormat("xml"));
}

}  // namespace
}  // namespace dtb::core
