#include "cli/sbatch_script.h"

#include <stdexcept>

namespace dtb::cli {
namespace {

// One shell word: plain when it is safe as it is, else in single quotes.
std::string quoted(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-./=:,+@%") == std::string::npos;
  if (plain) return word;
  std::string text = "'";
  for (char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

// One argument of an #SBATCH line, as sbatch splits those lines: at blanks
// outside quotes, '\' escaping the next character, an unquoted '#' starting
// a comment. Double quotes with '\' before '\' and '"' keep spaces, quotes and
// '#' in a path; a line break cannot be kept at all.
std::string sbatchWord(const std::string& word) {
  if (word.find('\n') != std::string::npos)
    throw std::invalid_argument("'" + word + "' has a line break, which an #SBATCH line cannot hold");
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-./=:,+@%") == std::string::npos;
  if (plain) return word;
  std::string text = "\"";
  for (char c : word) {
    if (c == '\\' || c == '"') text += '\\';
    text += c;
  }
  return text + "\"";
}

// A job name Slurm shows whole: no blanks.
std::string jobName(std::string name) {
  for (char& c : name) {
    if (c == ' ' || c == '\t' || c == '\n') c = '_';
  }
  return name.empty() ? "dtbench" : name;
}

}  // namespace

std::string sbatchScript(const SbatchRequest& r) {
  std::string text =
      "#!/bin/bash\n"
      "# Written by dtbench run --sbatch: submit it with `sbatch THIS_FILE`. Every cell's\n"
      "# ranks start as tasks of this job (launcher = \"srun\"); the results go to the\n"
      "# --db below, which every node must see, as must dtbench and the data.\n";
  text += "#SBATCH --job-name=" + jobName(r.jobName) + "\n";
  text += "#SBATCH --ntasks=" + std::to_string(r.ntasks) + "\n";
  if (r.nodes > 0) text += "#SBATCH --nodes=" + std::to_string(r.nodes) + "\n";
  text += "#SBATCH --output=" + sbatchWord(r.output) + "\n";
  text += "set -euo pipefail\n";
  text += "cd " + quoted(r.workDir) + "\n";
  std::string line = "exec";
  for (const std::string& word : r.command) line += " " + quoted(word);
  return text + line + "\n";
}

}  // namespace dtb::cli
