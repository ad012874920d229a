// Query results as text: an aligned table, CSV (RFC 4180), JSON (an array of
// objects) or a Markdown table.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/read_only_query.h"

namespace dtb::core {

enum class ResultFormat { kTable, kCsv, kJson, kMarkdown };

std::optional<ResultFormat> parseResultFormat(std::string_view text);
std::string formatResult(const QueryResult& result, ResultFormat format);

// Writes a result as its rows come, so a query of millions of rows needs no
// memory for them: CSV and JSON row by row; a table or Markdown holds its
// first kRowsForWidths rows to size the columns, then streams.
class ResultWriter {
 public:
  using Sink = std::function<void(std::string_view)>;
  static constexpr size_t kRowsForWidths = 1000;

  ResultWriter(ResultFormat format, Sink sink);
  void columns(std::vector<std::string> names);
  void row(std::vector<SqlValue> values);
  void finish();  // after the last row

 private:
  std::vector<std::string> cellTexts(const std::vector<SqlValue>& values) const;
  void fixWidths();
  void line(const std::vector<std::string>& texts);

  ResultFormat format_;
  Sink sink_;
  std::vector<std::string> columns_;
  size_t rows_ = 0;
  std::vector<std::vector<SqlValue>> held_;  // a table's first rows, until the widths are fixed
  bool widthsFixed_ = false;
  std::vector<size_t> width_;
  std::vector<bool> numeric_;
};

// A value as text: NULL is "", reals with up to 6 significant digits in
// tables and full precision (%.17g) in CSV and JSON.
std::string sqlValueText(const SqlValue& value, bool fullPrecision);

}  // namespace dtb::core
