// Plugin parameters that name a file or directory, and where such a value
// written in a matrix points. The plugin ABI has no path type, so the
// parameter's name is the contract: a STRING parameter named `path`, `dir`
// or `file`, or ending in `_path`, `_dir` or `_file` (the datasets' `path`).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "plugin/param_spec.h"

namespace dtb::core {

bool isPathParam(const ParamSpec& spec);

// `value` read from `directory`: a relative path joined to it (a matrix
// file's directory, as make and cargo read theirs; the working directory for
// --set) and made absolute, so that every rank, wherever it starts, opens the
// same place; an absolute path or "" stays as it is.
std::string resolvePath(const std::filesystem::path& directory, const std::string& value);

// The directory a matrix file's relative paths are read from.
std::filesystem::path directoryOf(const std::string& matrixFile);

// "'dataset.idx.path': data/mnist is /x/data/mnist, which does not exist ..."
// for a resolved path that is not there, or nullopt.
std::optional<std::string> missingPathProblem(const std::string& key, const std::string& written,
                                              const std::string& resolved);

}  // namespace dtb::core
