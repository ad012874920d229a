#include "worker/training_worker.h"

#include <cmath>
#include <thread>

#include "cuda/cuda_memory.h"
#include "cuda/cuda_probe.h"
#include "host/blocking_collective.h"
#include "worker/batch_view.h"
#include "worker/connect.h"
#include "worker/initial_weights.h"
#include "worker/rank_checkpoint.h"
#include "worker/rank_memory.h"

namespace dtb::core {
namespace {

// The cell's plugin of kind `kind` ("model", ...) and its parameters.
PluginChoice chosen(const Cell& cell, const std::string& kind) {
  return {cell.text(kind), cell.pluginParams(kind)};
}

// The learning rate a world of `world` ranks trains with: lr, times the
// world's size with lr_scaling = "linear" (Goyal et al.); elastic training
// applies it again to each new world, as Horovod Elastic's examples do.
double scaledLr(const Cell& cell, int world) {
  return cell.text("lr_scaling") == "linear" ? cell.real("lr") * world : cell.real("lr");
}

// fp16's loss scaling, from the run's DeepSpeed-named settings.
LossScalerConfig lossScalerConfig(const Cell& cell) {
  return {.initialScale = std::ldexp(1.0, static_cast<int>(cell.integer("initial_scale_power"))),
          .window = cell.integer("loss_scale_window"),
          .hysteresis = cell.integer("hysteresis"),
          .minScale = cell.real("min_loss_scale")};
}

OptimizerConfig optimizerConfig(const Cell& cell, int world) {
  OptimizerConfig config;
  config.kind = cell.text("optimizer");
  config.lr = scaledLr(cell, world);
  config.momentum = cell.real("momentum");
  config.nesterov = cell.flag("nesterov");
  config.weightDecay = cell.real("weight_decay");
  config.clipNorm = cell.real("gradient_clipping");
  config.fused = cell.flag("fused_optimizer");
  return config;
}

LrScheduleConfig scheduleConfig(const Cell& cell, int world) {
  LrScheduleConfig config;
  config.kind = cell.text("schedule");
  config.lr = cell.real("lr");
  config.peak = scaledLr(cell, world);
  config.epochs = cell.integer("epochs");
  config.warmupEpochs = cell.integer("warmup_epochs");
  config.stepEpochs = cell.integer("lr_step_epochs");
  config.stepGamma = cell.real("lr_step_gamma");
  config.expGamma = cell.real("lr_exp_gamma");
  return config;
}

// A collective failed or timed out: most likely a peer's doing (it died, or
// hangs), which elastic training survives.
bool isPeerFailure(const PluginCallError& e) {
  return e.status() == DTB_STATUS_COMM_FAILURE || e.status() == DTB_STATUS_TIMEOUT;
}

}  // namespace

void TrainingWorker::run() {
  PluginLoader loader = workerLoader(spec_);
  try {
    setUp(loader);
    train(loader);
  } catch (const LeftOutOfWorld& e) {
    // Elastic across hosts: its host left the run (discovery dropped it,
    // or it was blacklisted with a failed worker). Its work is done.
    records_.event(rank_, runSeconds(), "left", e.what());
    return;
  }
  records_.memory(rankMemory(plugins_, rank_));
  recordGradientProfile();
  writeTrace();
  if (elastic_) records_.event(rank_, runSeconds(), "parameters", parameterChecksum());
  // No rank leaves while a peer may still be finishing a collective with it.
  Communicator& comm = plugins_.comm();
  runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.barrier(r, e); });
}

// The run's epochs; an elastic run's failures and new worlds on the way.
void TrainingWorker::train(PluginLoader& loader) {
  const int64_t epochs = cell_.integer("epochs");
  std::optional<std::string> failure;  // elastic: why this rank left its world
  bool changes = false;                // elastic: a new world is entered at this commit
  for (;;) {
    try {
      if (failure || changes) enterNextWorld(loader, failure.has_value());
      failure.reset();
      changes = false;
      trainEpochs(epochs);
      break;
    } catch (const WorldChanges&) {
      changes = true;
    } catch (const PluginCallError& e) {
      if (!elastic_ || !isPeerFailure(e)) throw;
      leaveWorld(e.what());
      failure = e.what();
    }
  }
}

