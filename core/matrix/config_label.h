// A short label of what sets one configuration apart from the others of its
// experiment: the strategy, then every setting whose value is not the same
// in all of them — "fusion threshold=67108864", "zero stage=3",
// "resnet50 bucketed". Stored with every run (run.label), and drawn by the
// report, so a listing never shows two configurations as identical rows.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dtb::core {

struct LabelInput {
  std::string strategy, model;
  std::map<std::string, std::string> params;  // every run key and plugin parameter, as stored
};

// One label per input, in order. With `withModel`, a model (with its depth,
// "resnet50") or dataset that varies leads the label; without it (the report
// draws one chart per model name) the model's name is left out, but not what
// tells two of its configurations apart (its depth, the dataset).
std::vector<std::string> labelConfigurations(const std::vector<LabelInput>& configs, bool withModel);

}  // namespace dtb::core
