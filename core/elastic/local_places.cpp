#include "elastic/local_places.h"

#include <set>

namespace dtb::core {

int LocalPlaces::place(int slot, const std::vector<int>& members) {
  std::set<int> taken;
  for (const int member : members) {
    if (const auto it = held_.find(member); it != held_.end() && member != slot) taken.insert(it->second);
  }
  int local = 0;
  while (taken.contains(local)) ++local;
  held_[slot] = local;
  return local;
}

}  // namespace dtb::core
