// The idx dataset plugin on small IDX files made here: raw and gzip, the
// normalisation it declares, and one clear error per kind of damage.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <fstream>

#include "data/data_loader.h"
#include "plugin/loader.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

std::string header(uint8_t ndim, std::vector<uint32_t> dims) {
  std::string h = {0, 0, 8, static_cast<char>(ndim)};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) h += static_cast<char>((d >> shift) & 0xff);
  }
  return h;
}

void writeFile(const std::filesystem::path& path, const std::string& bytes, bool gzip = false) {
  if (gzip) {
    gzFile out = gzopen((path.string() + ".gz").c_str(), "wb");
    gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(out);
  } else {
    std::ofstream(path, std::ios::binary) << bytes;
  }
}

// `n` 2x3 images with pixel value 10 i + k, label i % 3.
void writeSplit(const std::filesystem::path& dir, const std::string& prefix, uint32_t n, bool gzip) {
  std::string images = header(3, {n, 2, 3}), labels = header(1, {n});
  for (uint32_t i = 0; i < n; ++i) {
    for (int k = 0; k < 6; ++k) images += static_cast<char>(10 * i + k);
    labels += static_cast<char>(i % 3);
  }
  writeFile(dir / (prefix + "-images-idx3-ubyte"), images, gzip);
  writeFile(dir / (prefix + "-labels-idx1-ubyte"), labels, gzip);
}

