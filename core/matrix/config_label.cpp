#include "matrix/config_label.h"

#include <algorithm>
#include <set>

namespace dtb::core {
namespace {

// Keys that never tell configurations apart: the strategy leads the label
// anyway; world size and what derives from it are a scaling curve's x axis.
bool labelWorthy(const std::string& key) {
  static const std::set<std::string> kSkip = {"strategy", "world_size", "global_batch_size", "lr_effective"};
  return !kSkip.count(key);
}

// "strategy.bucketed.bucket_cap_mb" -> "bucket_cap_mb"; "backend" stays.
std::string shortKey(const std::string& key) {
  const size_t last = key.rfind('.');
  return last == std::string::npos ? key : key.substr(last + 1);
}

std::string unquote(const std::string& value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    return value.substr(1, value.size() - 2);
  return value;
}

// The keys whose values differ between configurations that have them (a
// parameter only some configurations have, another strategy's, does not vary).
std::vector<std::string> varyingKeys(const std::vector<LabelInput>& configs, bool withModel) {
  std::map<std::string, std::set<std::string>> values;
  for (const LabelInput& c : configs) {
    for (const auto& [k, v] : c.params) values[k].insert(unquote(v));
  }
  // A dataset that goes with the model (the model names it already: zipped
  // lenet/idx, resnet/synthetic) tells nothing more.
  std::map<std::string, std::set<std::string>> datasetsOfModel;
  for (const LabelInput& c : configs) {
    auto it = c.params.find("dataset");
    if (it != c.params.end()) datasetsOfModel[c.model].insert(unquote(it->second));
  }
  const bool datasetFollowsModel = std::all_of(datasetsOfModel.begin(), datasetsOfModel.end(),
                                               [](const auto& m) { return m.second.size() == 1; });
  std::vector<std::string> varying;
  for (const auto& [k, vs] : values) {
    if (vs.size() < 2 || !labelWorthy(k) || (!withModel && k == "model")) continue;
    if (k == "dataset" && datasetFollowsModel && values.count("model") && values.at("model").size() > 1)
      continue;
    varying.push_back(k);
  }
  return varying;
}

}  // namespace

std::vector<std::string> labelConfigurations(const std::vector<LabelInput>& configs, bool withModel) {
  const std::vector<std::string> varying = varyingKeys(configs, withModel);
  const bool modelVaries = std::find(varying.begin(), varying.end(), "model") != varying.end();
  std::vector<std::string> labels;
  for (const LabelInput& c : configs) {
    // The model (with its depth) leads, then the dataset, then the strategy
    // and its settings: "resnet50 cifar10 zero stage=3".
    std::string model, dataset, rest;
    for (const std::string& k : varying) {
      auto it = c.params.find(k);
      if (it == c.params.end()) continue;
      const std::string value = unquote(it->second);
      if (k == "model") {
        model = value;  // "model" sorts before "model.*": the depth comes after
      } else if (k == "model." + c.model + ".depth") {
        model += modelVaries ? value : c.model + value;  // "resnet50", as torchvision names it
      } else if (k == "dataset") {
        dataset = value;
      } else {
        const bool bare = k == "backend" || k == "launcher";
        rest += " " + (bare ? value : shortKey(k) + "=" + value);
      }
    }
    std::string label;
    for (const std::string& part : {model, dataset, c.strategy}) {
      if (!part.empty()) label += (label.empty() ? "" : " ") + part;
    }
    labels.push_back(label + rest);
  }
  return labels;
}

}  // namespace dtb::core
