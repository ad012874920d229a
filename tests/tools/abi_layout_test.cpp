// The ABI may only grow: every struct member of the last release keeps its
// offset and size, structs never shrink, and new members come after the end
// of the released struct. The layout is taken from a C compilation unit
// (tools/abi_check/layout_table.c), as a plain C plugin would see it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "layout_table.h"

namespace {

struct Layout {
  std::map<std::string, size_t> structSize;
  std::map<std::string, std::pair<size_t, size_t>> member;  // "type.member" -> offset, size
};

Layout current() {
  Layout layout;
  size_t count = 0;
  const dtb_layout_row* rows = dtb_layout_rows(&count);
  for (size_t i = 0; i < count; ++i) {
    if (rows[i].member[0] == '\0') {
      layout.structSize[rows[i].type] = rows[i].size;
    } else {
      layout.member[std::string(rows[i].type) + "." + rows[i].member] = {rows[i].offset, rows[i].size};
    }
  }
  return layout;
}

Layout released() {
  Layout layout;
  std::ifstream in(std::string(DTBENCH_SOURCE_DIR) + "/tools/abi_check/abi-v1.layout");
  EXPECT_TRUE(in) << "tools/abi_check/abi-v1.layout is missing";
  std::string type, member;
  size_t offset = 0, size = 0;
  while (in >> type >> member >> offset >> size) {
    if (member == "-") {
      layout.structSize[type] = size;
    } else {
      layout.member[type + "." + member] = {offset, size};
    }
  }
  return layout;
}

TEST(AbiLayout, ReleasedMembersKeepTheirOffsetAndSize) {
  const Layout now = current();
  const Layout then = released();
  ASSERT_FALSE(then.member.empty());
  for (const auto& [name, place] : then.member) {
    auto it = now.member.find(name);
    ASSERT_NE(it, now.member.end()) << name << " was removed or renamed: that breaks ABI v1";
    EXPECT_EQ(it->second.first, place.first) << name << " moved: that breaks ABI v1";
    EXPECT_EQ(it->second.second, place.second) << name << " changed size: that breaks ABI v1";
  }
}

TEST(AbiLayout, StructsOnlyGrowAtTheEnd) {
  const Layout now = current();
  const Layout then = released();
  for (const auto& [type, size] : then.structSize) {
    ASSERT_TRUE(now.structSize.contains(type)) << type << " was removed";
    EXPECT_GE(now.structSize.at(type), size) << type << " shrank";
  }
  for (const auto& [name, place] : now.member) {
    if (then.member.contains(name)) continue;
    const std::string type = name.substr(0, name.find('.'));
    if (!then.structSize.contains(type)) continue;  // a new struct
    EXPECT_GE(place.first, then.structSize.at(type))
        << name << " was inserted inside the released struct; add members at the end";
  }
}

TEST(AbiLayout, FrozenValueTypesDoNotChangeAtAll) {
  // Embedded by value in other structs, so even growing them would move
  // the members after them.
  const Layout now = current();
  const Layout then = released();
  for (const char* type : {"dtb_device_t", "dtb_tensor_t", "dtb_plugin_header_t"}) {
    EXPECT_EQ(now.structSize.at(type), then.structSize.at(type)) << type << " is frozen";
  }
}

TEST(AbiLayout, EveryVersionedStructStartsWithItsSize) {
  const Layout now = current();
  for (const auto& [type, size] : now.structSize) {
    if (type == "dtb_device_t" || type == "dtb_tensor_t") continue;  // frozen value types
    if (type.ends_with("_plugin_v1_t")) {
      EXPECT_EQ(now.member.at(type + ".header").first, 0u) << type;  // header starts with struct_size
      continue;
    }
    auto it = now.member.find(type + ".struct_size");
    ASSERT_NE(it, now.member.end()) << type << " has no struct_size";
    EXPECT_EQ(it->second.first, 0u) << type;
    EXPECT_EQ(it->second.second, 4u) << type;
  }
}

}  // namespace