void TrainingWorker::setUp(PluginLoader& loader) {
  // A worker started to join, or after the coordinator decided a world past
  // the first (the hosts had fewer slots than world_size, or the first
  // world failed before this worker started), enters the newest one.
  if (elastic_ && (slot_ >= spec_.world || newestElasticGeneration(spec_.storeDir) > 0))
    adopt(waitForElasticWorld(spec_.storeDir, 1, worldWaitSeconds(), slot_));
  // The GPU this worker's model, batches and (over NCCL) backend use, from
  // the rank it starts as; it keeps it when a later elastic world numbers
  // it anew.
  if (cell_.text("device") == "cuda") gpu_ = gpuForLocalRank(placeRank(spec_, rank_).localRank);
  plugins_.openDataset(loader, chosen(cell_, "dataset"));
  epochSamples_ = samplesPerEpoch();
  openTrainingData(0);
  plugins_.createModel(loader, chosen(cell_, "model"), train_->info(), modelOptions());
  connectFirstWorld(loader);
  plugins_.createOptimizer(optimizerConfig(cell_, world_), parsePrecision(cell_.text("precision")),
                           lossScalerConfig(cell_));
  createStrategy(loader);
  at_ = resume();
  // In a later generation the others entered it from a commit: rank 0's
  // state and place become this worker's, as for any joiner. Where every
  // member entered it here (a first world decided anew), rank 0's first
  // step says the world formed, as after any new world.
  if (generation_ > 0) {
    syncWithRankZero();
    if (!recoveredNote_)
      recoveredNote_ = "entered generation " + std::to_string(generation_) + " (" + std::to_string(world_) +
                       " ranks) as it started";
  }
  if (elastic_) commit();  // the state a failure before the first commit goes back to
}

// In an elastic run a first world that cannot form — a host unreachable
// from the start, a peer that died before it got in — is left like any
// broken world, and the next the coordinator decides is tried: Horovod
// retries its first world without the hosts that failed. Nothing trained
// yet, so nothing goes back: rank 0's initial weights are everyone's.
void TrainingWorker::connectFirstWorld(PluginLoader& loader) {
  for (const int before = world_;;) {
    try {
      plugins_.connect(connectToWorld(loader));
      syncInitialWeights(plugins_.comm(), plugins_.params(), plugins_.paramCount());
      return;
    } catch (const PluginCallError& e) {
      if (!elastic_ || !isPeerFailure(e)) throw;
      leaveWorld(e.what());
      adopt(waitForElasticWorld(spec_.storeDir, generation_ + 1, worldWaitSeconds(), slot_));
      recoveredNote_ = "first world retried as generation " + std::to_string(generation_) + " (" +
                       std::to_string(before) + " -> " + std::to_string(world_) + " ranks)";
    }
  }
}

void TrainingWorker::createStrategy(PluginLoader& loader) {
  const LrScheduleConfig schedule = scheduleConfig(cell_, world_);
  schedule_.emplace(schedule);
  peakLr_ = schedule.peak;
  plugins_.createStrategy(loader, chosen(cell_, "strategy"), accumulation_);
  // (The step leaves the profile out where keeping it would cost a wait for
  // the GPU at every layer.)
  step_.emplace(plugins_.model(), plugins_.strategy(), plugins_.optimizer(), &plugins_.comm(),
                &gradientProfile_, plugins_.mixedPrecision());
  if (!spec_.traceDir.empty()) {
    if (!trace_) trace_ = std::make_unique<TraceRecorder>(rank_);
    plugins_.comm().traceTo(trace_.get());
    plugins_.strategy().services().traceTo(trace_.get());
  }
}

std::unique_ptr<Communicator> TrainingWorker::connectToWorld(PluginLoader& loader) const {
  RunSpec world = spec_;
  world.world = world_;
  world.prefix = elasticPrefix(spec_.prefix, generation_);
  std::unique_ptr<Communicator> comm = connectRank(world, rank_, loader, Control::kForHostTensors);
  comm->holdTimedOut(elastic_);  // see leaveWorld()
  return comm;
}

