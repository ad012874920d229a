// On one machine (launcher = "local"), the local rank each worker of an
// elastic run holds for the life of the run, and with it its GPU
// (gpuForLocalRank). NCCL puts one rank on each GPU, so a worker that joins
// takes the lowest local rank no member holds (a failed worker's), never a
// survivor's, however a new world numbers its ranks; and a survivor keeps
// its own. Across hosts ElasticHosts places workers the same way, host by
// host.
#pragma once

#include <map>
#include <vector>

namespace dtb::core {

class LocalPlaces {
 public:
  // Worker `slot` takes the lowest local rank that none of `members` (the
  // slots it trains beside) holds, and keeps it.
  int place(int slot, const std::vector<int>& members);

 private:
  std::map<int, int> held_;  // slot -> its local rank
};

}  // namespace dtb::core
