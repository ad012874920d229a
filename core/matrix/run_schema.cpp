#include "matrix/run_schema.h"

#include "network/network_profile.h"

namespace dtb::core {
namespace {

ParamSpec spec(const char* name, dtb_param_type_t type, std::optional<ParamValue> value, const char* doc,
               std::optional<double> min = {}, std::optional<double> max = {},
               std::vector<std::string> choices = {}) {
  return ParamSpec{name, type, std::move(value), doc, min, max, std::move(choices)};
}

// The values `network` takes: "" (the hosts' own) or a profile's name.
std::vector<std::string> networkChoices() {
  std::vector<std::string> choices{""};
  for (const NetworkProfile& profile : networkProfiles()) choices.push_back(profile.name);
  return choices;
}

std::vector<ParamSpec> makeSchema() {
  using S = std::string;
  return {
      spec("model", DTB_PARAM_STRING, {}, "Model plugin name, e.g. lenet"),
      spec("dataset", DTB_PARAM_STRING, {}, "Dataset plugin name, e.g. idx"),
      spec("strategy", DTB_PARAM_STRING, S("allreduce"), "Strategy plugin name"),
      spec("backend", DTB_PARAM_STRING, S("gloo"), "Communication backend plugin name"),
      spec("launcher", DTB_PARAM_STRING, S("auto"),
           "How workers are started: local forks them here; mpirun and srun start them as a job "
           "(rank and size from the launcher); ssh starts each on the hostfile's hosts through a remote "
           "shell (launcher_args: the shell, default ssh) and watches it as a local one; auto is mpirun for "
           "backend mpi, local otherwise",
           {}, {}, {"auto", "local", "mpirun", "srun", "ssh"}),
      spec("hostfile", DTB_PARAM_STRING, S(""),
           "The hosts to start ranks on (Open MPI's format, \"HOST slots=N\" a line): mpirun's --hostfile, "
           "and the ssh launcher's"),
      spec("launcher_args", DTB_PARAM_STRING, S(""),
           "Extra arguments for mpirun or srun, split at spaces (e.g. \"--mca btl tcp,self\"); for ssh, "
           "the remote shell command (\"\" is ssh)"),
      spec("interface", DTB_PARAM_STRING, S(""),
           "Network interface the ranks talk over, e.g. \"eth0\" (as GLOO_SOCKET_IFNAME, "
           "NCCL_SOCKET_IFNAME): Gloo binds its address on each host, mpirun's TCP transports keep to it; "
           "\"\" is loopback for local runs, the host's name for mpirun and srun"),
      spec("network", DTB_PARAM_STRING, S(""),
           "Emulated network profile, on tools/cluster.sh's hosts only: none, 10gbe, 25gbe, 100gbe or ib-hdr "
           "(published latency and bandwidth, slowed down 100 times; docs/networks.md); \"\" names none: "
           "elsewhere the hosts' own network, on tools/cluster.sh's hosts their network unshaped (none)",
           {}, {}, networkChoices()),
      spec("rendezvous_dir", DTB_PARAM_STRING, S(""),
           "Directory shared by every host, for the run's spec and the backends' file store; "
           "\"\" is a temporary directory (local) or .dtbench-rendezvous beside the database "
           "(mpirun, srun)"),
      spec("rendezvous_store", DTB_PARAM_STRING, S(""),
           "Where the backends' ranks meet: \"\" is a file store in the run directory; "
           "\"redis://HOST:PORT\" a Redis server (for hosts without a shared file system)"),
      spec("device", DTB_PARAM_STRING, S("cpu"), "Where tensors live", {}, {}, {"cpu", "cuda"}),
      spec("precision", DTB_PARAM_STRING, S("fp32"),
           "What parameters and gradients are: fp32; bf16 or fp16 (mixed precision: f32 master weights, "
           "fp16 with dynamic loss scaling; on the CPU the models compute in f32 on the rounded values, "
           "docs/mixed-precision.md)",
           {}, {}, {"fp32", "bf16", "fp16"}),
      // fp16's dynamic loss scaling, by DeepSpeed's fp16 config names and defaults.
      spec("initial_scale_power", DTB_PARAM_INT, int64_t{16},
           "precision = fp16: the first loss scale is 2^this (DeepSpeed's fp16.initial_scale_power)", 0.0,
           64.0),
      spec("loss_scale_window", DTB_PARAM_INT, int64_t{1000},
           "precision = fp16: steps without an overflow before the loss scale doubles", 1.0, 1e9),
      spec("hysteresis", DTB_PARAM_INT, int64_t{2},
           "precision = fp16: overflows tolerated before the loss scale halves (each skips its step)", 1.0,
           1e6),
      spec("min_loss_scale", DTB_PARAM_FLOAT, 1.0,
           "precision = fp16: the smallest loss scale; an overflow there stops the run, as DeepSpeed's",
           1e-30, 1e30),
      spec("gradient_clipping", DTB_PARAM_FLOAT, 0.0,
           "Clip the gradients to this global L2 norm before each update (PyTorch's clip_grad_norm_, "
           "DeepSpeed's gradient_clipping), measured over every rank after unscaling; 0 clips nothing",
           0.0, 1e30),
      spec("world_size", DTB_PARAM_INT, int64_t{1}, "Number of worker processes (ranks)", 1.0,
           double{kMaxWorldSize}),
      spec("batch_size", DTB_PARAM_INT, int64_t{64},
           "Samples per rank per micro-batch; the global batch is batch_size x world_size x "
           "accumulation_steps",
           1.0, 1e7),
      spec("accumulation_steps", DTB_PARAM_INT, int64_t{1},
           "Micro-batches per optimizer step (gradient accumulation); they count in the global batch", 1.0,
           1e6),
      spec("epochs", DTB_PARAM_INT, int64_t{1}, "Passes over the training split", 1.0, 1e6),
      spec("max_steps_per_epoch", DTB_PARAM_INT, int64_t{0},
           "Stop an epoch after this many steps; 0 runs the whole split", 0.0, 1e12),
      spec("optimizer", DTB_PARAM_STRING, S("sgd"), "Optimizer", {}, {}, {"sgd", "adam", "adamw"}),
      spec("lr", DTB_PARAM_FLOAT, 0.01, "Base learning rate (before scaling)", 0.0),
      spec("lr_scaling", DTB_PARAM_STRING, S("none"), "linear multiplies lr by world_size (Goyal et al.)", {},
           {}, {"none", "linear"}),
      spec("schedule", DTB_PARAM_STRING, S("constant"), "Learning-rate schedule", {}, {},
           {"constant", "step", "cosine", "exponential"}),
      spec("warmup_epochs", DTB_PARAM_INT, int64_t{0}, "Linear warm-up epochs", 0.0, 1e6),
      spec("lr_step_epochs", DTB_PARAM_INT, int64_t{30}, "step schedule: epochs between decays", 1.0),
      spec("lr_step_gamma", DTB_PARAM_FLOAT, 0.1, "step schedule: factor at each decay", 0.0, 1.0),
      spec("lr_exp_gamma", DTB_PARAM_FLOAT, 0.95, "exponential schedule: factor per epoch", 0.0, 1.0),
      spec("momentum", DTB_PARAM_FLOAT, 0.0, "SGD momentum", 0.0, 1.0),
      spec("nesterov", DTB_PARAM_BOOL, false, "Nesterov momentum (SGD)"),
      spec("weight_decay", DTB_PARAM_FLOAT, 0.0, "L2 penalty (decoupled for adamw)", 0.0),
      spec("fused_optimizer", DTB_PARAM_BOOL, true,
           "device = cuda: a step's parameter updates run as a few multi-tensor kernels (PyTorch's "
           "fused=True), for a strategy that hands them over together; false: a kernel per parameter"),
      spec("label_smoothing", DTB_PARAM_FLOAT, 0.0, "Cross-entropy label smoothing", 0.0, 1.0),
      spec("seed", DTB_PARAM_INT, int64_t{1}, "Seed for weights, shuffling and dropout", 0.0),
      spec("dataset_scale", DTB_PARAM_INT, int64_t{1},
           "Repeat the training split this many times (1x, 4x, 8x)", 1.0, 1e4),
      spec("loader_threads", DTB_PARAM_INT, int64_t{2}, "Prefetch threads per rank", 0.0, 256.0),
      spec("pin_memory", DTB_PARAM_BOOL, true,
           "device = cuda: batches in pinned host memory, copied to the GPU a step ahead on a stream of "
           "their own"),
      spec("threads_per_worker", DTB_PARAM_INT, int64_t{0},
           "Compute threads per rank; 0 divides the cores among the ranks", 0.0, 1024.0),
      spec(
          "target_accuracy", DTB_PARAM_FLOAT, 0.0,
          "Test accuracy (a fraction) a configuration must reach to be judged: the verdict picks the fastest "
          "of those that reach it, and time_to_target times each run to it; 0 sets none (the bar is then the "
          "best accuracy measured, less accuracy_tolerance). Judges runs, does not change them",
          0.0, 1.0),
      spec("accuracy_tolerance", DTB_PARAM_FLOAT, 0.01,
           "Without target_accuracy: how far below the best mean test accuracy (a fraction; 0.01 is one "
           "point) "
           "a configuration may end and still count as reaching it, when the best one's own spread over its "
           "repeats is smaller. Judges runs, does not change them",
           0.0, 1.0),
      spec("collective_timeout_s", DTB_PARAM_FLOAT, 60.0,
           "Bound on every collective and wait; a rank past it fails the run", 0.001, 86400.0),
      spec("trace", DTB_PARAM_BOOL, false, "Write a Chrome trace per rank"),
      spec("step_records", DTB_PARAM_BOOL, true,
           "Store every step of every rank (the step and step_metric tables); false keeps epochs only"),
      spec("recovery", DTB_PARAM_STRING, S("none"),
           "What a failed rank costs: none fails the run; restart stops every worker and starts them "
           "again from the last checkpoint (torchrun's way), up to max_restarts times; elastic lets the "
           "survivors roll back to their last in-memory commit and go on in a smaller world without "
           "restarting (Horovod Elastic's way), and lets workers join",
           {}, {}, {"none", "restart", "elastic"}),
      spec("checkpoint_every", DTB_PARAM_INT, int64_t{10},
           "recovery = restart: optimizer steps between checkpoints", 1.0, 1e12),
      spec("max_restarts", DTB_PARAM_INT, int64_t{3}, "recovery = restart: restarts before the run fails",
           0.0, 1000.0),
      spec("commit_every", DTB_PARAM_INT, int64_t{10},
           "recovery = elastic: optimizer steps between in-memory commits of the state (Horovod's "
           "state.commit(); also where joining workers are let in)",
           1.0, 1e12),
      spec("min_np", DTB_PARAM_INT, int64_t{0},
           "recovery = elastic: fewest workers training goes on with; 0 means world_size (horovodrun's "
           "default: --min-np is -np)",
           0.0, double{kMaxWorldSize}),
      spec("max_np", DTB_PARAM_INT, int64_t{0}, "recovery = elastic: most workers; 0 sets no bound", 0.0,
           double{kMaxWorldSize}),
      spec("reset_limit", DTB_PARAM_INT, int64_t{0},
           "recovery = elastic: resets (new worlds, after a failure or a join, as horovodrun counts them) "
           "before the run fails; 0 sets no limit (three resets in a row back to one commit still end it)",
           0.0, 1e6),
      spec("elastic_timeout_s", DTB_PARAM_FLOAT, 600.0,
           "recovery = elastic: how long a world below min_np waits for workers before the run fails "
           "(horovodrun's default, 600 s)",
           0.0, 86400.0),
      spec("host_discovery", DTB_PARAM_STRING, S(""),
           "recovery = elastic, launcher = ssh: a command (run by /bin/sh, from the working directory) that "
           "prints the hosts workers may run on now, HOST or HOST:SLOTS a line (horovodrun's "
           "--host-discovery-script), run every discovery_interval_s; \"\" takes the hostfile's hosts, "
           "fixed"),
      spec("discovery_interval_s", DTB_PARAM_FLOAT, 1.0,
           "recovery = elastic: seconds between the end of one host_discovery run and the next's start "
           "(horovodrun's, 1 s)",
           0.05, 3600.0),
      spec("discovery_timeout_s", DTB_PARAM_FLOAT, 10.0,
           "recovery = elastic: bound on one host_discovery run; past it the run is killed and counts as "
           "failed (the first: the run fails; a later one: the hosts stay as they were)",
           0.1, 3600.0),
      spec("slots_per_host", DTB_PARAM_INT, int64_t{1},
           "recovery = elastic: the slots of a host_discovery line without :SLOTS (horovodrun's "
           "--slots-per-host)",
           1.0, 4096.0),
      spec("blacklist_cooldown_range", DTB_PARAM_INT_LIST, std::vector<int64_t>{},
           "recovery = elastic, launcher = ssh: [low, high] seconds a host whose worker failed stays "
           "blacklisted: about low x 2^failures plus up to low of jitter, within the range (horovodrun's "
           "--blacklist-cooldown-range); [] keeps it out for the rest of the run",
           1.0, 3600.0),
      // The [fault] table (worker/fault_injector.h): keys of the run, so a fault is an axis like any other.
      spec("fault.kind", DTB_PARAM_STRING, S("none"),
           "[fault] kind: kill (SIGKILL) the rank, stop (SIGSTOP) it for `seconds`, or slow each of its "
           "steps by `slow_ms`, from optimizer step `step` on; add (recovery = elastic) starts one more "
           "worker at step `step`, which joins at the next commit; overflow (precision fp16) puts an "
           "inf into the rank's gradients at step `step`",
           {}, {}, {"none", "kill", "stop", "slow", "add", "overflow"}),
      spec("fault.rank", DTB_PARAM_INT, int64_t{0}, "[fault] the rank it happens to (below world_size)", 0.0,
           65535.0),
      spec("fault.step", DTB_PARAM_INT, int64_t{0},
           "[fault] the optimizer step, counted over the run from 0, before which it happens", 0.0, 1e12),
      spec("fault.seconds", DTB_PARAM_FLOAT, 5.0, "[fault] stop: how long the rank stays stopped", 0.0,
           86400.0),
      spec("fault.slow_ms", DTB_PARAM_FLOAT, 10.0,
           "[fault] slow: milliseconds added to each step of the rank", 0.0, 3.6e6),
  };
}

}  // namespace

const std::vector<ParamSpec>& runSchema() {
  static const std::vector<ParamSpec> schema = makeSchema();
  return schema;
}

const ParamSpec* findDerivedKey(const std::string& key) {
  static const ParamSpec globalBatch{
      kGlobalBatchKey, DTB_PARAM_INT, {}, "batch_size x world_size x accumulation_steps", {}, {}, {}};
  static const ParamSpec effectiveLr{
      kEffectiveLrKey, DTB_PARAM_FLOAT, {}, "lr after linear scaling", {}, {}, {}};
  if (key == kGlobalBatchKey) return &globalBatch;
  if (key == kEffectiveLrKey) return &effectiveLr;
  return nullptr;
}

bool isJudgingKey(const std::string& key) { return key == "target_accuracy" || key == "accuracy_tolerance"; }

const ParamSpec* findRunKey(const std::string& key) {
  for (const ParamSpec& s : runSchema()) {
    if (s.name == key) return &s;
  }
  return nullptr;
}

std::string resolveLauncher(const std::string& launcher, const std::string& backend) {
  if (launcher != "auto" && !launcher.empty()) return launcher;
  return backend == "mpi" ? "mpirun" : "local";
}

}  // namespace dtb::core