void TrainingWorker::openTrainingData(uint64_t offset) {
  SamplerConfig share{plugins_.splitSamples(0),
                      static_cast<uint64_t>(cell_.integer("dataset_scale")),
                      world_,
                      rank_,
                      true,
                      false,
                      static_cast<uint64_t>(cell_.integer("seed"))};
  share.end = epochSamples_;
  share.offset = std::min(offset, share.end);
  toGpu_.reset();  // it reads the loader
  train_.reset();  // its prefetch threads end before the next one's start
  if (pinsBatches() && !pinnedBatches_) {
    // Allocated on the loader's threads: on this worker's GPU, not GPU 0.
    const int gpu = gpu_.index;
    pinnedBatches_ =
        std::make_shared<BlockPool>([gpu](size_t bytes) { return pinnedAllocate(bytes, gpu); }, pinnedFree);
  }
  train_ = std::make_unique<DataLoader>(
      plugins_.dataset(),
      LoaderConfig{0, batch_, static_cast<int>(cell_.integer("loader_threads")), false, pinnedBatches_},
      DistributedSampler(share));
  loaderWorld_ = world_;
  loaderRank_ = rank_;
  loaderOffset_ = offset;
}

int64_t TrainingWorker::startLoader() {
  const uint64_t perStep = samplesPerStep();
  const bool same =
      loaderWorld_ == world_ && loaderRank_ == rank_ && loaderOffset_ == 0 && at_.evenSteps(perStep);
  if (!same) openTrainingData(at_.samplePositions);
  const uint64_t firstBatch = same ? static_cast<uint64_t>(at_.stepInEpoch) * accumulation_ : 0;
  train_->startEpoch(static_cast<uint64_t>(at_.epoch), firstBatch);
  prefetchToGpu();
  const uint64_t batches = train_->batchesPerEpoch();
  return static_cast<int64_t>((batches - std::min(batches, firstBatch)) / accumulation_);
}

bool TrainingWorker::pinsBatches() const {
  return cell_.text("device") == "cuda" && cell_.flag("pin_memory");
}

void TrainingWorker::prefetchToGpu() {
  if (toGpu_) {
    toGpu_->startEpoch();
    return;
  }
  // A model built before ABI 1.11 (or for the host only) copies its batch
  // itself in forward, from the pinned batch.
  if (!pinsBatches() || !(plugins_.modelApi().input_devices & DTB_MODEL_INPUTS_ON_DEVICE)) return;
  toGpu_ = std::make_unique<DevicePrefetcher>(
      *train_, makeGpuBatchCopier(gpu_.index, batch_ * train_->sampleElements()));
}

double TrainingWorker::dataWaitSeconds() const {
  return train_->waitSeconds() + (toGpu_ ? toGpu_->waitSeconds() : 0.0);
}

ModelOptions TrainingWorker::modelOptions() const {
  ModelOptions options;
  options.maxBatch = batch_;
  options.seed = static_cast<uint64_t>(cell_.integer("seed"));
  options.labelSmoothing = static_cast<float>(cell_.real("label_smoothing"));
  options.threads = threadsPerRank(cell_);
  if (cell_.text("device") == "cuda") {
    // The GPU this rank's backend joins with too (connectBackend).
    options.device = gpu_;
    if (options.device.type != DTB_DEVICE_CUDA)
      throw std::runtime_error("device = \"cuda\": rank " + std::to_string(rank_) +
                               " has no GPU: " + describe(probeCuda()));
  }
  return options;
}

uint64_t TrainingWorker::samplesPerEpoch() {
  const SamplerConfig first{plugins_.splitSamples(0),
                            static_cast<uint64_t>(cell_.integer("dataset_scale")),
                            spec_.world,
                            0,
                            true,
                            false,
                            0};
  const uint64_t batches = (DistributedSampler(first).samplesPerRank() + batch_ - 1) / batch_;
  const int64_t all = static_cast<int64_t>(batches) / accumulation_;
  const int64_t maxSteps = cell_.integer("max_steps_per_epoch");
  const int64_t steps = maxSteps > 0 ? std::min(all, maxSteps) : all;
  if (steps == 0)
    throw std::runtime_error(
        "an epoch has no full step: the dataset is too small for batch_size x accumulation_steps x "
        "world_size");
  // The whole split ends with a partial step (its last batch smaller): its
  // positions end with the split's, not with the steps' full batches.
  return std::min(
      static_cast<uint64_t>(steps) * uint64_t{accumulation_} * batch_ * static_cast<uint64_t>(spec_.world),
      first.datasetSize * first.scale);
}

int64_t TrainingWorker::epochLength() const {
  // What is left makes steps as a whole epoch of it would in this world:
  // shared out over the ranks (the tail padded), its last batch partial.
  const uint64_t left = epochSamples_ - std::min(epochSamples_, at_.samplePositions);
  const uint64_t world = static_cast<uint64_t>(world_);
  const uint64_t batches = ((left + world - 1) / world + batch_ - 1) / batch_;
  return at_.stepInEpoch + static_cast<int64_t>(batches / accumulation_);
}

