#include "store/result_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace dtb::core {
namespace {

bool isNumber(const SqlValue& v) {
  return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v);
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string jsonValue(const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "null";
  if (const auto* d = std::get_if<double>(&v); d && !std::isfinite(*d)) return "null";
  if (isNumber(v)) return sqlValueText(v, true);
  return jsonString(std::get<std::string>(v));
}

std::string markdownCell(std::string text) {
  std::string out;
  for (char c : text) out += c == '|' ? "\\|" : c == '\n' ? " " : std::string(1, c);
  return out;
}

}  // namespace

std::optional<ResultFormat> parseResultFormat(std::string_view text) {
  if (text == "table") return ResultFormat::kTable;
  if (text == "csv") return ResultFormat::kCsv;
  if (text == "json") return ResultFormat::kJson;
  if (text == "markdown") return ResultFormat::kMarkdown;
  return std::nullopt;
}

std::string sqlValueText(const SqlValue& value, bool fullPrecision) {
  if (std::holds_alternative<std::monostate>(value)) return "";
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) {
    char text[40];
    if (fullPrecision) {
      // The shortest text that reads back as the same double: 0.4, not
      // 0.40000000000000002, and still exact.
      const auto [end, error] = std::to_chars(text, text + sizeof(text), *d);
      return error == std::errc() ? std::string(text, end) : std::string("nan");
    }
    // printf's %.6g, without printf's cost (a listing is 200,000 cells).
    const auto [end, error] = std::to_chars(text, text + sizeof(text), *d, std::chars_format::general, 6);
    return error == std::errc() ? std::string(text, end) : std::string("nan");
  }
  return std::get<std::string>(value);
}

ResultWriter::ResultWriter(ResultFormat format, Sink sink) : format_(format), sink_(std::move(sink)) {}

void ResultWriter::columns(std::vector<std::string> names) {
  columns_ = std::move(names);
  if (format_ == ResultFormat::kCsv) {
    std::string out;
    for (size_t i = 0; i < columns_.size(); ++i) out += (i ? "," : "") + csvField(columns_[i]);
    sink_(out + "\r\n");
  } else if (format_ == ResultFormat::kJson) {
    sink_("[");
  }
}

void ResultWriter::row(std::vector<SqlValue> values) {
  switch (format_) {
    case ResultFormat::kCsv: {
      std::string out;
      for (size_t i = 0; i < values.size(); ++i)
        out += (i ? "," : "") + csvField(sqlValueText(values[i], true));
      sink_(out + "\r\n");
      break;
    }
    case ResultFormat::kJson: {
      std::string out = rows_ ? ",\n {" : "\n {";
      for (size_t i = 0; i < columns_.size(); ++i) {
        out += (i ? ", " : "") + jsonString(columns_[i]) + ": " + jsonValue(values[i]);
      }
      sink_(out + "}");
      break;
    }
    case ResultFormat::kTable:
    case ResultFormat::kMarkdown:
      if (!widthsFixed_) {
        held_.push_back(std::move(values));
        if (held_.size() >= kRowsForWidths) fixWidths();
      } else {
        line(cellTexts(values));
      }
      break;
  }
  ++rows_;
}

void ResultWriter::finish() {
  switch (format_) {
    case ResultFormat::kCsv:
      break;
    case ResultFormat::kJson:
      sink_(rows_ == 0 ? "]\n" : "\n]\n");
      break;
    case ResultFormat::kTable:
    case ResultFormat::kMarkdown:
      if (!widthsFixed_) fixWidths();
      if (format_ == ResultFormat::kTable) {
        sink_("(" + std::to_string(rows_) + " row" + (rows_ == 1 ? "" : "s") + ")\n");
      }
      break;
  }
}

std::vector<std::string> ResultWriter::cellTexts(const std::vector<SqlValue>& values) const {
  std::vector<std::string> texts;
  for (const SqlValue& v : values) {
    std::string t = sqlValueText(v, false);
    texts.push_back(format_ == ResultFormat::kMarkdown ? markdownCell(std::move(t)) : std::move(t));
  }
  return texts;
}

// Column widths and alignment from the rows held so far; then the header,
// the rule and those rows. Later rows keep these widths (a wider cell pushes
// its line out rather than every line being held back).
void ResultWriter::fixWidths() {
  const bool markdown = format_ == ResultFormat::kMarkdown;
  std::vector<std::vector<std::string>> texts;
  for (const std::string& c : columns_) width_.push_back(markdown ? std::max<size_t>(3, c.size()) : c.size());
  for (const auto& values : held_) {
    texts.push_back(cellTexts(values));
    for (size_t i = 0; i < texts.back().size(); ++i) width_[i] = std::max(width_[i], texts.back()[i].size());
  }
  // Numbers right-aligned, as a reader compares them digit by digit.
  numeric_.assign(columns_.size(), false);
  for (size_t i = 0; i < columns_.size(); ++i) {
    numeric_[i] = !held_.empty() && std::all_of(held_.begin(), held_.end(), [&](const auto& values) {
      return isNumber(values[i]) || std::holds_alternative<std::monostate>(values[i]);
    });
  }
  widthsFixed_ = true;
  line(columns_);
  std::vector<std::string> rule;
  for (size_t i = 0; i < width_.size(); ++i) {
    std::string dashes(width_[i], '-');
    if (markdown && numeric_[i]) dashes.back() = ':';
    rule.push_back(dashes);
  }
  line(rule);
  for (const auto& row : texts) line(row);
  held_.clear();
}

void ResultWriter::line(const std::vector<std::string>& texts) {
  const bool markdown = format_ == ResultFormat::kMarkdown;
  std::string out;
  if (markdown) out += '|';
  for (size_t i = 0; i < texts.size(); ++i) {
    const size_t pad = width_[i] > texts[i].size() ? width_[i] - texts[i].size() : 0;
    if (markdown) {
      out += ' ';
    } else if (i) {
      out += "  ";
    }
    if (numeric_[i]) out.append(pad, ' ');
    out += texts[i];
    if (!numeric_[i]) out.append(pad, ' ');
    if (markdown) out += " |";
  }
  while (!markdown && !out.empty() && out.back() == ' ') out.pop_back();
  sink_(out + '\n');
}

std::string formatResult(const QueryResult& r, ResultFormat format) {
  std::string out;
  ResultWriter writer(format, [&out](std::string_view text) { out += text; });
  writer.columns(r.columns);
  for (const auto& row : r.rows) writer.row(row);
  writer.finish();
  return out;
}

}  // namespace dtb::core
