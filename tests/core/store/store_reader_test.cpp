// Readers never change a store: query, runs and report open it read-only,
// with this dtbench's views as TEMP views; a write-protected copy is read as
// immutable (no -wal or -shm beside it, its bytes unchanged); an older store
// is refused with the command that upgrades it; and two dtbench creating the
// same new store at once both succeed.
#include "store/store_reader.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "sample_store.h"
#include "store/read_only_query.h"
#include "store/result_store.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {
namespace fs = std::filesystem;

std::string bytesOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::set<std::string> filesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

class StoreReader : public ::testing::Test {
 protected:
  testing::TempDir temp_;
  const fs::path& dir_ = temp_.path();
  const fs::path db_ = dir_ / "results.db";
};

TEST_F(StoreReader, AWriteProtectedCopyIsReadAndLeftAsItWas) {
  testing::writeSampleStore(db_);
  fs::permissions(db_, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::string before = bytesOf(db_);
  const std::set<std::string> files = filesIn(dir_);
  {
    Database db = openStoreForReading(db_);
    EXPECT_GT(runReadOnlyQuery(db, "SELECT COUNT(*) FROM scaling").rows.size(), 0u);
    EXPECT_GT(runReadOnlyQuery(db, "SELECT COUNT(*) FROM run_summary").rows.size(), 0u);
  }
  EXPECT_EQ(bytesOf(db_), before);
  EXPECT_EQ(filesIn(dir_), files) << "a reader left files beside the store";
}

TEST_F(StoreReader, ItsViewsAreThisDtbenchsEvenWhenTheFileHoldsOthers) {
  testing::writeSampleStore(db_);
  {  // As another dtbench might have left it: a view of the same name that answers differently.
    Database raw(db_, Database::Mode::kReadWrite);
    raw.exec("DROP VIEW scaling; CREATE VIEW scaling AS SELECT 'stale' AS experiment");
  }
  Database db = openStoreForReading(db_);
  const QueryResult r = runReadOnlyQuery(db, "SELECT DISTINCT experiment FROM scaling");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_NE(std::get<std::string>(r.rows[0][0]), "stale");
}

TEST_F(StoreReader, AnOlderStoreIsRefusedWithTheCommandThatUpgradesIt) {
  testing::writeSampleStore(db_);
  {
    Database raw(db_, Database::Mode::kReadWrite);
    raw.exec("PRAGMA user_version = 1");
  }
  try {
    openStoreForReading(db_);
    FAIL() << "read a store of an older schema";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 1 is older than this dtbench's"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("`dtbench upgrade " + db_.string() + "`"), std::string::npos)
        << e.what();
  }
}

TEST_F(StoreReader, ANewerStoreOrAForeignFileIsRefused) {
  testing::writeSampleStore(db_);
  {
    Database raw(db_, Database::Mode::kReadWrite);
    raw.exec("PRAGMA user_version = 999");
  }
  EXPECT_THROW(openStoreForReading(db_), StoreError);
  std::ofstream(dir_ / "text.db")
      << "not a database at all, just some text that is long enough to be a header";
  EXPECT_THROW(openStoreForReading(dir_ / "text.db"), StoreError);
  EXPECT_THROW(openStoreForReading(dir_ / "missing.db"), StoreError);
}

TEST_F(StoreReader, AQueryPastItsTimeLimitIsStopped) {
  testing::writeSampleStore(db_);
  Database db = openStoreForReading(db_);
  try {
    streamReadOnlyQuery(
        db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c",
        std::chrono::milliseconds(200), {[](auto) {}, [](auto) {}});
    FAIL() << "an endless query returned";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("stopped after 0.2 s"), std::string::npos) << e.what();
  }
  // The connection is still good, and the limit was this query's only.
  EXPECT_EQ(runReadOnlyQuery(db, "SELECT 1").rows.size(), 1u);
}

// Inside one SQL function SQLite calls no progress handler and takes no
// interrupt (SQLite 3.40's printf('%.*c', 2000000000, 'x') spins 18 s): the
// watchdog calls the caller's overrun handler once the statement is still
// inside SQLite 2 s past its limit, and the statement, once the function
// returns, ends as stopped. A function that sleeps stands in for the spin.
TEST_F(StoreReader, ALimitOutlivedInsideOneFunctionIsCalledOut) {
  testing::writeSampleStore(db_);
  Database db = openStoreForReading(db_);
  const auto sleepMs = [](sqlite3_context* context, int, sqlite3_value** args) {
    std::this_thread::sleep_for(std::chrono::milliseconds(sqlite3_value_int(args[0])));
    sqlite3_result_int(context, 1);
  };
  ASSERT_EQ(
      sqlite3_create_function(db.handle(), "sleep_ms", 1, SQLITE_UTF8, nullptr, sleepMs, nullptr, nullptr),
      SQLITE_OK);
  const auto started = std::chrono::steady_clock::now();
  std::atomic<double> overrunAt{-1};
  try {
    streamReadOnlyQuery(
        db, "SELECT sleep_ms(4500)", std::chrono::milliseconds(500),
        {[](auto) {}, [](auto) {},
         [&] {
           if (overrunAt < 0)
             overrunAt = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
         }});
    FAIL() << "a statement past its limit returned";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("stopped after 0.5 s"), std::string::npos) << e.what();
  }
  EXPECT_GE(overrunAt.load(), 2.5) << "called before the limit and its grace had passed";
  EXPECT_LT(overrunAt.load(), 4.5) << "not called while the function ran";
  EXPECT_EQ(runReadOnlyQuery(db, "SELECT 1").rows.size(), 1u);
}

// Two dtbench starting at once on a new file: the schema version is read in
// the write transaction that migrates, so the second waits, then finds the
// schema made ("table experiment already exists" before).
TEST_F(StoreReader, ProcessesCreatingTheSameNewStoreAtOnceAllSucceed) {
  for (int round = 0; round < 5; ++round) {
    const fs::path db = dir_ / ("new" + std::to_string(round) + ".db");
    std::vector<pid_t> children;
    for (int i = 0; i < 4; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        try {
          ResultStore store(db);
          _exit(0);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "child: %s\n", e.what());
          _exit(1);
        }
      }
      children.push_back(pid);
    }
    for (pid_t pid : children) {
      int status = 0;
      waitpid(pid, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace dtb::core
