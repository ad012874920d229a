#include "run/worker.h"

#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include "data/data_loader.h"
#include "host/trace_recorder.h"
#include "log/log.h"
#include "matrix/run_schema.h"
#include "run/batch_view.h"
#include "run/blocking_collective.h"
#include "run/connect.h"
#include "run/evaluation.h"
#include "run/fault_injector.h"
#include "run/initial_weights.h"
#include "run/rank_checkpoint.h"
#include "run/rank_memory.h"
#include "run/rank_plugins.h"
#include "run/step_measures.h"
#include "sweep/collective_sweep.h"
#include "train/lr_schedule.h"
#include "train/training_step.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The cell's plugin of kind `kind` ("model", ...) and its parameters.
PluginChoice chosen(const Cell& cell, const std::string& kind) {
  return {cell.text(kind), cell.pluginParams(kind)};
}

OptimizerConfig optimizerConfig(const Cell& cell) {
  OptimizerConfig config;
  config.kind = cell.text("optimizer");
  config.lr = cell.real(kEffectiveLrKey);
  config.momentum = cell.real("momentum");
  config.nesterov = cell.flag("nesterov");
  config.weightDecay = cell.real("weight_decay");
  return config;
}

LrScheduleConfig scheduleConfig(const Cell& cell) {
  LrScheduleConfig config;
  config.kind = cell.text("schedule");
  config.lr = cell.real("lr");
  config.peak = cell.real(kEffectiveLrKey);
  config.epochs = cell.integer("epochs");
  config.warmupEpochs = cell.integer("warmup_epochs");
  config.stepEpochs = cell.integer("lr_step_epochs");
  config.stepGamma = cell.real("lr_step_gamma");
  config.expGamma = cell.real("lr_exp_gamma");
  return config;
}

// What one epoch's steps add up to on this rank.
struct EpochSums {
  StepRecord phases;  // the epoch's phases, summed over its steps
  double lossSum = 0, correct = 0, samples = 0;

  void add(const StepRecord& step) {
    lossSum += *step.loss * static_cast<double>(*step.samples);
    correct += step.correct;
    samples += static_cast<double>(*step.samples);
    addPhases(phases, step);
  }
};

class Worker {
 public:
  Worker(const RunSpec& spec, int rank, RecordWriter& records)
      : spec_(spec),
        cell_(spec.cell),
        rank_(rank),
        records_(records),
        batch_(static_cast<uint32_t>(cell_.integer("batch_size"))),
        accumulation_(static_cast<uint32_t>(cell_.integer("accumulation_steps"))),
        stepRecords_(cell_.flag("step_records")),
        // A fault strikes once: a restarted run goes on without it.
        faults_(spec.attempt == 0 ? FaultPlan::of(cell_) : FaultPlan{}, rank),
        checkpointEvery_(
            spec.checkpointDir.empty() ? 0 : static_cast<uint64_t>(cell_.integer("checkpoint_every"))) {}

