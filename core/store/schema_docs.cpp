#include "store/schema_docs.h"

#include <cctype>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "store/embedded_sql.h"
#include "train/step_phases.h"

namespace dtb::core {
namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "name(" or "name" -> "name"
std::string identifier(std::string w) {
  const size_t cut = w.find_first_of("(;");
  if (cut != std::string::npos) w.resize(cut);
  return w;
}

// The comment after `--` on a line, or "".
std::string trailingComment(const std::string& line) {
  const size_t at = line.find("--");
  return at == std::string::npos ? "" : trim(std::string_view(line).substr(at + 2));
}

// The first sentence of a comment block (a period before a space or the end).
std::string firstSentence(const std::vector<std::string>& block) {
  std::string text;
  for (const std::string& line : block) {
    if (line.empty()) break;  // a blank comment line ends the paragraph
    text += (text.empty() ? "" : " ") + line;
  }
  for (size_t at = text.find('.'); at != std::string::npos; at = text.find('.', at + 1)) {
    if (at + 1 == text.size() || text[at + 1] == ' ') return text.substr(0, at + 1);
  }
  return text;
}

size_t indentOf(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && text[n] == ' ') ++n;
  return n;
}

bool isNameChar(char c) {
  return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
         c == '_';
}

// One column's (or several columns') line of a comment block.
struct ColumnLine {
  std::vector<std::string> names;
  std::string meaning;
  size_t indent = 0;  // where the names begin: a line indented further goes on with the meaning
};

// "name  meaning" or "name, other  meaning": lower-case names, two spaces
// or more before the meaning. Anything else (a formula "S = a / b", a
// query "SELECT x FROM y") is none.
std::optional<ColumnLine> columnLine(std::string_view text) {
  ColumnLine line;
  line.indent = indentOf(text);
  size_t at = line.indent;
  for (;;) {
    const size_t begin = at;
    while (at < text.size() && isNameChar(text[at])) ++at;
    if (at == begin || std::isdigit(static_cast<unsigned char>(text[begin]))) return std::nullopt;
    line.names.emplace_back(text.substr(begin, at - begin));
    if (!text.substr(at).starts_with(", ")) break;
    at += 2;
  }
  if (!text.substr(at).starts_with("  ")) return std::nullopt;
  line.meaning = trim(text.substr(at));
  if (line.meaning.empty()) return std::nullopt;
  return line;
}

// The column lines of a comment block (each line's text after `--`): an
// indented "name  meaning", and the lines after it indented further than
// its name, which go on with its meaning.
std::vector<ColumnLine> columnLines(const std::vector<std::string>& comments) {
  std::vector<ColumnLine> out;
  bool open = false;  // the last line was the back's column line or its continuation
  for (const std::string& text : comments) {
    const size_t indent = indentOf(text);
    if (open && indent > out.back().indent && indent < text.size()) {
      out.back().meaning += " " + trim(text);
      continue;
    }
    open = false;
    if (indent < 2) continue;  // prose, not a list
    if (std::optional<ColumnLine> line = columnLine(text)) {
      out.push_back(std::move(*line));
      open = true;
    }
  }
  return out;
}

bool isConstraint(const std::string& word) {
  const std::string w = upper(word);
  return w == "PRIMARY" || w == "UNIQUE" || w == "FOREIGN" || w == "CHECK" || w == "CONSTRAINT";
}

}  // namespace

