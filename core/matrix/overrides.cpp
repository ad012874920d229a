#include "matrix/overrides.h"

#include "plugin/plugin_kind.h"

namespace dtb::core {
namespace {

// VALUE as the one node of a document whose source is `origin`.
toml::table parseValue(const std::string& value, const std::string& origin) {
  try {
    toml::table parsed = toml::parse("v = " + value, origin);
    if (parsed.size() == 1 && parsed.contains("v")) return parsed;
  } catch (const toml::parse_error&) {
    // not a TOML value: a bare word, below
  }
  std::string quoted = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return toml::parse("v = " + quoted + "\"", origin);
}

// The table `name` of `parent`, made if missing; null when `name` is there
// but is no table (the parser reports that shape).
toml::table* tableIn(toml::table& parent, const std::string& name) {
  if (!parent.contains(name)) parent.insert(name, toml::table{});
  return parent.get_as<toml::table>(name);
}

}  // namespace

void applyOverrides(toml::table& document, const std::vector<std::string>& sets,
                    std::vector<Problem>& problems) {
  for (const std::string& set : sets) {
    const std::string origin = kSetOrigin + set;
    auto fail = [&](const std::string& message) { problems.push_back({{origin, 0, 0}, message}); };
    const size_t equals = set.find('=');
    if (equals == std::string::npos || equals == 0) {
      fail("--set takes KEY=VALUE, e.g. --set epochs=1 or --set strategy.zero.stage=2");
      continue;
    }
    const std::string key = set.substr(0, equals);
    std::vector<std::string> parts;
    for (size_t from = 0;;) {
      const size_t dot = key.find('.', from);
      parts.push_back(key.substr(from, dot - from));
      if (dot == std::string::npos) break;
      from = dot + 1;
    }
    toml::table* table = nullptr;
    if (parts.size() == 1) {
      table = tableIn(document, key == "repeats" ? "matrix" : "run");
    } else if (parts.size() == 2 && parts[0] == "fault" && !parts[1].empty()) {
      table = tableIn(document, "fault");  // fault.kind: the [fault] table's keys are run keys
    } else if (parts.size() == 3 && parseKind(parts[0]) && !parts[1].empty() && !parts[2].empty()) {
      if (toml::table* kind = tableIn(document, parts[0])) table = tableIn(*kind, parts[1]);
    } else {
      fail("unknown key '" + key +
           "': --set takes a [run] key (epochs), repeats, fault.KEY (fault.kind), or KIND.NAME.PARAM of a "
           "plugin (strategy.zero.stage)");
      continue;
    }
    if (!table) continue;  // a table of the file that is no table: the parser says so
    toml::table parsed = parseValue(set.substr(equals + 1), origin);
    table->insert_or_assign(parts.back(), std::move(*parsed.get("v")));
  }
}

}  // namespace dtb::core
