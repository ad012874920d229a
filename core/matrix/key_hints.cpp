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

// Words of DeepSpeed's configuration with no dtbench key: what dtbench does
// instead, so a DeepSpeed user learns it from the error, not from a search.
const std::map<std::string, std::string>& wordsWithoutKey() {
  const std::string precision =
      "mixed precision (DeepSpeed's fp16 and bf16, torch.amp) is the [run] key precision = \"bf16\" | "
      "\"fp16\", with f32 master weights; fp16's loss scaling takes DeepSpeed's initial_scale_power, "
      "loss_scale_window, hysteresis and min_loss_scale as [run] keys";
  const std::string offload =
      "ZeRO-Offload is not implemented: every stage of strategy = \"zero\" keeps its state where the "
      "model's tensors are";
  static const std::map<std::string, std::string> words = {
      {"fp16", precision},
      {"bf16", precision},
      {"amp", precision},
      {"overlap_comm",
       "strategy = \"zero\" always overlaps the gradient reduction with backward in stages 2 and 3, as "
       "DeepSpeed's overlap_comm = true, and reduces after backward in stage 1; there is no switch"},
      {"contiguous_gradients", "strategy = \"zero\" always reduces gradients from contiguous buckets"},
      {"offload_optimizer", offload},
      {"offload_param", offload},
      {"zero_optimization",
       "ZeRO is strategy = \"zero\" in [run], its settings in [strategy.zero]: stage, reduce_bucket_size, "
       "param_persistence_threshold, reduce_scatter, prefetch (`dtbench plugins zero`)"},
      {"optimizer",
       "the optimizer is [run] keys: optimizer = \"sgd\" | \"adam\" | \"adamw\", lr, momentum, "
       "weight_decay"},
      {"scheduler", "the learning-rate schedule is [run] keys: schedule, warmup_epochs, lr_step_epochs, ..."},
      {"gradient_clipping", "gradient_clipping is a [run] key (the global L2 norm; 0 clips nothing)"},
  };
  return words;
}

}  // namespace

std::string foreignWordHint(const std::string& word) {
  if (auto it = wordsWithoutKey().find(word); it != wordsWithoutKey().end()) return " (" + it->second + ")";
  return {};
}

std::string unknownKeyHint(const std::string& key, const std::vector<ParamSpec>& candidates) {
  if (auto it = foreignWords().find(key); it != foreignWords().end()) {
    const Translation& t = it->second;
    return " (did you mean '" + t.word + "'?" + (t.why.empty() ? "" : " " + t.why) + ")";
  }
  if (std::string foreign = foreignWordHint(key); !foreign.empty()) return foreign;
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
