#include "folder_index.h"

#include <algorithm>
#include <cctype>

#include "dtbench/plugin.hpp"

namespace dtb::dataset::jpeg_folder {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& path, const std::string& why) {
  throw Error(DTB_STATUS_IO_ERROR, path.string() + ": " + why);
}

bool isJpegName(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg";
}

// The entries of `dir` (not recursive), sorted; `directories` picks folders
// or files. Stops past `bound` entries: the caller names the bound.
std::vector<fs::path> entries(const fs::path& dir, bool directories, uint64_t bound) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail(dir, "no such folder");
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.filename().string().starts_with(".")) continue;
    if (it->is_directory(ec) != directories) {
      if (directories) continue;  // a README beside the class folders is no class
      fail(p, "not a file; a class folder holds JPEG files only");
    }
    out.push_back(p);
    if (out.size() > bound) break;
  }
  if (ec) fail(dir, "cannot list: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> scanClasses(const fs::path& root) {
  const fs::path train = root / "train";
  std::vector<std::string> classes;
  for (const fs::path& dir : entries(train, true, kMaxClasses)) classes.push_back(dir.filename().string());
  if (classes.size() > kMaxClasses)
    fail(train, "more than " + std::to_string(kMaxClasses) + " class folders");
  if (classes.empty()) fail(train, "no class folders (expected train/<class>/<image>.jpg)");
  return classes;
}

SplitFiles scanSplit(const fs::path& root, const std::string& split, const std::vector<std::string>& classes,
                     uint64_t maxFiles) {
  SplitFiles out;
  out.name = split;
  const std::vector<fs::path> classDirs = entries(root / split, true, kMaxClasses);
  if (classDirs.size() > kMaxClasses)
    fail(root / split, "more than " + std::to_string(kMaxClasses) + " class folders");
  for (const fs::path& dir : classDirs) {
    const std::string name = dir.filename().string();
    const auto found = std::lower_bound(classes.begin(), classes.end(), name);
    if (found == classes.end() || *found != name) fail(dir, "a class the train split does not have");
    const auto label = static_cast<int32_t>(found - classes.begin());
    const std::vector<fs::path> files = entries(dir, false, maxFiles - out.files.size());
    if (files.empty()) fail(dir, "an empty class folder");
    if (out.files.size() + files.size() > maxFiles)
      fail(root / split, "more than " + std::to_string(maxFiles) + " files; is `path` right?");
    for (const fs::path& file : files) {
      if (!isJpegName(file)) fail(file, "not a .jpg or .jpeg file; a class folder holds JPEG files only");
      out.files.push_back(file);
      out.labels.push_back(label);
    }
  }
  if (out.files.empty()) fail(root / split, "no class folders");
  return out;
}

std::string evalSplitName(const fs::path& root) {
  std::error_code ec;
  if (fs::is_directory(root / "val", ec)) return "val";
  if (fs::is_directory(root / "test", ec)) return "test";
  fail(root, "has no val/ (or test/) folder beside train/");
}

}  // namespace dtb::dataset::jpeg_folder