EpochPosition TrainingWorker::resume() {
  if (spec_.checkpointDir.empty()) return {};
  requireSavableStrategy(plugins_);
  if (spec_.attempt > 0) {
    recoveredNote_ = "restart " + std::to_string(spec_.attempt) + ": resumed from step " +
                     std::to_string(std::max<int64_t>(spec_.resumeStep, 0));
  }
  if (spec_.resumeStep < 0) return {};
  const Checkpoint c = readCheckpoint(spec_.checkpointDir, rank_, static_cast<uint64_t>(spec_.resumeStep));
  restoreCheckpoint(plugins_, c);
  optimizerSteps_ = c.steps;
  return EpochPosition::after(c.epoch, c.stepInEpoch, samplesPerStep());
}

void TrainingWorker::saveCheckpoint() {
  epochEndCheckpoint_ = false;
  writeCheckpoint(spec_.checkpointDir, rank_,
                  captureCheckpoint(plugins_, optimizerSteps_, at_.epoch, at_.stepInEpoch));
  records_.flush();  // every step up to the checkpoint is stored, whatever comes next
}

void TrainingWorker::trainEpochs(int64_t epochs) {
  while (at_.epoch < epochs) {
    trainEpoch();
    at_ = EpochPosition{.epoch = at_.epoch + 1};
    sums_ = {};
    epochSoFar_ = {};
    epochStepsRun_ = 0;
    epochStart_.reset();
    if (epochEndCheckpoint_) saveCheckpoint();
    if (elastic_) commitAndCheckForChanges(true);
  }
}

void TrainingWorker::trainEpoch() {
  plugins_.modelApi().set_mode(plugins_.model().context(), DTB_MODE_TRAIN);
  const int64_t loadable = startLoader();
  if (!epochStart_) epochStart_ = Clock::now();
  // The loader holds the batches epochLength() counts (both share out what
  // is left of the epoch's positions the same way); the fewer, should they
  // ever differ.
  trainSteps(std::min(epochLength(), at_.stepInEpoch + loadable));
  std::vector<double> seconds = {since(*epochStart_)};
  records_.flush();  // every rank's steps leave at the end of each epoch
  const int64_t epoch = at_.epoch;
  // Before the host's own collectives: a strategy may still be exchanging
  // with ranks that are behind (an asynchronous parameter server whose
  // servers share the workers' ranks serves them from this hook), and
  // the epoch's all-reduces below would block this rank's thread meanwhile.
  epochHook(&dtb_strategy_plugin_v1_t::before_evaluation, "before_evaluation", epoch);
  // Mean phase times over ranks; sums of loss and counts; with an elastic
  // world that changed midway, what the earlier one committed too.
  allreduceDoubles(plugins_.comm(), seconds, DTB_REDUCE_AVG);
  EpochFigures figures = epochSoFar_;
  figures += reduceEpochSums(plugins_.comm(), sums_);
  const Evaluation test = evaluateTestSplit(plugins_, train_->info(), batch_, rank_, world_, *step_);
  epochHook(&dtb_strategy_plugin_v1_t::end_epoch, "end_epoch", epoch);
  if (rank_ == 0) records_.epoch(epochRecord(epoch, epochStepsRun_, seconds[0], figures, test));
  forwardPluginEvents();
}

void TrainingWorker::epochHook(EpochHook dtb_strategy_plugin_v1_t::*member, const char* name, int64_t epoch) {
  PluginInstance& strategy = plugins_.strategy();
  const EpochHook hook = strategy.plugin().descriptor<dtb_strategy_plugin_v1_t>().*member;
  if (!hook) return;
  strategy.check(name, hook(strategy.context(), static_cast<uint32_t>(epoch)));
  plugins_.comm().endPolling();  // a poll loop in the hook ends with it
}

