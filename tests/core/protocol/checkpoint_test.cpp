// Checkpoint files (recovery = "restart", protocol/checkpoint.h): what is written
// reads back the same, each rank keeps its last two, the ranks resume from
// the newest step all of them have, and a damaged file is refused by name.
#include "protocol/checkpoint.h"

#include <gtest/gtest.h>

#include <fstream>

#include "temp_dir.h"

namespace dtb::core {
namespace {

Checkpoint at(uint64_t steps) {
  Checkpoint c;
  c.steps = steps;
  c.epoch = 1;
  c.stepInEpoch = 3;
  c.optimizerStep = static_cast<int64_t>(steps);
  c.params = {{1, 2, 3, 4}, {}, {9}};
  c.strategyState = {7, 7, static_cast<uint8_t>(steps)};
  c.lossScaler = {32768, 12, 9, 1};
  return c;
}

TEST(Checkpoint, ReadsBackWhatWasWritten) {
  testing::TempDir dir;
  writeCheckpoint(dir.path(), 1, at(6));
  const Checkpoint c = readCheckpoint(dir.path(), 1, 6);
  EXPECT_EQ(c.steps, 6u);
  EXPECT_EQ(c.epoch, 1);
  EXPECT_EQ(c.stepInEpoch, 3);
  EXPECT_EQ(c.optimizerStep, 6);
  EXPECT_EQ(c.params, at(6).params);
  EXPECT_EQ(c.strategyState, at(6).strategyState);
  EXPECT_EQ(c.lossScaler, at(6).lossScaler);
}

TEST(Checkpoint, RanksResumeFromTheNewestStepAllOfThemHave) {
  testing::TempDir dir;
  EXPECT_FALSE(latestCompleteCheckpoint(dir.path(), 2));
  for (uint64_t s : {2, 4, 6}) writeCheckpoint(dir.path(), 0, at(s));
  writeCheckpoint(dir.path(), 1, at(2));
  writeCheckpoint(dir.path(), 1, at(4));  // killed before its step 6
  EXPECT_EQ(latestCompleteCheckpoint(dir.path(), 2), 4u);
  EXPECT_EQ(latestCompleteCheckpoint(dir.path(), 1), 6u);
  EXPECT_FALSE(latestCompleteCheckpoint(dir.path(), 3));  // rank 2 wrote none
  // Other files, a half-written one among them, are not checkpoints.
  for (const char* stray :
       {"rank1-step6.ckpt.partial", "rank1-step.ckpt", "rankX-step6.ckpt", "rank1-step6.ckptx"})
    std::ofstream(dir.path() / stray) << "x";
  EXPECT_EQ(latestCompleteCheckpoint(dir.path(), 2), 4u);
  // Each rank keeps its last two: rank 0's step 2 is gone.
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "rank0-step2.ckpt"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "rank0-step4.ckpt"));
}

TEST(Checkpoint, ADamagedFileIsRefusedByName) {
  testing::TempDir dir;
  writeCheckpoint(dir.path(), 0, at(2));
  const auto file = dir.path() / "rank0-step2.ckpt";
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 2);
  try {
    readCheckpoint(dir.path(), 0, 2);
    FAIL() << "read a truncated checkpoint";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string() + ": not a dtbench checkpoint (truncated)"),
              std::string::npos)
        << e.what();
  }
  // A length past the file's end is refused before anything is allocated
  // for it, and bytes after the end are not taken as part of it.
  writeCheckpoint(dir.path(), 0, at(2));
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8 + 5 * 8);  // the magic, five counts: the first parameter's length
    const uint64_t huge = uint64_t{1} << 39;
    f.write(reinterpret_cast<const char*>(&huge), sizeof(huge));
  }
  try {
    readCheckpoint(dir.path(), 0, 2);
    FAIL() << "read a block longer than its file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("a block of 549755813888 bytes"), std::string::npos) << e.what();
  }
  writeCheckpoint(dir.path(), 0, at(2));
  std::ofstream(file, std::ios::app | std::ios::binary) << "xy";
  try {
    readCheckpoint(dir.path(), 0, 2);
    FAIL() << "read a checkpoint with bytes after its end";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("2 bytes after its end"), std::string::npos) << e.what();
  }
  std::ofstream(file, std::ios::trunc) << "not a checkpoint at all";
  EXPECT_THROW(readCheckpoint(dir.path(), 0, 2), std::runtime_error);
  EXPECT_THROW(readCheckpoint(dir.path(), 0, 8), std::runtime_error);  // missing
}

}  // namespace
}  // namespace dtb::core
