// A matrix file, parsed: the TOML document plus where each part of it is.
// What the parts mean is the planner's business (planner.h).
//
//   [experiment]  name, description
//   [run]         run keys (run_schema.h); an array makes an axis
//   [matrix]      zip, exclude, include, repeats
//   [strategy.<name>], [backend.<name>], [model.<name>], [dataset.<name>]
//                 parameters of that plugin, applied to cells that use it
#pragma once

#include <toml++/toml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "matrix/problem.h"
#include "plugin/plugin_kind.h"

namespace dtb::core {

// One key = value of [run] or of a plugin table.
struct RawSetting {
  std::string key;         // "world_size", or the plugin parameter's name
  const toml::node* node;  // owned by MatrixFile::document
  SourceLocation where;
};

struct RawPluginTable {
  PluginKind kind;
  std::string name;  // the plugin's name
  std::vector<RawSetting> settings;
  SourceLocation where;
};

// A table of `exclude` or `include`: key = value or [values].
struct RawRule {
  std::vector<RawSetting> match;
  SourceLocation where;
};

struct RawZip {
  std::vector<std::string> keys;
  SourceLocation where;
};

struct MatrixFile {
  std::string path;
  std::string text;  // the file as written, stored with the experiment
  toml::table document;
  std::string name;
  std::string description;
  std::optional<RawSetting> repeats;
  std::vector<RawSetting> run;
  std::vector<RawPluginTable> plugins;
  std::vector<RawZip> zips;
  std::vector<RawRule> excludes;
  std::vector<RawRule> includes;
  // What is wrong with the file's structure (unknown tables or keys, wrong
  // shapes): the planner reports these with its own, every problem at once.
  std::vector<Problem> problems;
};

// Parses `text` (read from `path`), with `sets` (--set KEY=VALUE,
// overrides.h) written over it. Throws MatrixError only for what stops the
// reading (TOML syntax, nesting too deep, a file that is not a regular file
// of at most kMaxTomlFileBytes); the structural problems (unknown tables or
// keys of [experiment]/[matrix], wrong shapes) go in `problems`, and the
// planner checks the meaning of [run] keys and reports them all together.
MatrixFile parseMatrix(const std::string& path, std::string text, const std::vector<std::string>& sets = {});
MatrixFile readMatrixFile(const std::filesystem::path& path, const std::vector<std::string>& sets = {});

// Where `node` of `file` is; a node from the command line (--set) is
// located by its option alone, with no line.
SourceLocation locate(const std::string& file, const toml::node& node);

}  // namespace dtb::core