void TrainingWorker::trainSteps(int64_t steps) {
  auto lastProgress = Clock::now();
  const int64_t epoch = at_.epoch;
  while (at_.stepInEpoch < steps) {
    plugins_.optimizer().setLearningRate(schedule_->at(epoch, at_.stepInEpoch, steps));
    injectFaults();
    const StepRecord record = measureStep(static_cast<uint32_t>(epoch));
    sums_.add(record);
    if (stepRecords_) {
      records_.step(record);
      for (const MetricRecord& m : takeMetrics(record.step)) records_.metric(m);
    }
    ++optimizerSteps_;
    at_.stepped(samplesPerStep());
    ++epochStepsRun_;
    if (recoveredNote_ && rank_ == 0) {
      records_.event(rank_, runSeconds(), "recovered",
                     *recoveredNote_ + ", step " + std::to_string(record.step) + " done with " +
                         std::to_string(world_) + " rank" + (world_ == 1 ? "" : "s"));
      records_.flush();
    }
    recoveredNote_.reset();
    const bool lastOfEpoch = at_.stepInEpoch == steps;
    if (checkpointEvery_ > 0 && lastOfEpoch) {
      // Every epoch ends with one, after its evaluation and record: a
      // restart never runs a finished epoch's end again.
      epochEndCheckpoint_ = true;
    } else if (checkpointEvery_ > 0 && optimizerSteps_ % checkpointEvery_ == 0) {
      saveCheckpoint();
    }
    if (rank_ == 0 && since(lastProgress) > 1.0) {
      records_.progress(static_cast<int>(epoch + 1), at_.stepInEpoch, steps,
                        (epochSoFar_.samples + sums_.samples * world_) / since(*epochStart_));
      lastProgress = Clock::now();
    }
    if (commitEvery_ > 0 && !lastOfEpoch && optimizerSteps_ % commitEvery_ == 0)
      commitAndCheckForChanges(false);
  }
}

void TrainingWorker::injectFaults() {
  if (optimizerSteps_ < furthestStep_) return;
  furthestStep_ =
      optimizerSteps_ + 1;  // before it strikes: a failure within this step must not bring it back
  faults_.beforeStep(optimizerSteps_, [&](const std::string& fault) {
    records_.event(rank_, runSeconds(), "fault", fault);
    records_.flush();  // a killed rank's last words
  });
  if (faults_.overflowsAt(optimizerSteps_)) plugins_.mixedPrecision()->poisonNextGradient();
  if (elastic_ && faults_.addsWorkerAt(optimizerSteps_)) {
    records_.grow(optimizerSteps_);
    records_.flush();
  }
}

EpochRecord TrainingWorker::epochRecord(int64_t epoch, int64_t steps, double seconds, const EpochFigures& f,
                                        const Evaluation& test) {
  Communicator& comm = plugins_.comm();
  EpochRecord e;
  e.epoch = static_cast<int>(epoch + 1);
  e.steps = steps;
  e.samples = static_cast<int64_t>(f.samples);
  e.seconds = seconds;
  for (const PhaseInfo& p : kPhases) {
    if (p.scope == PhaseScope::kPerEpoch) e.phases[p.id] = f.phases[p.id];
  }
  if (!comm.busySeconds()) e.phases[Phase::kCommTotal].reset();  // not counted: unknown, not zero
  e.trainLoss = f.lossSum / f.samples;
  e.trainAccuracy = f.correct / f.samples;
  e.testLoss = test.loss;
  e.testAccuracy = test.accuracy;
  e.bytesSent = static_cast<int64_t>(std::llround(f.bytes));  // the epoch's steps', not the run's so far
  e.collectives = static_cast<int64_t>(std::llround(f.collectives));
  e.stepBusBytes = f.busBytes / static_cast<double>(steps);
  return e;
}

StepRecord TrainingWorker::measureStep(uint32_t epoch) {
  StepRecord r;
  r.rank = rank_;
  r.step = static_cast<int64_t>(optimizerSteps_);
  r.epoch = static_cast<int>(epoch + 1);
  takeMetrics(r.step);  // what came between steps (evaluation's gathers) is no step's
  const int64_t begin = TraceRecorder::nowNs();
  const double dataBefore = dataWaitSeconds();
  const CommCounters commBefore = CommCounters::of(plugins_.comm());
  const double straggling = straggle();
  MicroBatchTotals micro = runMicroBatches(epoch);
  micro.timing[Phase::kForward] += straggling;  // a straggler computes slowly
  r.seconds = static_cast<double>(TraceRecorder::nowNs() - begin) / 1e9;
  setPhases(r, micro.timing);
  r.phases[Phase::kData] = dataWaitSeconds() - dataBefore;
  r.loss = micro.samples > 0 ? micro.lossSum / static_cast<double>(micro.samples) : NAN;
  r.samples = micro.samples;
  r.correct = micro.correct;
  setCommSince(r, commBefore, plugins_.comm());
  if (const MixedPrecision* mixed = plugins_.mixedPrecision(); mixed && mixed->scalesLoss()) {
    // The loss scaler's figures, as the step's metrics (view loss_scaling).
    hostMetrics_.push_back({0, rank_, r.step, "precision", "loss_scale", micro.lossScale});
    hostMetrics_.push_back({0, rank_, r.step, "precision", "skipped", micro.skipped ? 1.0 : 0.0});
  }
  if (plugins_.optimizer().clipNorm() > 0 && !std::isnan(micro.gradNorm)) {
    // Clipping's (view gradient_clipping); a skipped step measured no norm.
    hostMetrics_.push_back({0, rank_, r.step, "clipping", "grad_norm", micro.gradNorm});
    hostMetrics_.push_back({0, rank_, r.step, "clipping", "clip_factor", micro.clipFactor});
  }
  r.endedAtS = runSeconds();
  return r;
}

