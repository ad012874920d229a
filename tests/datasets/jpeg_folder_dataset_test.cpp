// The jpeg_folder dataset plugin on small folders written here: its decoder,
// its transforms against torchvision's rules, its determinism on any loader
// thread, its decode modes against each other, and one error per kind of
// damage, each naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <thread>

#include "augment.h"
#include "data/data_loader.h"
#include "jpeg_codec.h"
#include "plugin/loader.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

namespace jf = dtb::dataset::jpeg_folder;

// A smooth image whose content depends on `seed`: JPEG keeps it within a few levels.
jf::Image pattern(uint32_t width, uint32_t height, uint32_t channels, int seed) {
  jf::Image image{width, height, channels, std::vector<uint8_t>(size_t{width} * height * channels)};
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      for (uint32_t c = 0; c < channels; ++c) {
        const double v = 128 + 100 * std::sin(0.05 * (x + 2 * seed) + 0.3 * c) * std::cos(0.04 * (y + seed));
        image.pixels[(size_t{y} * width + x) * channels + c] = static_cast<uint8_t>(v);
      }
    }
  }
  return image;
}

void writeJpeg(const std::filesystem::path& file, const jf::Image& image, int quality = 95) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << jf::encodeJpeg(image, quality);
}

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class JpegFolderDataset : public ::testing::Test {
 protected:
  // train/<class>/<i>.jpg and val/<class>/<i>.jpg, `perClass` each, 60 x 45.
  void writeFolder(const std::vector<std::string>& classes, int perClass = 3, uint32_t channels = 3) {
    for (size_t c = 0; c < classes.size(); ++c) {
      for (int i = 0; i < perClass; ++i) {
        writeJpeg(temp_ / "train" / classes[c] / (std::to_string(i) + ".jpg"),
                  pattern(60, 45, channels, static_cast<int>(10 * c + i)));
        writeJpeg(temp_ / "val" / classes[c] / (std::to_string(i) + ".JPEG"),
                  pattern(45, 60, channels, static_cast<int>(100 + 10 * c + i)));
      }
    }
  }
  std::unique_ptr<PluginInstance> open(ParamValues params = {}) {
    params["path"] = temp_.path().string();
    if (!params.contains("size")) params["size"] = int64_t{32};
    PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
    return openDataset(loader.load(PluginKind::kDataset, "jpeg_folder"), params);
  }
  std::string openError(ParamValues params = {}, dtb_status_t status = DTB_STATUS_IO_ERROR) {
    try {
      open(params);
    } catch (const PluginCallError& e) {
      EXPECT_EQ(e.status(), status) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "opened a damaged folder";
    return "";
  }
  // The u8 samples `indices` of `split` as the plugin writes them, and their labels.
  static std::vector<uint8_t> read(PluginInstance& dataset, uint32_t split,
                                   const std::vector<uint64_t>& indices,
                                   std::vector<int32_t>* labels = nullptr, int64_t size = 32) {
    const auto& api = dataset.plugin().descriptor<dtb_dataset_plugin_v1_t>();
    std::vector<uint8_t> samples(indices.size() * 3 * size * size);
    std::vector<int32_t> got(indices.size());
    dataset.check("read", api.read(dataset.context(), split, indices.data(),
                                   static_cast<uint32_t>(indices.size()), samples.data(), got.data()));
    if (labels) *labels = got;
    return samples;
  }
  static std::string readError(PluginInstance& dataset, uint32_t split, uint64_t index) {
    try {
      read(dataset, split, {index});
    } catch (const PluginCallError& e) {
      EXPECT_EQ(e.status(), DTB_STATUS_IO_ERROR) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "read a damaged file";
    return "";
  }
  testing::TempDir temp_;
};

// A header within the side bounds but over the area bound (Pillow's
// decompression-bomb limit by default) is refused before the pixels are
// allocated, naming the file.
TEST(JpegCodec, AnAreaOverTheBoundIsRefusedNamingTheFile) {
  const std::string bytes = jf::encodeJpeg(pattern(48, 40, 1, 7), 90);
  jf::DecodeLimits limits;
  limits.maxPixels = 48 * 40 - 1;
  try {
    jf::decodeJpeg(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "bomb.jpg", limits);
    FAIL() << "decoded past the area bound";
  } catch (const jf::JpegError& e) {
    EXPECT_NE(
        std::string(e.what()).find("bomb.jpg: the header says 48 x 40 pixels, more than the bound of 1919"),
        std::string::npos)
        << e.what();
  }
  limits.maxPixels = 48 * 40;
  EXPECT_EQ(
      jf::decodeJpeg(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "ok.jpg", limits).width,
      48u);
}

TEST(JpegCodec, DecodesWhatWasEncodedWithinJpegTolerance) {
  for (uint32_t channels : {1u, 3u}) {
    const jf::Image original = pattern(48, 40, channels, 7);
    const std::string bytes = jf::encodeJpeg(original, 95);
    const jf::Image decoded =
        jf::decodeJpeg(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "x.jpg");
    ASSERT_EQ(decoded.width, 48u);
    ASSERT_EQ(decoded.height, 40u);
    ASSERT_EQ(decoded.channels, channels);  // gray stays one channel
    double sum = 0;
    int worst = 0;
    for (size_t i = 0; i < original.pixels.size(); ++i) {
      const int d = std::abs(int{original.pixels[i]} - int{decoded.pixels[i]});
      sum += d;
      worst = std::max(worst, d);
    }
    EXPECT_LT(sum / original.pixels.size(), 2.0) << channels << " channels";
    EXPECT_LT(worst, 16) << channels << " channels";
  }
}

// torchvision's bounds, written here rather than taken from augment.h: a
// changed constant there fails this test.
TEST(JpegAugment, RandomResizedCropStaysInsideAndWithinScaleAndRatio) {
  constexpr double kMinScale = 0.08, kMinRatio = 3.0 / 4, kMaxRatio = 4.0 / 3;
  for (auto [w, h] :
       std::vector<std::pair<uint32_t, uint32_t>>{{500, 375}, {224, 224}, {1000, 120}, {90, 400}}) {
    double smallest = 1, largest = 0;
    for (uint64_t index = 0; index < 2000; ++index) {
      jf::SampleRng rng(1, 0, index, 0);
      const jf::CropBox box = jf::randomResizedCrop(w, h, rng);
      ASSERT_GE(box.left, 0);
      ASSERT_GE(box.top, 0);
      ASSERT_LE(box.left + box.width, w);
      ASSERT_LE(box.top + box.height, h);
      const double scale = box.width * box.height / (double(w) * h);
      const double ratio = box.width / box.height;
      // Rounding w and h to pixels moves both by up to half a pixel.
      const double slack = 0.5 / box.width + 0.5 / box.height;
      EXPECT_GE(scale, kMinScale * (1 - 2 * slack)) << w << "x" << h << " #" << index;
      EXPECT_LE(scale, 1.0);
      EXPECT_GE(ratio, kMinRatio * (1 - slack)) << w << "x" << h << " #" << index;
      EXPECT_LE(ratio, kMaxRatio * (1 + slack)) << w << "x" << h << " #" << index;
      smallest = std::min(smallest, scale);
      largest = std::max(largest, scale);
    }
    // The range is used, not one corner of it (a long image caps the share
    // at what a 4:3 crop of its short side covers).
    EXPECT_LT(smallest, 0.15) << w << "x" << h;
    const double longSide = std::max(w, h), shortSide = std::min(w, h);
    EXPECT_GT(largest, 0.75 * std::min(1.0, kMaxRatio * shortSide / longSide)) << w << "x" << h;
  }
}

TEST(JpegAugment, EvalIsTorchvisionsResizeThenCentreCrop) {
  // 500 x 375 -> Resize(256): 341 x 256 -> CenterCrop(224) at (58, 16).
  const jf::CropBox box = jf::evalCenterCrop(500, 375, 224);
  EXPECT_NEAR(box.left, 58 * 500.0 / 341, 1e-9);
  EXPECT_NEAR(box.top, 16 * 375.0 / 256, 1e-9);
  EXPECT_NEAR(box.width, 224 * 500.0 / 341, 1e-9);
  EXPECT_NEAR(box.height, 224 * 375.0 / 256, 1e-9);
}

TEST(JpegAugment, FlipMirrorsTheCrop) {
  const jf::Image image = pattern(40, 30, 3, 3);
  const jf::CropBox box{5, 4, 30, 20};
  std::vector<uint8_t> plain(3 * 16 * 16), flipped(3 * 16 * 16);
  jf::resampleCrop(image, box, 16, false, plain.data());
  jf::resampleCrop(image, box, 16, true, flipped.data());
  EXPECT_NE(plain, flipped);
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < 16; ++y) {
      for (int x = 0; x < 16; ++x)
        ASSERT_EQ(flipped[(c * 16 + y) * 16 + x], plain[(c * 16 + y) * 16 + 15 - x])
            << c << "," << y << "," << x;
    }
  }
}

