#include "cli/foreign_flags.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>

#include "matrix/key_hints.h"
#include "matrix/run_schema.h"

namespace dtb::cli {
namespace {

// Launcher flags whose meaning is a run key: the key, and how they differ.
const std::map<std::string, std::pair<std::string, std::string>>& launcherFlags() {
  const std::string ranks =
      "dtbench's world_size is the total number of ranks over every host (torchrun's nnodes x "
      "nproc_per_node)";
  static const std::map<std::string, std::pair<std::string, std::string>> flags = {
      {"np", {"world_size", ranks}},
      {"n", {"world_size", ranks}},
      {"nproc_per_node", {"world_size", ranks}},
      {"nnodes", {"world_size", ranks}},
      {"num_gpus", {"world_size", ranks}},
      {"num_nodes", {"world_size", ranks}},
      {"H", {"hostfile", "a file of \"HOST slots=N\" lines, Open MPI's format, with launcher = \"mpirun\""}},
      {"hostfile", {"hostfile", "Open MPI's format, with launcher = \"mpirun\""}},
      {"hosts", {"hostfile", "a file of \"HOST slots=N\" lines, with launcher = \"mpirun\""}},
  };
  return flags;
}

// "--nproc-per-node=2" -> {"nproc_per_node", "2"}; "-np" -> {"np", ""}.
std::pair<std::string, std::string> split(const std::string& flag) {
  std::string name = flag.substr(flag.find_first_not_of('-'));
  std::string value;
  if (const size_t eq = name.find('='); eq != std::string::npos) {
    value = name.substr(eq + 1);
    name.resize(eq);
  }
  std::replace(name.begin(), name.end(), '-', '_');
  return {name, value};
}

// A word that names the matrix rather than a flag's value.
bool looksLikeMatrix(const std::string& word) {
  std::error_code ec;
  return word.ends_with(".toml") || std::filesystem::is_regular_file(word, ec);
}

}  // namespace

std::string foreignFlagsError(const std::string& command, const std::vector<std::string>& given,
                              const std::string& positional) {
  // "--", which ends the options (`dtbench run -- m.toml`), is no extra.
  std::vector<std::string> extras;
  std::copy_if(given.begin(), given.end(), std::back_inserter(extras),
               [](const std::string& e) { return e != "--"; });
  if (extras.empty()) return "";
  // The first flag decides the advice; a bare word is a second file.
  const auto flag = std::find_if(extras.begin(), extras.end(), [](const std::string& e) {
    return e.size() > 1 && e.front() == '-' && e.find_first_not_of('-') != std::string::npos;
  });
  if (flag == extras.end()) {
    return "dtbench " + command + ": unexpected argument '" + extras.front() + "' (one matrix file; " +
           "change its keys with --set KEY=VALUE)";
  }
  auto [name, value] = split(*flag);
  // Its value: after `--backend mpi m.toml` CLI11 took "mpi" for the matrix
  // file and left m.toml over; after `m.toml --epochs 3` it is the next word.
  const bool nextIsWord = flag + 1 != extras.end() && !(flag + 1)->empty() && (flag + 1)->front() != '-';
  if (value.empty() && nextIsWord && !looksLikeMatrix(*(flag + 1))) value = *(flag + 1);
  if (value.empty() && !positional.empty() && !looksLikeMatrix(positional)) value = positional;
  const std::string shown = value.empty() ? "N" : value;
  const std::string start = "dtbench " + command + ": unknown option '" + *flag + "'";
  if (const auto known = launcherFlags().find(name); known != launcherFlags().end()) {
    return start + ": " + known->second.second + "; give it as the matrix key: --set " + known->second.first +
           "=" + shown;
  }
  if (core::findRunKey(name) != nullptr) {
    return start + ": '" + name + "' is a matrix key here: --set " + name + "=" + shown;
  }
  const std::string hint = core::unknownKeyHint(name, core::runSchema());
  if (!hint.empty()) return start + hint + "; matrix keys change with --set KEY=VALUE";
  return start + " (`dtbench " + command +
         " --help` lists the options; matrix keys change with --set KEY=VALUE)";
}

}  // namespace dtb::cli
