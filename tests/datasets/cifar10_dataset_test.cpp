// The cifar10 dataset plugin on small batch files made here.
#include <gtest/gtest.h>

#include <fstream>

#include "data/data_loader.h"
#include "plugin/loader.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

// `n` records; record i has label i % 10 and pixel k = (i + k) % 256.
void writeBatch(const std::filesystem::path& file, int n, int firstIndex = 0) {
  std::ofstream out(file, std::ios::binary);
  for (int i = firstIndex; i < firstIndex + n; ++i) {
    out.put(static_cast<char>(i % 10));
    for (int k = 0; k < 3072; ++k) out.put(static_cast<char>((i + k) % 256));
  }
}

class Cifar10Dataset : public ::testing::Test {
 protected:
  void writeAll() {
    for (int b = 1; b <= 5; ++b)
      writeBatch(temp_ / ("data_batch_" + std::to_string(b) + ".bin"), 4, (b - 1) * 4);
    writeBatch(temp_ / "test_batch.bin", 3);
  }
  std::unique_ptr<PluginInstance> open(ParamValues params = {}) {
    params["path"] = temp_.path().string();
    PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
    return openDataset(loader.load(PluginKind::kDataset, "cifar10"), params);
  }
  std::string openError() {
    try {
      open();
    } catch (const PluginCallError& e) {
      EXPECT_EQ(e.status(), DTB_STATUS_IO_ERROR);
      return e.what();
    }
    ADD_FAILURE() << "opened damaged files";
    return "";
  }
  testing::TempDir temp_;
};

TEST_F(Cifar10Dataset, ReadsTheFiveTrainBatchesInOrder) {
  writeAll();
  auto dataset = open({{"normalize", false}});
  DataLoader loader(*dataset, {0, 20, 0, false}, DistributedSampler({20, 1, 1, 0, false, false, 0}));
  EXPECT_EQ(loader.info().sample_shape[0], 3);
  loader.startEpoch(0);
  auto batch = loader.next();
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->size, 20u);
  EXPECT_EQ(batch->labels[13], 3);                             // record 13 (batch 4)
  EXPECT_FLOAT_EQ(batch->inputs[13 * 3072 + 5], 18 / 255.0f);  // pixel 5 of record 13
}

TEST_F(Cifar10Dataset, NormalisesPerChannel) {
  writeAll();
  auto dataset = open();
  DataLoader loader(*dataset, {1, 3, 0, false}, DistributedSampler({3, 1, 1, 0, false, false, 0}));
  loader.startEpoch(0);
  auto batch = loader.next();
  ASSERT_TRUE(batch);
  EXPECT_FLOAT_EQ(batch->inputs[1024], ((1024 % 256) / 255.0f - 0.4822f) / 0.2435f);  // green plane
}

TEST_F(Cifar10Dataset, DamagedFilesAreNamed) {
  EXPECT_NE(openError().find("data_batch_1.bin: no such file"), std::string::npos);
  writeAll();
  {
    std::ofstream out(temp_ / "data_batch_3.bin", std::ios::binary | std::ios::app);
    out << "junk";
  }
  const std::string truncated = openError();
  EXPECT_NE(truncated.find("data_batch_3.bin: 12296 bytes is not a whole number of 3073-byte records"),
            std::string::npos)
      << truncated;
  writeAll();
  {
    std::fstream io(temp_ / "test_batch.bin", std::ios::binary | std::ios::in | std::ios::out);
    io.seekp(3073);
    io.put(static_cast<char>(42));
  }
  EXPECT_NE(openError().find("test_batch.bin: label 42 at offset 3073"), std::string::npos);
}

// A batch file that is /dev/zero (here a link to it) would be read for ever.
TEST_F(Cifar10Dataset, OnlyRegularFilesAreRead) {
  writeAll();
  std::filesystem::remove(temp_ / "data_batch_2.bin");
  std::filesystem::create_symlink("/dev/zero", temp_ / "data_batch_2.bin");
  const std::string error = openError();
  EXPECT_NE(
      error.find("data_batch_2.bin: is a character device, not a regular file; a CIFAR-10 batch file must "
                 "be one"),
      std::string::npos)
      << error;
}

}  // namespace
}  // namespace dtb::core