double TrainingWorker::straggle() {
  const double delay = faults_.delayAt(optimizerSteps_);
  if (delay <= 0) return 0;
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  return since(start);
}

MicroBatchTotals TrainingWorker::runMicroBatches(uint32_t epoch) {
  MicroBatchTotals totals;
  for (uint32_t micro = 0; micro < accumulation_; ++micro) {
    const int64_t dataBegin = TraceRecorder::nowNs();
    std::optional<Batch> b = toGpu_ ? toGpu_->next() : train_->next();
    if (!b) throw std::runtime_error("the data loader ran out of batches mid-epoch");
    dtb_batch_t view = batchView(*b, train_->info());
    dtb_step_info_t stepInfo{sizeof(dtb_step_info_t), optimizerSteps_, epoch, micro, accumulation_};
    const int64_t stepBegin = TraceRecorder::nowNs();
    const StepResult result = step_->run(view, stepInfo);
    if (trace_) traceStep(*trace_, dataBegin, stepBegin, result.timing);
    totals.timing += result.timing;
    totals.lossSum += result.loss * b->size;
    totals.correct += result.correct;
    totals.samples += b->size;
    totals.lossScale = result.lossScale;
    totals.skipped = totals.skipped || result.skipped;
    totals.gradNorm = result.gradNorm;  // the last micro-batch's: the one that steps
    totals.clipFactor = result.clipFactor;
  }
  return totals;
}

std::vector<MetricRecord> TrainingWorker::takeMetrics(int64_t step) {
  std::vector<MetricRecord> out = std::move(hostMetrics_);
  hostMetrics_.clear();
  const std::pair<const char*, PluginInstance*> plugins[] = {{"strategy", &plugins_.strategy()},
                                                             {"backend", &plugins_.comm().backend()},
                                                             {"model", &plugins_.model()},
                                                             {"dataset", &plugins_.dataset()}};
  for (const auto& [kind, plugin] : plugins) {
    for (const auto& [name, value] : plugin->services().takeMetrics()) {
      out.push_back({0, rank_, step, kind, name, value});
    }
  }
  return out;
}

void TrainingWorker::recordGradientProfile() {
  const double backwardS = gradientProfile_.backwardS();
  for (const ReadyGradient& g : gradientProfile_.gradients()) {
    records_.gradient({0, rank_, g.index, g.layer, g.name, static_cast<int64_t>(g.bytes), g.readyS, backwardS,
                       gradientProfile_.backwards()});
  }
}

void TrainingWorker::writeTrace() {
  if (!trace_) return;
  const std::filesystem::path file =
      std::filesystem::path(spec_.traceDir) / ("rank" + std::to_string(rank_) + ".trace.json");
  trace_->write(file);
  records_.event(rank_, runSeconds(), "trace", file.string());
}

void TrainingWorker::forwardPluginEvents() {
  std::vector<PluginInstance*> plugins = {&plugins_.model(), &plugins_.comm().backend()};
  if (plugins_.hasStrategy()) plugins.push_back(&plugins_.strategy());
  for (PluginInstance* plugin : plugins) {
    for (const HostServices::PluginEvent& e : plugin->services().takeEvents()) {
      records_.event(rank_, runSeconds() - since(e.at), e.kind, e.detail);
    }
  }
}

double TrainingWorker::runSeconds() const {
  return spec_.startedUnixNs > 0 ? spec_.runSeconds() : since(started_);
}

}  // namespace dtb::core
