// Query results as text: an aligned table, CSV (RFC 4180), JSON (an array of
// objects) or a Markdown table.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "store/read_only_query.h"

namespace dtb::core {

enum class ResultFormat { kTable, kCsv, kJson, kMarkdown };

std::optional<ResultFormat> parseResultFormat(std::string_view text);
std::string formatResult(const QueryResult& result, ResultFormat format);

// A value as text: NULL is "", reals with up to 6 significant digits in
// tables and full precision (%.17g) in CSV and JSON.
std::string sqlValueText(const SqlValue& value, bool fullPrecision);

}  // namespace dtb::core