class IdxDataset : public ::testing::Test {
 protected:
  std::unique_ptr<PluginInstance> open(ParamValues params = {}) {
    params["path"] = temp_.path().string();
    PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
    return openDataset(loader.load(PluginKind::kDataset, "idx"), params);
  }
  std::string openError(ParamValues params = {}) {
    try {
      open(params);
    } catch (const PluginCallError& e) {
      EXPECT_EQ(e.status(), DTB_STATUS_IO_ERROR) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "opened damaged files";
    return "";
  }
  testing::TempDir temp_;
};

TEST_F(IdxDataset, ReadsRawAndGzipSplits) {
  writeSplit(temp_.path(), "train", 5, false);
  writeSplit(temp_.path(), "t10k", 2, true);
  auto dataset = open();
  const auto& api = dataset->plugin().descriptor<dtb_dataset_plugin_v1_t>();
  dtb_split_info_t split{};
  split.struct_size = sizeof(split);
  dataset->check("split_info", api.split_info(dataset->context(), 1, &split));
  EXPECT_STREQ(split.name, "test");
  EXPECT_EQ(split.samples, 2u);
  const uint64_t indices[] = {4, 0};
  uint8_t pixels[12];
  int32_t labels[2];
  dataset->check("read", api.read(dataset->context(), 0, indices, 2, pixels, labels));
  EXPECT_EQ(pixels[0], 40);
  EXPECT_EQ(pixels[11], 5);
  EXPECT_EQ(labels[0], 1);
  EXPECT_EQ(labels[1], 0);
}

TEST_F(IdxDataset, TheLoaderNormalisesWithTheDeclaredStatistics) {
  writeSplit(temp_.path(), "train", 4, false);
  writeSplit(temp_.path(), "t10k", 1, false);
  auto dataset = open({{"mean", 0.5}, {"std", 0.25}});
  DataLoader loader(*dataset, {0, 4, 0, false}, DistributedSampler({4, 1, 1, 0, false, false, 0}));
  EXPECT_EQ(loader.info().sample_shape[1], 2);
  loader.startEpoch(0);
  auto batch = loader.next();
  ASSERT_TRUE(batch);
  EXPECT_FLOAT_EQ(batch->inputs[1], (1 / 255.0f - 0.5f) / 0.25f);  // sample 0, pixel 1
  EXPECT_FLOAT_EQ(batch->inputs[6 * 3 + 2], (32 / 255.0f - 0.5f) / 0.25f);
}

TEST_F(IdxDataset, MissingFilesPointToTheFetcher) {
  const std::string error = openError();
  EXPECT_NE(error.find("train-images-idx3-ubyte: no such file"), std::string::npos) << error;
  EXPECT_NE(error.find("tools/fetch-datasets.sh"), std::string::npos) << error;
}

TEST_F(IdxDataset, TruncatedDataNamesFileAndOffset) {
  writeSplit(temp_.path(), "t10k", 1, false);
  writeFile(temp_.path() / "train-images-idx3-ubyte", header(3, {5, 2, 3}) + std::string(20, '\1'));
  writeFile(temp_.path() / "train-labels-idx1-ubyte", header(1, {5}) + std::string(5, '\0'));
  const std::string error = openError();
  EXPECT_NE(
      error.find("train-images-idx3-ubyte: truncated: the header promises 30 bytes of data after offset 16, "
                 "the file has 20"),
      std::string::npos)
      << error;
}

// What the header promises is held against the file before a byte of it is
// allocated: a 16-byte header promising a terabyte, a gzip file promising
// more than deflate can expand to (1032:1), past the 1 GiB bound.
TEST_F(IdxDataset, AHeaderPromisingMoreThanTheFileIsRefusedBeforeAllocating) {
  writeSplit(temp_.path(), "t10k", 1, false);
  writeSplit(temp_.path(), "train", 2, false);
  writeFile(temp_.path() / "train-images-idx3-ubyte",
            header(3, {1000000, 1000, 1000}) + std::string(20, '\1'));
  std::string error = openError();
  EXPECT_NE(
      error.find("train-images-idx3-ubyte: the header's dimensions promise more than the 1073741824-byte "
                 "limit of an IDX file"),
      std::string::npos)
      << error;
  writeFile(temp_.path() / "train-images-idx3-ubyte", header(3, {0xffffffff, 0xffffffff, 0xffffffff}));
  EXPECT_NE(openError().find("promise more than the 1073741824-byte limit"), std::string::npos);
  std::filesystem::remove(temp_.path() / "train-images-idx3-ubyte");
  writeFile(temp_.path() / "train-images-idx3-ubyte", header(3, {1000, 1000, 1000}) + std::string(64, '\0'),
            true);
  error = openError();
  EXPECT_NE(
      error.find("train-images-idx3-ubyte.gz: truncated: the header promises 1000000000 bytes of data after "
                 "offset 16, more than its "),
      std::string::npos)
      << error;
  EXPECT_NE(error.find("compressed bytes can inflate to"), std::string::npos) << error;
}

// A FIFO would block the worker in open() for ever, /dev/zero would be read
// for ever: each is named for what it is.
TEST_F(IdxDataset, OnlyRegularFilesAreRead) {
  writeSplit(temp_.path(), "t10k", 1, false);
  writeSplit(temp_.path(), "train", 2, false);
  const std::filesystem::path images = temp_.path() / "train-images-idx3-ubyte";
  std::filesystem::remove(images);
  ASSERT_EQ(mkfifo(images.c_str(), 0600), 0);
  std::string error = openError();
  EXPECT_NE(error.find("train-images-idx3-ubyte: is a FIFO (named pipe), not a regular file; a dataset (IDX) "
                       "file must be one"),
            std::string::npos)
      << error;
  std::filesystem::remove(images);
  std::filesystem::create_symlink("/dev/zero", images);
  error = openError();
  EXPECT_NE(error.find("train-images-idx3-ubyte: is a character device, not a regular file"),
            std::string::npos)
      << error;
}

TEST_F(IdxDataset, NotIdxAndBadLabelsAreRefused) {
  writeSplit(temp_.path(), "t10k", 1, false);
  writeFile(temp_.path() / "train-images-idx3-ubyte", "GIF89a: not an idx file at all");
  EXPECT_NE(openError().find("not an IDX file: bytes 0-1 are not zero (offset 0)"), std::string::npos);

  writeSplit(temp_.path(), "train", 4, false);
  writeFile(temp_.path() / "train-labels-idx1-ubyte", header(1, {4}) + std::string("\0\1\2\x0b", 4));
  const std::string error = openError();
  EXPECT_NE(error.find("label 11 at offset 11 is not below classes = 10"), std::string::npos) << error;

  writeFile(temp_.path() / "train-labels-idx1-ubyte", header(1, {3}) + std::string(3, '\0'));
  EXPECT_NE(openError().find("3 labels for 4 images"), std::string::npos);
}

TEST_F(IdxDataset, CorruptGzipIsNamed) {
  writeSplit(temp_.path(), "t10k", 1, false);
  writeSplit(temp_.path(), "train", 3, true);
  // Flip bytes in the middle of the compressed stream: inflating fails or
  // the CRC does not match.
  const auto gz = temp_.path() / "train-images-idx3-ubyte.gz";
  std::string bytes;
  {
    std::ifstream in(gz, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 30u);
  for (size_t i = 12; i < 24; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  std::ofstream(gz, std::ios::binary | std::ios::trunc) << bytes;
  const std::string error = openError();
  EXPECT_NE(error.find("train-images-idx3-ubyte.gz"), std::string::npos) << error;
}

}  // namespace
}  // namespace dtb::core
