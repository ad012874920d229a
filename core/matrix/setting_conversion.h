// A setting of a matrix (its TOML value, in the file or from --set) turned
// into values of the type its key declares: one value, or an axis. Every
// problem is reported at the element it is about; paths a plugin reads are
// resolved against the file's directory (path_params.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "matrix/column.h"
#include "matrix/matrix_file.h"

namespace dtb::core {

class SettingConverter {
 public:
  SettingConverter(const std::string& matrixPath, std::vector<Problem>& problems,
                   std::vector<Problem>& warnings)
      : path_(matrixPath), problems_(problems), warnings_(warnings) {}

  // `raw` as `spec`'s type under the name `key`; an array is an axis when
  // `allowAxis` (else refused). nullopt, with its problems reported, when
  // any element is not of the type or out of range.
  std::optional<Column> convert(const RawSetting& raw, const ParamSpec& spec, const std::string& key,
                                bool allowAxis);

  // A path a cell reads that is not on this machine: a warning, not an
  // error, for the data may be only on the hosts that run it.
  void checkPathsExist(const Column& column, const RawSetting& raw);

  // A setting from the command line (--set), not from the file.
  bool fromCommandLine(const SourceLocation& where) const { return where.file != path_; }

 private:
  std::optional<ParamValue> wholeNumber(const ParamSpec& spec, const toml::node& node,
                                        const std::string& key);
  void resolvePaths(Column& column, const RawSetting& raw) const;
  void fail(SourceLocation where, std::string message) {
    problems_.push_back({std::move(where), std::move(message)});
  }

  std::string path_;
  std::vector<Problem>& problems_;
  std::vector<Problem>& warnings_;
};

}  // namespace dtb::core
