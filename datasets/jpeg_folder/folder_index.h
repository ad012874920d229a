// The files of an ImageNet-layout folder: <root>/<split>/<class>/<image>.jpg.
// Classes are the train split's folder names in sorted order (torchvision's
// ImageFolder); files are sorted by name within a class, so sample i is the
// same file on every rank and every run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dtb::dataset::jpeg_folder {

struct SplitFiles {
  std::string name;  // "train", "val" or "test"
  std::vector<std::filesystem::path> files;
  std::vector<int32_t> labels;
};

// Bounds on a scan: a wrong `path` (a home directory, a mount of millions of
// files) is refused with a message, not indexed for an hour.
constexpr uint64_t kMaxFiles = uint64_t{1} << 22;  // 4.2 M; ImageNet-1k has 1.33 M
constexpr uint32_t kMaxClasses = 100000;

// The class folders of `root`/train, sorted. Throws dtb::Error (IO_ERROR)
// naming the folder when it is missing or has none.
std::vector<std::string> scanClasses(const std::filesystem::path& root);

// The files of `root`/`split` labelled by `classes`. A class folder there
// that the train split lacks, an empty class folder, a file without a JPEG
// extension (.jpg, .jpeg, any case; names starting with '.' are skipped) or
// more than `maxFiles` files in all is an IO_ERROR naming the path.
SplitFiles scanSplit(const std::filesystem::path& root, const std::string& split,
                     const std::vector<std::string>& classes, uint64_t maxFiles = kMaxFiles);

// "val" when `root`/val exists, else "test" when that does; throws otherwise.
std::string evalSplitName(const std::filesystem::path& root);

}  // namespace dtb::dataset::jpeg_folder