TEST(JpegAugment, ResamplingTheWholeImageAtItsSizeIsTheImage) {
  const jf::Image gray = pattern(16, 16, 1, 5);
  std::vector<uint8_t> planes(3 * 16 * 16);
  jf::resampleCrop(gray, {0, 0, 16, 16}, 16, false, planes.data());
  for (int c = 0; c < 3; ++c) {  // gray fills all three planes
    for (int p = 0; p < 256; ++p) ASSERT_EQ(planes[c * 256 + p], gray.pixels[p]);
  }
}

TEST_F(JpegFolderDataset, LabelsFollowTheSortedClassFolders) {
  writeFolder({"cat", "ant", "bee"}, 2);
  auto dataset = open();
  const auto& api = dataset->plugin().descriptor<dtb_dataset_plugin_v1_t>();
  dtb_dataset_info_t info{};
  info.struct_size = sizeof(info);
  dataset->check("info", api.info(dataset->context(), &info));
  EXPECT_EQ(info.num_classes, 3u);
  EXPECT_EQ(info.sample_dtype, DTB_DTYPE_U8);
  EXPECT_EQ(info.sample_shape[0], 3);
  EXPECT_EQ(info.sample_shape[1], 32);
  EXPECT_FLOAT_EQ(info.mean[1], 0.456f);
  EXPECT_FLOAT_EQ(info.std[2], 0.225f);
  dtb_split_info_t split{};
  split.struct_size = sizeof(split);
  dataset->check("split_info", api.split_info(dataset->context(), 1, &split));
  EXPECT_STREQ(split.name, "val");
  EXPECT_EQ(split.samples, 6u);
  std::vector<int32_t> labels;
  read(*dataset, 0, {0, 1, 2, 3, 4, 5}, &labels);
  EXPECT_EQ(labels, (std::vector<int32_t>{0, 0, 1, 1, 2, 2}));  // ant, bee, cat
  read(*dataset, 1, {5, 2}, &labels);
  EXPECT_EQ(labels, (std::vector<int32_t>{2, 1}));
}

