#include "protocol/run_spec.h"

#include <toml++/toml.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace dtb::core {
namespace {

void put(toml::table& table, const std::string& key, const ParamValue& value) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          toml::array array;
          for (int64_t x : v) array.push_back(x);
          table.insert_or_assign(key, std::move(array));
        } else {
          table.insert_or_assign(key, v);
        }
      },
      value);
}

ParamValue get(const toml::node& node) {
  if (auto v = node.value_exact<bool>()) return *v;
  if (auto v = node.value_exact<int64_t>()) return *v;
  if (auto v = node.value_exact<double>()) return *v;
  if (auto v = node.value_exact<std::string>()) return *v;
  std::vector<int64_t> list;
  if (const toml::array* array = node.as_array()) {
    for (const toml::node& x : *array) list.push_back(x.value_or<int64_t>(0));
  }
  return list;
}

}  // namespace

int threadsPerRank(const Cell& cell) {
  const int64_t threads = cell.integer("threads_per_worker");
  if (threads > 0) return static_cast<int>(threads);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / static_cast<int>(cell.integer("world_size")));
}

void RunSpec::write(const std::filesystem::path& file) const {
  toml::table run{{"run_id", runId},
                  {"world", world},
                  {"store_dir", storeDir},
                  {"prefix", prefix},
                  {"trace_dir", traceDir},
                  {"checkpoint_dir", checkpointDir},
                  {"attempt", attempt},
                  {"resume_step", resumeStep},
                  {"started_unix_ns", startedUnixNs},
                  {"cell_index", cell.index}};
  toml::array dirs;
  for (const std::string& d : pluginDirs) dirs.push_back(d);
  run.insert("plugin_dirs", std::move(dirs));
  toml::table values;
  for (const auto& [key, value] : cell.values) put(values, key, value);
  toml::table root{{"run", std::move(run)}, {"cell", std::move(values)}};
  if (sweep) root.insert("sweep", *sweep);
  std::ofstream out(file);
  out << root << "\n";
  if (!out) throw std::runtime_error(file.string() + ": cannot write the run spec");
}

double RunSpec::runSeconds() const {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() -
                             startedUnixNs) /
         1e9;
}

double RunSpec::secondsAt(std::chrono::system_clock::time_point at) const {
  return static_cast<double>(
             std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count() -
             startedUnixNs) /
         1e9;
}

RunSpec RunSpec::read(const std::filesystem::path& file) {
  try {
    toml::table root = toml::parse_file(file.string());
    RunSpec spec;
    const toml::table* run = root["run"].as_table();
    const toml::table* cell = root["cell"].as_table();
    if (!run || !cell) throw std::runtime_error("missing [run] or [cell]");
    spec.runId = (*run)["run_id"].value_or<int64_t>(0);
    spec.world = static_cast<int>((*run)["world"].value_or<int64_t>(1));
    spec.storeDir = (*run)["store_dir"].value_or<std::string>("");
    spec.prefix = (*run)["prefix"].value_or<std::string>("");
    spec.traceDir = (*run)["trace_dir"].value_or<std::string>("");
    spec.checkpointDir = (*run)["checkpoint_dir"].value_or<std::string>("");
    spec.attempt = static_cast<int>((*run)["attempt"].value_or<int64_t>(0));
    spec.resumeStep = (*run)["resume_step"].value_or<int64_t>(-1);
    spec.startedUnixNs = (*run)["started_unix_ns"].value_or<int64_t>(0);
    spec.cell.index = static_cast<int>((*run)["cell_index"].value_or<int64_t>(0));
    if (const toml::array* dirs = (*run)["plugin_dirs"].as_array()) {
      for (const toml::node& d : *dirs) spec.pluginDirs.push_back(d.value_or<std::string>(""));
    }
    for (const auto& [key, node] : *cell) spec.cell.values[std::string(key.str())] = get(node);
    if (const toml::table* sweep = root["sweep"].as_table()) spec.sweep = *sweep;
    return spec;
  } catch (const toml::parse_error& e) {
    throw std::runtime_error(file.string() + ": " + std::string(e.description()));
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

}  // namespace dtb::core
