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

std::string aligned(const QueryResult& r, bool markdown) {
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> width;
  for (const std::string& c : r.columns) width.push_back(markdown ? std::max<size_t>(3, c.size()) : c.size());
  for (const auto& row : r.rows) {
    std::vector<std::string> texts;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string t = sqlValueText(row[i], false);
      if (markdown) t = markdownCell(t);
      width[i] = std::max(width[i], t.size());
      texts.push_back(std::move(t));
    }
    cells.push_back(std::move(texts));
  }
  // Numbers right-aligned, as a reader compares them digit by digit.
  std::vector<bool> numeric(r.columns.size(), false);
  for (size_t i = 0; i < r.columns.size(); ++i) {
    numeric[i] = !r.rows.empty() && std::all_of(r.rows.begin(), r.rows.end(), [&](const auto& row) {
      return isNumber(row[i]) || std::holds_alternative<std::monostate>(row[i]);
    });
  }
  // Appends in place: a listing of 10,000 runs is 200,000 cells.
  std::string out;
  auto line = [&](const std::vector<std::string>& texts) {
    const size_t start = out.size();
    if (markdown) out += '|';
    for (size_t i = 0; i < texts.size(); ++i) {
      const size_t pad = width[i] - texts[i].size();
      if (markdown) {
        out += ' ';
      } else if (i) {
        out += "  ";
      }
      if (numeric[i]) out.append(pad, ' ');
      out += texts[i];
      if (!numeric[i]) out.append(pad, ' ');
      if (markdown) out += " |";
    }
    while (!markdown && out.size() > start && out.back() == ' ') out.pop_back();
    out += '\n';
  };
  size_t total = 0;
  for (size_t w : width) total += w + 3;
  out.reserve(total * (cells.size() + 2));
  line(r.columns);
  std::vector<std::string> rule;
  for (size_t i = 0; i < width.size(); ++i) {
    std::string dashes(width[i], '-');
    if (markdown && numeric[i]) dashes.back() = ':';
    rule.push_back(dashes);
  }
  line(rule);
  for (const auto& row : cells) line(row);
  if (!markdown)
    out += "(" + std::to_string(r.rows.size()) + " row" + (r.rows.size() == 1 ? "" : "s") + ")\n";
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

std::string formatResult(const QueryResult& r, ResultFormat format) {
  switch (format) {
    case ResultFormat::kTable:
      return aligned(r, false);
    case ResultFormat::kMarkdown:
      return aligned(r, true);
    case ResultFormat::kCsv: {
      std::string out;
      for (size_t i = 0; i < r.columns.size(); ++i) out += (i ? "," : "") + csvField(r.columns[i]);
      out += "\r\n";
      for (const auto& row : r.rows) {
        for (size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + csvField(sqlValueText(row[i], true));
        out += "\r\n";
      }
      return out;
    }
    case ResultFormat::kJson: {
      std::string out = "[";
      for (size_t r0 = 0; r0 < r.rows.size(); ++r0) {
        out += r0 ? ",\n {" : "\n {";
        for (size_t i = 0; i < r.columns.size(); ++i) {
          out += (i ? ", " : "") + jsonString(r.columns[i]) + ": " + jsonValue(r.rows[r0][i]);
        }
        out += "}";
      }
      return out + (r.rows.empty() ? "]\n" : "\n]\n");
    }
  }
  return "";
}

}  // namespace dtb::core