TEST_F(JpegFolderDataset, ASampleDependsOnSeedIndexAndReadCountNotOnTheThread) {
  writeFolder({"a", "b"}, 4);
  auto first = open({{"seed", int64_t{7}}});
  auto second = open({{"seed", int64_t{7}}});
  auto otherSeed = open({{"seed", int64_t{8}}});
  // `first` reads sample 3 on this thread; `second` reads every sample from
  // four threads at once, in another order.
  const std::vector<uint8_t> once = read(*first, 0, {3});
  std::vector<std::vector<uint8_t>> parallel(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i : {uint64_t(t) + 4, uint64_t(t)}) parallel[i] = read(*second, 0, {i});
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(parallel[3], once);
  EXPECT_NE(read(*otherSeed, 0, {3}), once);
  // The second read of a sample (its next epoch) is another crop, the same in both.
  const std::vector<uint8_t> again = read(*first, 0, {3});
  EXPECT_NE(again, once);
  EXPECT_EQ(read(*second, 0, {3}), again);
}

TEST_F(JpegFolderDataset, EvalSamplesAreTheCentreCropEveryTime) {
  writeFolder({"a", "b"}, 2);
  auto dataset = open({{"size", int64_t{24}}});
  const std::vector<uint8_t> sample = read(*dataset, 1, {3}, nullptr, 24);
  EXPECT_EQ(read(*dataset, 1, {3}, nullptr, 24), sample);
  const std::string bytes = slurp(temp_ / "val" / "b" / "1.JPEG");
  const jf::Image image =
      jf::decodeJpeg(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "1.JPEG");
  std::vector<uint8_t> expected(3 * 24 * 24);
  jf::resampleCrop(image, jf::evalCenterCrop(image.width, image.height, 24), 24, false, expected.data());
  EXPECT_EQ(sample, expected);
  // Without augmentation the train split is cropped the same way.
  auto plain = open({{"size", int64_t{24}}, {"augment", false}});
  EXPECT_EQ(read(*plain, 0, {0}, nullptr, 24), read(*plain, 0, {0}, nullptr, 24));
}

