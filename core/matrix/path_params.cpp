#include "matrix/path_params.h"

#include <array>
#include <system_error>

namespace dtb::core {

bool isPathParam(const ParamSpec& spec) {
  if (spec.type != DTB_PARAM_STRING) return false;
  static const std::array<std::string, 3> kWords = {"path", "dir", "file"};
  for (const std::string& word : kWords) {
    if (spec.name == word || spec.name.ends_with("_" + word)) return true;
  }
  return false;
}

std::string resolvePath(const std::filesystem::path& directory, const std::string& value) {
  const std::filesystem::path path(value);
  if (value.empty() || path.is_absolute()) return value;
  std::error_code error;
  const std::filesystem::path base = std::filesystem::absolute(directory, error);
  if (error) return value;  // no working directory: leave the path as the ranks would read it
  return (base / path).lexically_normal().string();
}

std::filesystem::path directoryOf(const std::string& matrixFile) {
  std::filesystem::path directory = std::filesystem::path(matrixFile).parent_path();
  return directory.empty() ? "." : directory;
}

std::optional<std::string> missingPathProblem(const std::string& key, const std::string& written,
                                              const std::string& resolved) {
  std::error_code error;
  if (resolved.empty() || std::filesystem::exists(resolved, error)) return std::nullopt;
  std::string text = "'" + key + "': " + written;
  if (written != resolved) text += " is " + resolved + ", which";
  return text +
         " does not exist here (a relative path is read from the matrix file's directory); every run "
         "that uses it on this machine will fail";
}

}  // namespace dtb::core