  void run() {
    PluginLoader loader = workerLoader(spec_);
    setUp(loader);
    TrainingStep step(plugins_.model(), plugins_.strategy(), plugins_.optimizer(), &plugins_.comm());
    const int64_t steps = stepsPerEpoch(), epochs = cell_.integer("epochs");
    const Resume from = resume();
    for (int64_t epoch = from.epoch; epoch < epochs; ++epoch) {
      trainEpoch(step, epoch, steps, epoch == from.epoch ? from.stepInEpoch : 0);
      if (epochEndCheckpoint_) saveCheckpoint(epoch + 1, 0);
    }
    records_.memory(rankMemory(plugins_, rank_));
    writeTrace();
    // No rank leaves while a peer may still be finishing a collective with it.
    Communicator& comm = plugins_.comm();
    runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.barrier(r, e); });
  }

 private:
  // The rank's plugins in the order each needs the ones before; the model is
  // identical on every rank before the strategy sees it.
  void setUp(PluginLoader& loader) {
    plugins_.openDataset(loader, chosen(cell_, "dataset"));
    openTrainingData();
    plugins_.createModel(loader, chosen(cell_, "model"), train_->info(), modelOptions());
    plugins_.connect(connectRank(spec_, rank_, loader));
    syncInitialWeights(plugins_.comm(), plugins_.params(), plugins_.paramCount());
    plugins_.createOptimizer(optimizerConfig(cell_));
    schedule_.emplace(scheduleConfig(cell_));
    plugins_.createStrategy(loader, chosen(cell_, "strategy"), accumulation_);
    if (!spec_.traceDir.empty()) {
      trace_ = std::make_unique<TraceRecorder>(rank_);
      plugins_.comm().traceTo(trace_.get());
      plugins_.strategy().services().traceTo(trace_.get());
    }
  }

  // This rank's share of the training split, reshuffled every epoch.
  void openTrainingData() {
    const uint64_t seed = static_cast<uint64_t>(cell_.integer("seed"));
    const SamplerConfig share{plugins_.splitSamples(0),
                              static_cast<uint64_t>(cell_.integer("dataset_scale")),
                              spec_.world,
                              rank_,
                              true,
                              false,
                              seed};
    train_ = std::make_unique<DataLoader>(
        plugins_.dataset(), LoaderConfig{0, batch_, static_cast<int>(cell_.integer("loader_threads")), false},
        DistributedSampler(share));
  }

  ModelOptions modelOptions() const {
    ModelOptions options;
    options.maxBatch = batch_;
    options.seed = static_cast<uint64_t>(cell_.integer("seed"));
    options.labelSmoothing = static_cast<float>(cell_.real("label_smoothing"));
    options.threads = threadsPerRank(cell_);
    return options;
  }

  int64_t stepsPerEpoch() const {
    const int64_t all = static_cast<int64_t>(train_->batchesPerEpoch()) / accumulation_;
    const int64_t maxSteps = cell_.integer("max_steps_per_epoch");
    const int64_t steps = maxSteps > 0 ? std::min(all, maxSteps) : all;
    if (steps == 0)
      throw std::runtime_error(
          "an epoch has no full step: the dataset is too small for batch_size x accumulation_steps x "
          "world_size");
    return steps;
  }

  // Where training goes on from: the start, or (recovery = "restart", after
  // a restart) the checkpoint the coordinator chose for every rank.
  struct Resume {
    int64_t epoch = 0, stepInEpoch = 0;
  };
  Resume resume() {
    if (spec_.checkpointDir.empty()) return {};
    requireSavableStrategy(plugins_);
    if (spec_.attempt > 0) resumed_ = static_cast<uint64_t>(std::max<int64_t>(spec_.resumeStep, 0));
    if (spec_.resumeStep < 0) return {};
    const Checkpoint c = readCheckpoint(spec_.checkpointDir, rank_, static_cast<uint64_t>(spec_.resumeStep));
    restoreCheckpoint(plugins_, c);
    optimizerSteps_ = c.steps;
    return {c.epoch, c.stepInEpoch};
  }

  // This rank's checkpoint of the steps done so far, the next being step
  // `stepInEpoch` of `epoch`.
  void saveCheckpoint(int64_t epoch, int64_t stepInEpoch) {
    epochEndCheckpoint_ = false;
    writeCheckpoint(spec_.checkpointDir, rank_,
                    captureCheckpoint(plugins_, optimizerSteps_, epoch, stepInEpoch));
    records_.flush();  // every step up to the checkpoint is stored, whatever comes next
  }

  // Trains one epoch from step `first` (0, or where a restart resumed it),
  // evaluates, and reports it (rank 0, with the phases averaged and the
  // counts summed over the ranks).
  void trainEpoch(TrainingStep& step, int64_t epoch, int64_t steps, int64_t first) {
    plugins_.modelApi().set_mode(plugins_.model().context(), DTB_MODE_TRAIN);
    train_->startEpoch(static_cast<uint64_t>(epoch), static_cast<uint64_t>(first * accumulation_));
    const double dataBefore = train_->waitSeconds();
    const auto epochStart = Clock::now();
    const EpochSums sums = trainSteps(step, epoch, first, steps, epochStart);
    const double seconds = since(epochStart);
    records_.flush();  // every rank's steps leave at the end of each epoch
    // Mean phase times over ranks; sums of loss and counts.
    const StepRecord& sum = sums.phases;
    std::vector<double> phases = {seconds,           train_->waitSeconds() - dataBefore,
                                  *sum.forwardS,     *sum.backwardS,
                                  *sum.commExposedS, *sum.optimizerS,
                                  *sum.commTotalS};
    allreduceDoubles(plugins_.comm(), phases, DTB_REDUCE_AVG);
    std::vector<double> totals = {sums.lossSum, sums.correct, sums.samples};
    allreduceDoubles(plugins_.comm(), totals, DTB_REDUCE_SUM);
    epochHook(&dtb_strategy_plugin_v1_t::before_evaluation, "before_evaluation", epoch);
    const Evaluation test = evaluateTestSplit(plugins_, train_->info(), batch_, rank_, spec_.world, step);
    epochHook(&dtb_strategy_plugin_v1_t::end_epoch, "end_epoch", epoch);
    if (rank_ == 0) records_.epoch(epochRecord(epoch, steps - first, phases, totals, sum, test));
    forwardPluginEvents();
  }

  // The strategy's before_evaluation or end_epoch (ABI 1.3), where it has
  // one: a descriptor of 1.2 or older reads as NULL here (copyGrowable).
  // Every rank calls it at the same point, after the epoch's collectives
  // above, so the strategy may issue its own. Outside every step: its time
  // is in no phase, and what it adds with metric_add is no step's (dropped
  // by the next step's takeMetrics); its events are forwarded below.
  using EpochHook = dtb_status_t (*)(void*, uint32_t);
  void epochHook(EpochHook dtb_strategy_plugin_v1_t::*member, const char* name, int64_t epoch) {
    PluginInstance& strategy = plugins_.strategy();
    const EpochHook hook = strategy.plugin().descriptor<dtb_strategy_plugin_v1_t>().*member;
    if (!hook) return;
    strategy.check(name, hook(strategy.context(), static_cast<uint32_t>(epoch)));
    plugins_.comm().endPolling();  // a poll loop in the hook ends with it
  }

  EpochSums trainSteps(TrainingStep& step, int64_t epoch, int64_t first, int64_t steps,
                       Clock::time_point epochStart) {
    EpochSums sums;
    auto lastProgress = Clock::now();
    for (int64_t s = first; s < steps; ++s) {
      plugins_.optimizer().setLearningRate(schedule_->at(epoch, s, steps));
      faults_.beforeStep(optimizerSteps_, [&](const std::string& fault) {
        records_.event(rank_, runSeconds(), "fault", fault);
        records_.flush();  // a killed rank's last words
      });
      const StepRecord record = measureStep(step, static_cast<uint32_t>(epoch));
      sums.add(record);
      if (stepRecords_) {
        records_.step(record);
        for (const MetricRecord& m : takeMetrics(record.step)) records_.metric(m);
      }
      ++optimizerSteps_;
      if (resumed_ && rank_ == 0) {
        records_.event(rank_, runSeconds(), "recovered",
                       "restart " + std::to_string(spec_.attempt) + ": step " + std::to_string(record.step) +
                           " done, resumed from step " + std::to_string(*resumed_));
        records_.flush();
      }
      resumed_.reset();
      if (checkpointEvery_ > 0 && s + 1 == steps) {
        // Every epoch ends with one, after its evaluation and record: a
        // restart never runs a finished epoch's end again.
        epochEndCheckpoint_ = true;
      } else if (checkpointEvery_ > 0 && optimizerSteps_ % checkpointEvery_ == 0) {
        saveCheckpoint(epoch, s + 1);
      }
      if (rank_ == 0 && since(lastProgress) > 1.0) {
        records_.progress(static_cast<int>(epoch + 1), s + 1, steps,
                          sums.samples * spec_.world / since(epochStart));
        lastProgress = Clock::now();
      }
    }
    return sums;
  }

  EpochRecord epochRecord(int64_t epoch, int64_t steps, const std::vector<double>& phases,
                          const std::vector<double>& totals, const StepRecord& sum, const Evaluation& test) {
    Communicator& comm = plugins_.comm();
    EpochRecord e;
    e.epoch = static_cast<int>(epoch + 1);
    e.steps = steps;
    e.samples = static_cast<int64_t>(totals[2]);
    e.seconds = phases[0];
    e.dataS = phases[1];
    e.forwardS = phases[2];
    e.backwardS = phases[3];
    e.commExposedS = phases[4];
    e.optimizerS = phases[5];
    if (comm.busySeconds()) e.commTotalS = phases[6];
    e.trainLoss = totals[0] / totals[2];
    e.trainAccuracy = totals[1] / totals[2];
    e.testLoss = test.loss;
    e.testAccuracy = test.accuracy;
    e.bytesSent = static_cast<int64_t>(comm.bytes());
    e.collectives = static_cast<int64_t>(comm.collectives());
    e.stepBusBytes = *sum.busBytes / static_cast<double>(steps);
    return e;
  }

  // One optimizer step (its micro-batches) of this rank, timed phase by
  // phase from the moment it asks the loader for data.
  StepRecord measureStep(TrainingStep& step, uint32_t epoch) {
    StepRecord r;
    r.rank = rank_;
    r.step = static_cast<int64_t>(optimizerSteps_);
    r.epoch = static_cast<int>(epoch + 1);
    takeMetrics(r.step);  // what came between steps (evaluation's gathers) is no step's
    const int64_t begin = TraceRecorder::nowNs();
    const double dataBefore = train_->waitSeconds();
    const CommCounters commBefore = CommCounters::of(plugins_.comm());
    const double straggling = straggle();
    MicroBatchTotals micro = runMicroBatches(step, epoch);
    micro.timing.forwardS += straggling;  // a straggler computes slowly
    r.seconds = static_cast<double>(TraceRecorder::nowNs() - begin) / 1e9;
    setPhases(r, micro.timing);
    r.dataS = train_->waitSeconds() - dataBefore;
    r.loss = micro.samples > 0 ? micro.lossSum / static_cast<double>(micro.samples) : NAN;
    r.samples = micro.samples;
    r.correct = micro.correct;
    setCommSince(r, commBefore, plugins_.comm());
    return r;
  }

  // A slow fault's delay before this step, on its rank; the seconds it took.
  double straggle() {
    const double delay = faults_.delayAt(optimizerSteps_);
    if (delay <= 0) return 0;
    const auto start = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    return since(start);
  }

  // The accumulation_steps micro-batches of one optimizer step.
  MicroBatchTotals runMicroBatches(TrainingStep& step, uint32_t epoch) {
    MicroBatchTotals totals;
    for (uint32_t micro = 0; micro < accumulation_; ++micro) {
      const int64_t dataBegin = TraceRecorder::nowNs();
      std::optional<Batch> b = train_->next();
      if (!b) throw std::runtime_error("the data loader ran out of batches mid-epoch");
      dtb_batch_t view = batchView(*b, train_->info());
      dtb_step_info_t stepInfo{sizeof(dtb_step_info_t), optimizerSteps_, epoch, micro, accumulation_};
      const int64_t stepBegin = TraceRecorder::nowNs();
      const StepResult result = step.run(view, stepInfo);
      if (trace_) traceStep(*trace_, dataBegin, stepBegin, result.timing);
      totals.timing += result.timing;
      totals.lossSum += result.loss * b->size;
      totals.correct += result.correct;
      totals.samples += b->size;
    }
    return totals;
  }

  // What the plugins added with host->metric_add since the last take.
  std::vector<MetricRecord> takeMetrics(int64_t step) {
    std::vector<MetricRecord> out;
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

  // Writes this rank's trace where the coordinator asked, and says where.
  void writeTrace() {
    if (!trace_) return;
    const std::filesystem::path file =
        std::filesystem::path(spec_.traceDir) / ("rank" + std::to_string(rank_) + ".trace.json");
    trace_->write(file);
    records_.event(rank_, runSeconds(), "trace", file.string());
  }

  // What the plugins reported with host->event() (a strategy's rebucket,
  // overflow, ...) goes to the store's event table, stamped from the run's start.
  void forwardPluginEvents() {
    for (PluginInstance* plugin : {&plugins_.model(), &plugins_.strategy(), &plugins_.comm().backend()}) {
      for (const HostServices::PluginEvent& e : plugin->services().takeEvents()) {
        records_.event(rank_, runSeconds() - since(e.at), e.kind, e.detail);
      }
    }
  }

  // Seconds since the run began (the coordinator's clock, so that events of
  // a restarted run's workers and the coordinator's own line up), else since
  // this worker began.
  double runSeconds() const { return spec_.startedUnixNs > 0 ? spec_.runSeconds() : since(started_); }

  const RunSpec& spec_;
  const Cell& cell_;
  int rank_;
  RecordWriter& records_;
  const uint32_t batch_;             // samples per micro-batch on this rank
  const uint32_t accumulation_;      // micro-batches per optimizer step
  const bool stepRecords_;           // every step stored, not only epochs
  const FaultInjector faults_;       // the cell's [fault], if it strikes this rank
  const uint64_t checkpointEvery_;   // recovery = "restart": steps between checkpoints; 0 none
  bool epochEndCheckpoint_ = false;  // one is due once the epoch is recorded
  std::optional<uint64_t> resumed_;  // the step a restart resumed from, until its first step is done
  const Clock::time_point started_ = Clock::now();
  uint64_t optimizerSteps_ = 0;  // of the run so far
  std::optional<LrSchedule> schedule_;
  // Destroyed in reverse: the training data before the dataset it reads,
  // the plugins, then the trace they all record into.
  std::unique_ptr<TraceRecorder> trace_;  // trace = true
  RankPlugins plugins_;
  std::unique_ptr<DataLoader> train_;
};

}  // namespace

int runWorker(const RunSpec& spec, int rank, RecordWriter& records) {
  try {
    if (spec.sweep) {
      PluginLoader loader = workerLoader(spec);
      std::unique_ptr<Communicator> comm = connectRank(spec, rank, loader);
      runCollectiveSweep(*spec.sweep, *comm, rank, spec.world, records);
    } else {
      Worker(spec, rank, records).run();
    }
    records.done(rank);
    return 0;
  } catch (const std::exception& e) {
    // A failed or timed-out collective is most likely a peer's doing; the
    // coordinator prefers other ranks' own errors as the cause.
    const auto* call = dynamic_cast<const PluginCallError*>(&e);
    const bool peer =
        call && (call->status() == DTB_STATUS_COMM_FAILURE || call->status() == DTB_STATUS_TIMEOUT);
    records.error(rank, peer, e.what());
    log(DTB_LOG_ERROR, "worker " + std::to_string(rank), e.what());
    return 1;
  }
}

}  // namespace dtb::core