TEST_F(JpegFolderDataset, PredecodedGivesTheSamplesCpuDecodingGives) {
  writeFolder({"a", "b", "c"}, 3, 1);  // gray, as the MNIST folders are
  auto cpu = open({{"decode", std::string("cpu")}, {"seed", int64_t{3}}});
  auto predecoded = open({{"decode", std::string("predecoded")}, {"seed", int64_t{3}}});
  const std::vector<uint64_t> all = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<int32_t> cpuLabels, predecodedLabels;
    EXPECT_EQ(read(*cpu, 0, all, &cpuLabels), read(*predecoded, 0, all, &predecodedLabels))
        << "epoch " << epoch;
    EXPECT_EQ(cpuLabels, predecodedLabels);
  }
  EXPECT_EQ(read(*cpu, 1, all), read(*predecoded, 1, all));
}

TEST_F(JpegFolderDataset, TheLoaderGivesTheSameBatchesWithZeroOrTwoThreads) {
  writeFolder({"a", "b"}, 5);
  auto batches = [&](int threads) {
    auto dataset = open({{"seed", int64_t{1}}});
    DataLoader loader(*dataset, {0, 4, threads, false}, DistributedSampler({10, 1, 1, 0, true, false, 5}));
    std::vector<float> all;
    for (uint64_t epoch = 0; epoch < 2; ++epoch) {
      loader.startEpoch(epoch);
      while (auto batch = loader.next()) all.insert(all.end(), batch->inputs.begin(), batch->inputs.end());
    }
    return all;
  };
  const std::vector<float> serial = batches(0);
  EXPECT_EQ(serial.size(), 2u * 10 * 3 * 32 * 32);
  EXPECT_EQ(batches(2), serial);
}

TEST_F(JpegFolderDataset, CorruptAndTruncatedFilesAreNamedWhenRead) {
  writeFolder({"a", "b"}, 2);
  std::ofstream(temp_ / "train" / "a" / "1.jpg", std::ios::binary) << "this is no JPEG at all";
  const std::string whole = slurp(temp_ / "train" / "b" / "0.jpg");
  std::ofstream(temp_ / "train" / "b" / "0.jpg", std::ios::binary) << whole.substr(0, whole.size() / 2);
  auto dataset = open();
  const std::string corrupt = readError(*dataset, 0, 1);
  EXPECT_NE(corrupt.find((temp_ / "train" / "a" / "1.jpg").string() + ": Not a JPEG file"), std::string::npos)
      << corrupt;
  const std::string truncated = readError(*dataset, 0, 2);
  EXPECT_NE(truncated.find((temp_ / "train" / "b" / "0.jpg").string() + ": Premature end of JPEG file"),
            std::string::npos)
      << truncated;
  // Pre-decoding meets the same file at open.
  const std::string atOpen = openError({{"decode", std::string("predecoded")}});
  EXPECT_NE(atOpen.find("1.jpg: Not a JPEG file"), std::string::npos) << atOpen;
}

