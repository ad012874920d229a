// Parameter declarations: parsing defaults, type and range checks.
#include "plugin/param_spec.h"

#include <gtest/gtest.h>

namespace dtb::core {
namespace {

ParamValue parsed(dtb_param_type_t type, const char* text) { return parseParamLiteral(type, text); }

TEST(ParamLiteral, ParsesEachTypeInTomlSyntax) {
  EXPECT_EQ(std::get<bool>(parsed(DTB_PARAM_BOOL, "true")), true);
  EXPECT_EQ(std::get<int64_t>(parsed(DTB_PARAM_INT, "25")), 25);
  EXPECT_EQ(std::get<double>(parsed(DTB_PARAM_FLOAT, "1e-3")), 1e-3);
  EXPECT_EQ(std::get<double>(parsed(DTB_PARAM_FLOAT, "128")), 128.0);  // int accepted as float
  EXPECT_EQ(std::get<std::string>(parsed(DTB_PARAM_STRING, "\"ring\"")), "ring");
  EXPECT_EQ(std::get<std::string>(parsed(DTB_PARAM_STRING, "ring")), "ring");  // bare word
  EXPECT_EQ(std::get<std::vector<int64_t>>(parsed(DTB_PARAM_INT_LIST, "[512, 256]")),
            (std::vector<int64_t>{512, 256}));
}

TEST(ParamLiteral, RejectsWrongTypes) {
  EXPECT_THROW(parseParamLiteral(DTB_PARAM_INT, "fast"), std::invalid_argument);
  EXPECT_THROW(parseParamLiteral(DTB_PARAM_INT, "2.5"), std::invalid_argument);
  EXPECT_THROW(parseParamLiteral(DTB_PARAM_BOOL, "1"), std::invalid_argument);
  EXPECT_THROW(parseParamLiteral(DTB_PARAM_INT_LIST, "[1, 2.5]"), std::invalid_argument);
}

TEST(ParamCheck, RangeAndChoices) {
  ParamSpec cap{"bucket_cap_mb", DTB_PARAM_FLOAT, 25.0, "Bucket size in MiB", 0.0, 1024.0, {}};
  EXPECT_FALSE(checkParamValue(cap, 1.0));
  EXPECT_NE(checkParamValue(cap, -1.0)->find("below the minimum"), std::string::npos);
  EXPECT_NE(checkParamValue(cap, 2048.0)->find("above the maximum"), std::string::npos);
  EXPECT_NE(checkParamValue(cap, std::string("big"))->find("expected float"), std::string::npos);

  ParamSpec algo{"algorithm",
                 DTB_PARAM_STRING,
                 std::string("ring"),
                 "All-reduce algorithm",
                 {},
                 {},
                 {"ring", "halving_doubling"}};
  EXPECT_FALSE(checkParamValue(algo, std::string("ring")));
  EXPECT_NE(checkParamValue(algo, std::string("tree"))->find("not one of: ring, halving_doubling"),
            std::string::npos);

  ParamSpec widths{"widths", DTB_PARAM_INT_LIST, std::vector<int64_t>{}, "Layer widths", 1.0, {}, {}};
  EXPECT_NE(checkParamValue(widths, std::vector<int64_t>{4, 0})->find("element"), std::string::npos);
}

TEST(ParamSpecs, RejectsBadDeclarations) {
  dtb_param_spec_t specs[2] = {
      {sizeof(dtb_param_spec_t), "op", DTB_PARAM_STRING, "avg", "Reduce op", 0, 0, 0, "avg|sum"},
      {sizeof(dtb_param_spec_t), "op", DTB_PARAM_INT, "1", "Again", 0, 0, 0, nullptr}};
  EXPECT_THROW(readParamSpecs(specs, 2), std::invalid_argument);  // declared twice
  specs[1].name = "Bad-Name";
  EXPECT_THROW(readParamSpecs(specs, 2), std::invalid_argument);
  specs[1].name = "level";
  specs[1].doc = nullptr;
  EXPECT_THROW(readParamSpecs(specs, 2), std::invalid_argument);
  specs[1].doc = "Level";
  specs[0].default_value = "max";  // not one of the choices
  EXPECT_THROW(readParamSpecs(specs, 2), std::invalid_argument);
  specs[0].default_value = "avg";
  EXPECT_EQ(readParamSpecs(specs, 2).size(), 2u);
  EXPECT_THROW(readParamSpecs(nullptr, 1), std::invalid_argument);
}

TEST(ParamSpecs, StridesByTheDeclaredStructSize) {
  // A plugin built against a later minor version: a larger spec struct.
  struct Grown {
    dtb_param_spec_t base;
    const char* unit;
  };
  Grown grown[2] = {{{sizeof(Grown), "a", DTB_PARAM_INT, "1", "A", 0, 0, 0, nullptr}, "ms"},
                    {{sizeof(Grown), "b", DTB_PARAM_BOOL, "false", "B", 0, 0, 0, nullptr}, ""}};
  auto specs = readParamSpecs(&grown[0].base, 2);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[1].name, "b");
  EXPECT_EQ(specs[1].type, DTB_PARAM_BOOL);
}

}  // namespace
}  // namespace dtb::core
