#include "launch/remote_shell.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dtb::core {
namespace {

// 'word', with each ' written as '\'' : safe in any POSIX shell.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::vector<HostSlots> readHostfile(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::invalid_argument("hostfile " + file.string() + ": cannot be read");
  std::vector<HostSlots> hosts;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    HostSlots entry;
    if (!(words >> entry.host)) continue;
    std::string word;
    while (words >> word) {
      if (!word.starts_with("slots=")) continue;  // max_slots and the like bound nothing here
      const char* end = word.data() + word.size();
      const auto [stop, error] = std::from_chars(word.data() + 6, end, entry.slots);
      if (error != std::errc() || stop != end || entry.slots < 1)
        throw std::invalid_argument("hostfile " + file.string() + ":" + std::to_string(number) + ": '" +
                                    word + "' is not a number of slots (1 or more)");
    }
    // A host named twice is one host with both lines' slots, as Open MPI reads it.
    const auto known =
        std::find_if(hosts.begin(), hosts.end(), [&](const HostSlots& h) { return h.host == entry.host; });
    if (known != hosts.end()) {
      known->slots += entry.slots;
    } else {
      hosts.push_back(entry);
    }
  }
  if (hosts.empty()) throw std::invalid_argument("hostfile " + file.string() + ": no host in it");
  return hosts;
}

SlotPlace placeSlot(const std::vector<HostSlots>& hosts, int slot, int world) {
  int capacity = 0;
  for (const HostSlots& h : hosts) capacity += h.slots;
  // The host of each slot: fill in order, then around again.
  auto hostOf = [&](int s) {
    int at = s % capacity;
    for (size_t i = 0; i < hosts.size(); ++i) {
      if (at < hosts[i].slots) return i;
      at -= hosts[i].slots;
    }
    return size_t{0};
  };
  const size_t mine = hostOf(slot);
  SlotPlace place{hosts[mine].host, 0, 0};
  for (int s = 0; s < std::max(world, slot + 1); ++s) {
    if (hostOf(s) != mine) continue;
    if (s < slot) ++place.localRank;
    if (s < world) ++place.localSize;
  }
  place.localSize = std::max(place.localSize, place.localRank + 1);
  return place;
}

std::string findOnPath(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), X_OK) == 0) return program;
    throw std::invalid_argument("the remote shell '" + program + "' cannot be run (launcher_args)");
  }
  const char* path = std::getenv("PATH");
  std::istringstream directories(path ? path : "/usr/bin:/bin");
  std::string directory;
  while (std::getline(directories, directory, ':')) {
    std::string candidate = (directory.empty() ? "." : directory) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  throw std::invalid_argument("the remote shell '" + program +
                              "' is not on PATH (install it, or name another with launcher_args)");
}

std::vector<std::string> remoteCommand(const std::vector<std::string>& shell, const std::string& host,
                                       const std::filesystem::path& directory,
                                       const std::vector<std::string>& environment,
                                       const std::vector<std::string>& command) {
  std::string remote = "cd " + quoted(directory.string()) + " && exec env";
  for (const std::string& variable : environment) remote += " " + quoted(variable);
  for (const std::string& word : command) remote += " " + quoted(word);
  std::vector<std::string> argv = shell;
  argv.push_back(host);
  argv.push_back(remote);
  return argv;
}

}  // namespace dtb::core
