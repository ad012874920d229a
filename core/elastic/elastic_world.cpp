#include "elastic/elastic_world.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace dtb::core {
namespace {

std::filesystem::path directoryOf(const std::filesystem::path& storeDir) { return storeDir / "elastic"; }

std::filesystem::path fileOf(const std::filesystem::path& storeDir, int generation) {
  return directoryOf(storeDir) / ("world-" + std::to_string(generation));
}

}  // namespace

int newestElasticGeneration(const std::filesystem::path& storeDir) {
  int newest = 0;
  while (std::filesystem::exists(fileOf(storeDir, newest + 1))) ++newest;
  return newest;
}

int ElasticWorld::rankOf(int slot) const {
  const auto at = std::find(slots.begin(), slots.end(), slot);
  return at == slots.end() ? -1 : static_cast<int>(at - slots.begin());
}

void writeElasticWorld(const std::filesystem::path& storeDir, const ElasticWorld& world) {
  const std::filesystem::path file = fileOf(storeDir, world.generation);
  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  const std::filesystem::path partial = file.string() + ".partial";
  {
    std::ofstream out(partial);
    out << "generation " << world.generation << "\nrollback " << (world.rollback ? 1 : 0) << "\nslots";
    for (const int slot : world.slots) out << ' ' << slot;
    out << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write " + partial.string());
  }
  std::filesystem::rename(partial, file, error);
  if (error) throw std::runtime_error("cannot write " + file.string() + ": " + error.message());
}

std::optional<ElasticWorld> readElasticWorld(const std::filesystem::path& storeDir, int generation) {
  const std::filesystem::path file = fileOf(storeDir, generation);
  std::ifstream in(file);
  if (!in) return std::nullopt;
  ElasticWorld world;
  std::string word, slots;
  int rollback = 0;
  in >> word >> world.generation;
  const bool header = word == "generation";
  in >> word >> rollback;
  std::getline(in >> word, slots);
  std::istringstream list(slots);
  for (int slot = 0; list >> slot;) world.slots.push_back(slot);
  if (!header || word != "slots" || world.generation != generation || world.slots.empty())
    throw std::runtime_error(file.string() + " is not an elastic world of generation " +
                             std::to_string(generation));
  world.rollback = rollback != 0;
  return world;
}

ElasticWorld waitForElasticWorld(const std::filesystem::path& storeDir, int from, double timeoutS, int slot) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
  while (newestElasticGeneration(storeDir) < from) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::ostringstream text;
      text << "no new elastic world (generation " << from << ") came from the coordinator within " << timeoutS
           << " s";
      throw std::runtime_error(text.str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int newest = newestElasticGeneration(storeDir);
  std::optional<ElasticWorld> world = readElasticWorld(storeDir, newest);
  if (!world || world->rankOf(slot) < 0)
    throw LeftOutOfWorld("worker " + std::to_string(slot) + " is not in the elastic world of generation " +
                         std::to_string(newest) + ": the coordinator left it out");
  return *world;
}

std::string elasticPrefix(const std::string& runPrefix, int generation) {
  return generation == 0 ? runPrefix : runPrefix + "-elastic" + std::to_string(generation);
}

}  // namespace dtb::core
