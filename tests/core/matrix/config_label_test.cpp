#include "matrix/config_label.h"

#include <gtest/gtest.h>

namespace dtb::core {
namespace {

LabelInput config(const std::string& strategy, const std::string& model,
                  std::map<std::string, std::string> params) {
  params["strategy"] = strategy;
  params["model"] = model;
  return {strategy, model, std::move(params)};
}

TEST(ConfigLabel, NamesWhatDiffersAndOnlyThat) {
  const std::vector<std::string> labels = labelConfigurations(
      {config("fusion", "lenet", {{"strategy.fusion.threshold", "67108864"}, {"world_size", "1"}}),
       config("fusion", "lenet", {{"strategy.fusion.threshold", "134217728"}, {"world_size", "2"}}),
       config("zero", "lenet", {{"strategy.zero.stage", "3"}, {"world_size", "2"}}),
       config("allreduce", "lenet", {{"world_size", "2"}})},
      true);
  EXPECT_EQ(labels, (std::vector<std::string>{"fusion threshold=67108864", "fusion threshold=134217728",
                                              "zero", "allreduce"}));
}

TEST(ConfigLabel, AVaryingModelLeadsWithItsDepth) {
  const std::vector<LabelInput> configs = {
      config("bucketed", "resnet", {{"model.resnet.depth", "50"}, {"backend", "\"gloo\""}}),
      config("bucketed", "resnet", {{"model.resnet.depth", "18"}, {"backend", "\"mpi\""}}),
      config("bucketed", "lenet", {{"backend", "\"gloo\""}})};
  EXPECT_EQ(
      labelConfigurations(configs, true),
      (std::vector<std::string>{"resnet50 bucketed gloo", "resnet18 bucketed mpi", "lenet bucketed gloo"}));
  // The report draws a chart per model name: the name alone stays out of its
  // labels, the depth that tells two resnets apart stays in.
  EXPECT_EQ(labelConfigurations(configs, false),
            (std::vector<std::string>{"resnet50 bucketed gloo", "resnet18 bucketed mpi", "bucketed gloo"}));
}

TEST(ConfigLabel, ADepthThatVariesAloneStillNamesTheModel) {
  const std::vector<std::string> labels =
      labelConfigurations({config("zero", "resnet", {{"model.resnet.depth", "18"}}),
                           config("zero", "resnet", {{"model.resnet.depth", "50"}})},
                          true);
  EXPECT_EQ(labels, (std::vector<std::string>{"resnet18 zero", "resnet50 zero"}));
}

TEST(ConfigLabel, TheModelLeadsThenTheDataset) {
  const std::vector<std::string> labels = labelConfigurations(
      {config("zero", "lenet", {{"dataset", "\"idx\""}, {"strategy.zero.stage", "1"}}),
       config("zero", "lenet", {{"dataset", "\"synthetic\""}, {"strategy.zero.stage", "3"}}),
       config("zero", "resnet", {{"dataset", "\"synthetic\""}, {"strategy.zero.stage", "3"}})},
      true);
  EXPECT_EQ(labels, (std::vector<std::string>{"lenet idx zero stage=1", "lenet synthetic zero stage=3",
                                              "resnet synthetic zero stage=3"}));
}

TEST(ConfigLabel, ADatasetThatGoesWithItsModelIsLeftOut) {
  // examples/strategies.toml zips lenet with idx and resnet with synthetic.
  const std::vector<std::string> labels =
      labelConfigurations({config("zero", "lenet", {{"dataset", "\"idx\""}}),
                           config("bucketed", "lenet", {{"dataset", "\"idx\""}}),
                           config("zero", "resnet", {{"dataset", "\"synthetic\""}})},
                          true);
  EXPECT_EQ(labels, (std::vector<std::string>{"lenet zero", "lenet bucketed", "resnet zero"}));
}

TEST(ConfigLabel, TheReportsLabelsStillTellDepthsAndDatasetsApart) {
  // One chart per model name: its name is left out, its depth and dataset are not.
  const std::vector<std::string> labels = labelConfigurations(
      {config("zero", "resnet", {{"model.resnet.depth", "18"}, {"dataset", "\"cifar10\""}}),
       config("zero", "resnet", {{"model.resnet.depth", "50"}, {"dataset", "\"cifar10\""}}),
       config("zero", "resnet", {{"model.resnet.depth", "50"}, {"dataset", "\"synthetic\""}})},
      false);
  EXPECT_EQ(labels, (std::vector<std::string>{"resnet18 cifar10 zero", "resnet50 cifar10 zero",
                                              "resnet50 synthetic zero"}));
}

}  // namespace
}  // namespace dtb::core