SchemaDocs parseSchemaDocs(const std::vector<std::string>& sqlTexts) {
  SchemaDocs docs;
  for (const std::string& sql : sqlTexts) {
    std::istringstream in(sql);
    std::vector<std::string> block;     // the comment lines just above, for the summary
    std::vector<std::string> comments;  // the same lines as written, for the column lines
    std::string table;                  // inside this CREATE TABLE's columns
    for (std::string raw; std::getline(in, raw);) {
      const std::string line = trim(raw);
      if (!table.empty()) {
        if (line.starts_with(")")) {
          table.clear();
          continue;
        }
        const std::vector<std::string> w = words(line);
        const std::string comment = trailingComment(line);
        if (!w.empty() && !w[0].starts_with("--") && !isConstraint(w[0]) && !comment.empty())
          docs.column[{table, identifier(w[0])}] = comment;
        continue;
      }
      if (line.starts_with("--")) {
        // An indented comment line (a formula, a list) ends the summary's paragraph.
        const std::string_view text = std::string_view(line).substr(2);
        block.push_back(text.starts_with("  ") ? "" : trim(text));
        comments.emplace_back(text);
        continue;
      }
      const std::vector<std::string> w = words(line);
      const bool creates =
          w.size() >= 3 && upper(w[0]) == "CREATE" && (upper(w[1]) == "TABLE" || upper(w[1]) == "VIEW");
      const bool adds =
          w.size() >= 6 && upper(w[0]) == "ALTER" && upper(w[3]) == "ADD" && upper(w[4]) == "COLUMN";
      std::string object;
      if (creates) object = identifier(w[w.size() >= 6 && upper(w[2]) == "IF" ? 5 : 2]);  // IF NOT EXISTS
      if (adds) object = identifier(w[2]);
      // The block's column lines document the object it stands above.
      std::optional<std::string> listed;  // what they say of the column an ALTER TABLE adds
      for (const ColumnLine& c : columnLines(comments)) {
        for (const std::string& name : c.names) {
          if (!object.empty()) docs.column[{object, name}] = c.meaning;
          if (adds && name == identifier(w[5])) listed = c.meaning;
        }
      }
      if (creates) {
        if (!block.empty()) docs.summary[object] = firstSentence(block);
        if (upper(w[1]) == "TABLE" && line.find(");") == std::string::npos) table = object;
      } else if (adds) {
        // Its trailing comment, else its column line, else the block's first sentence.
        const std::string comment = trailingComment(line);
        const std::string doc = !comment.empty() ? comment : listed ? *listed : firstSentence(block);
        if (!doc.empty()) docs.column[{object, identifier(w[5])}] = doc;
      }
      block.clear();
      comments.clear();
    }
  }
  return docs;
}

const SchemaDocs& schemaDocs() {
  static const SchemaDocs docs = [] {
    std::vector<std::string> texts;  // migrations in order, then the views
    for (const EmbeddedSql& m : schemaMigrations()) texts.emplace_back(m.sql);
    for (const EmbeddedSql& v : reportViews()) texts.emplace_back(v.sql);
    SchemaDocs parsed = parseSchemaDocs(texts);
    // The step's phases are documented where they are defined.
    for (const PhaseInfo& p : kPhases) {
      parsed.column[{"step", p.column}] = p.meaning;
      if (p.scope == PhaseScope::kPerEpoch)
        parsed.column[{"epoch", p.column}] =
            std::string(p.meaning) + "; the epoch's steps summed, mean over ranks";
    }
    return parsed;
  }();
  return docs;
}

std::string columnUnit(const std::string& c) {
  auto ends = [&](std::string_view suffix) { return c.ends_with(suffix); };
  if (ends("per_s")) return "samples/s";
  if (ends("_gbps")) return "GB/s";
  if (ends("_ms")) return "ms";
  if (ends("_us")) return "µs";
  if (ends("_s")) return "s";
  if (ends("_bytes") || c == "bytes" || c == "bytes_sent") return "bytes";
  if (ends("_mb")) return "MB";
  if (ends("_at")) return "UTC time";
  if (ends("_share") || ends("accuracy") || c == "efficiency" || ends("margin") || c == "spread" ||
      ends("margin_over_slowest") || c == "of_memcpy")
    return "fraction";
  if (c == "speedup" || c == "ratio") return "x";
  return "";
}

}  // namespace dtb::core
