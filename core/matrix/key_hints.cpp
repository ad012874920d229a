#include "matrix/key_hints.h"

#include <map>

#include "host/plugin_config.h"

namespace dtb::core {
namespace {

// Keys users bring from torchrun, DeepSpeed and PyTorch, and dtbench's word.
// None is an alias: each means something a little different here, which the
// hint says.
struct Translation {
  std::string word;  // dtbench's key
  std::string why;   // how it differs; "" when it does not
};

const std::map<std::string, Translation>& foreignWords() {
  const std::string ranks =
      "dtbench's world_size is the total number of ranks over every host, torchrun's nnodes x "
      "nproc_per_node; the hosts come from launcher = \"mpirun\" (hostfile) or \"srun\"";
  const std::string micro = "dtbench's batch_size is the samples of one rank's micro-batch";
  const std::string store = "ranks on several hosts meet at rendezvous_store = \"redis://HOST:PORT\"";
  static const std::map<std::string, Translation> words = {
      {"nproc_per_node", {"world_size", ranks}},
      {"nnodes", {"world_size", ranks}},
      {"train_micro_batch_size_per_gpu", {"batch_size", micro}},
      {"micro_batch_size", {"batch_size", micro}},
      {"gradient_accumulation_steps", {"accumulation_steps", ""}},
      {"train_batch_size",
       {"batch_size",
        "dtbench derives the global batch, global_batch_size = batch_size x world_size x "
        "accumulation_steps (DeepSpeed's train_batch_size)"}},
      {"master_addr", {"rendezvous_store", store}},
      {"master_port", {"rendezvous_store", store}},
      {"rdzv_endpoint", {"rendezvous_store", store}},
      {"num_workers", {"loader_threads", "the prefetch threads of each rank"}},
      {"learning_rate", {"lr", ""}},
  };
  return words;
}

}  // namespace

std::string unknownKeyHint(const std::string& key, const std::vector<ParamSpec>& candidates) {
  if (auto it = foreignWords().find(key); it != foreignWords().end()) {
    const Translation& t = it->second;
    return " (did you mean '" + t.word + "'?" + (t.why.empty() ? "" : " " + t.why) + ")";
  }
  const std::string best = closestName(key, candidates);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

std::optional<std::string> rendezvousStoreProblem(const std::string& value) {
  const std::string scheme = "redis://";
  if (value.empty() || (value.starts_with(scheme) && value.size() > scheme.size())) return std::nullopt;
  const bool hostPort = value.find("://") == std::string::npos && value.find(':') != std::string::npos;
  if (hostPort) {
    return "\"" + value +
           "\" is torchrun's HOST:PORT (its TCP store); dtbench's ranks meet through a Redis server: "
           "write \"redis://" +
           value + "\" if Redis listens there, or \"\" for a file store in the run directory";
  }
  return "\"" + value +
         "\" is not a store dtbench knows: give \"redis://HOST:PORT\", or \"\" for a file store";
}

}  // namespace dtb::core