TEST_F(JpegFolderDataset, AHeaderPastTheBoundIsRefusedBeforeDecoding) {
  writeFolder({"a"}, 1);
  writeJpeg(temp_ / "train" / "a" / "wide.jpg", pattern(20000, 1, 1, 0), 50);  // a few hundred bytes
  auto dataset = open();
  const std::string error = readError(*dataset, 0, 1);
  EXPECT_NE(error.find("wide.jpg: the header says 20000 x 1 pixels, more than the bound of 16384 x 16384"),
            std::string::npos)
      << error;
}

TEST_F(JpegFolderDataset, PredecodedPastItsBoundNamesTheFile) {
  for (int i = 0; i < 4; ++i)
    writeJpeg(temp_ / "train" / "a" / (std::to_string(i) + ".jpg"), pattern(400, 400, 3, i));
  writeJpeg(temp_ / "val" / "a" / "0.jpg", pattern(40, 40, 3, 9));
  // 480,000 bytes each: the third passes 1 MiB.
  const std::string error = openError(
      {{"decode", std::string("predecoded")}, {"max_predecoded_mb", int64_t{1}}}, DTB_STATUS_OUT_OF_MEMORY);
  EXPECT_NE(error.find("/train/a/2.jpg: decoding it takes the pre-decoded images past max_predecoded_mb = 1"),
            std::string::npos)
      << error;
  open({{"decode", std::string("predecoded")}, {"max_predecoded_mb", int64_t{2}}});
}

TEST_F(JpegFolderDataset, DamagedFoldersAreNamed) {
  EXPECT_NE(openError().find((temp_ / "train").string() + ": no such folder"), std::string::npos);
  std::filesystem::create_directories(temp_ / "train");
  EXPECT_NE(openError().find("train: no class folders"), std::string::npos);
  writeFolder({"a", "b"}, 1);
  std::filesystem::create_directories(temp_ / "train" / "c");
  EXPECT_NE(openError().find((temp_ / "train" / "c").string() + ": an empty class folder"),
            std::string::npos);
  std::filesystem::remove(temp_ / "train" / "c");
  std::ofstream(temp_ / "train" / "b" / "notes.txt") << "hi";
  EXPECT_NE(openError().find("notes.txt: not a .jpg or .jpeg file"), std::string::npos);
  std::filesystem::remove(temp_ / "train" / "b" / "notes.txt");
  writeJpeg(temp_ / "val" / "z" / "0.jpg", pattern(8, 8, 3, 0));
  EXPECT_NE(openError().find((temp_ / "val" / "z").string() + ": a class the train split does not have"),
            std::string::npos);
  std::filesystem::remove_all(temp_ / "val");
  EXPECT_NE(openError().find("has no val/ (or test/) folder beside train/"), std::string::npos);
  writeJpeg(temp_ / "test" / "a" / "0.jpg", pattern(8, 8, 3, 0));
  open();  // test/ serves as the eval split
}

// Without libnvjpeg or a GPU (this project's machines so far), a clear
// refusal; with them, nvJPEG's pixels within JPEG decoders' differences of
// libjpeg-turbo's.
TEST_F(JpegFolderDataset, NvjpegDecodesOnAGpuOrSaysWhatIsMissing) {
  writeFolder({"a", "b"}, 2);
  std::unique_ptr<PluginInstance> gpu;
  try {
    gpu = open({{"decode", std::string("nvjpeg")}});
  } catch (const PluginCallError& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("decode = \"nvjpeg\" needs libnvjpeg.so and a CUDA GPU: "),
              std::string::npos)
        << e.what();
    return;
  }
  auto cpu = open();
  const std::vector<uint8_t> a = read(*gpu, 1, {0, 1, 2, 3}), b = read(*cpu, 1, {0, 1, 2, 3});
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::abs(int{a[i]} - int{b[i]});
  EXPECT_LT(sum / a.size(), 2.0);
}

}  // namespace
}  // namespace dtb::core
