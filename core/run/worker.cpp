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
#include "run/elastic_sync.h"
#include "run/elastic_world.h"
#include "run/epoch_sums.h"
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

// The learning rate a world of `world` ranks trains with: lr, times the
// world's size with lr_scaling = "linear" (Goyal et al.); elastic training
// applies it again to each new world, as Horovod Elastic's examples do.
double scaledLr(const Cell& cell, int world) {
  return cell.text("lr_scaling") == "linear" ? cell.real("lr") * world : cell.real("lr");
}

OptimizerConfig optimizerConfig(const Cell& cell, int world) {
  OptimizerConfig config;
  config.kind = cell.text("optimizer");
  config.lr = scaledLr(cell, world);
  config.momentum = cell.real("momentum");
  config.nesterov = cell.flag("nesterov");
  config.weightDecay = cell.real("weight_decay");
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

// Thrown at a commit where the coordinator has let a worker join: every rank
// leaves its world there for the next (Horovod's HostsUpdatedInterrupt).
struct WorldGrows {};

class Worker {
 public:
  Worker(const RunSpec& spec, int slot, RecordWriter& records)
      : spec_(spec),
        cell_(spec.cell),
        slot_(slot),
        rank_(slot),
        world_(spec.world),
        records_(records),
        batch_(static_cast<uint32_t>(cell_.integer("batch_size"))),
        accumulation_(static_cast<uint32_t>(cell_.integer("accumulation_steps"))),
        stepRecords_(cell_.flag("step_records")),
        // A fault strikes once: a restarted run goes on without it.
        faults_(spec.attempt == 0 ? FaultPlan::of(cell_) : FaultPlan{}, slot),
        checkpointEvery_(
            spec.checkpointDir.empty() ? 0 : static_cast<uint64_t>(cell_.integer("checkpoint_every"))),
        elastic_(cell_.text("recovery") == "elastic"),
        commitEvery_(elastic_ ? static_cast<uint64_t>(cell_.integer("commit_every")) : 0) {}

  void run() {
    PluginLoader loader = workerLoader(spec_);
    setUp(loader);
    const int64_t epochs = cell_.integer("epochs");
    std::optional<std::string> failure;  // elastic: why this rank left its world
    bool grows = false;                  // elastic: a worker joins at this commit
    for (;;) {
      try {
        if (failure || grows) enterNextWorld(loader, failure.has_value());
        failure.reset();
        grows = false;
        trainEpochs(epochs);
        break;
      } catch (const WorldGrows&) {
        grows = true;
      } catch (const PluginCallError& e) {
        if (!elastic_ || !isPeerFailure(e)) throw;
        leaveWorld(e.what());
        failure = e.what();
      }
    }
    records_.memory(rankMemory(plugins_, rank_));
    writeTrace();
    if (elastic_) records_.event(rank_, runSeconds(), "parameters", parameterChecksum());
    // No rank leaves while a peer may still be finishing a collective with it.
    Communicator& comm = plugins_.comm();
    runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.barrier(r, e); });
  }

 private:
  // The rank's plugins in the order each needs the ones before; the model is
  // identical on every rank before the strategy sees it. A worker the
  // coordinator started to join an elastic run first learns its world, and
  // gets rank 0's state once the strategy is there.
  void setUp(PluginLoader& loader) {
    const bool joining = elastic_ && slot_ >= spec_.world;
    if (joining) adopt(waitForElasticWorld(spec_.storeDir, 1, worldWaitSeconds(), slot_));
    plugins_.openDataset(loader, chosen(cell_, "dataset"));
    epochSamples_ = samplesPerEpoch();
    openTrainingData(0);
    plugins_.createModel(loader, chosen(cell_, "model"), train_->info(), modelOptions());
    plugins_.connect(connectToWorld(loader));
    syncInitialWeights(plugins_.comm(), plugins_.params(), plugins_.paramCount());
    plugins_.createOptimizer(optimizerConfig(cell_, world_));
    createStrategy(loader);
    at_ = resume();
    if (joining) syncWithRankZero();
    if (elastic_) commit();  // the state a failure before the first commit goes back to
  }

  void createStrategy(PluginLoader& loader) {
    schedule_.emplace(scheduleConfig(cell_, world_));
    plugins_.createStrategy(loader, chosen(cell_, "strategy"), accumulation_);
    step_.emplace(plugins_.model(), plugins_.strategy(), plugins_.optimizer(), &plugins_.comm());
    if (!spec_.traceDir.empty()) {
      if (!trace_) trace_ = std::make_unique<TraceRecorder>(rank_);
      plugins_.comm().traceTo(trace_.get());
      plugins_.strategy().services().traceTo(trace_.get());
    }
  }

  // This world's communicator: the run's rendezvous, under the prefix of
  // its elastic generation.
  std::unique_ptr<Communicator> connectToWorld(PluginLoader& loader) const {
    RunSpec world = spec_;
    world.world = world_;
    world.prefix = elasticPrefix(spec_.prefix, generation_);
    std::unique_ptr<Communicator> comm = connectRank(world, rank_, loader);
    comm->holdTimedOut(elastic_);  // see leaveWorld()
    return comm;
  }

  // This rank's share of the training split from `offset` on (positions of
  // the epoch's order already trained on), reshuffled every epoch.
  void openTrainingData(uint64_t offset) {
    SamplerConfig share{plugins_.splitSamples(0),
                        static_cast<uint64_t>(cell_.integer("dataset_scale")),
                        world_,
                        rank_,
                        true,
                        false,
                        static_cast<uint64_t>(cell_.integer("seed"))};
    share.offset = std::min(offset, share.datasetSize * share.scale);
    train_.reset();  // its prefetch threads end before the next one's start
    train_ = std::make_unique<DataLoader>(
        plugins_.dataset(), LoaderConfig{0, batch_, static_cast<int>(cell_.integer("loader_threads")), false},
        DistributedSampler(share));
    loaderWorld_ = world_;
    loaderRank_ = rank_;
    loaderOffset_ = offset;
  }

  // Starts the loader at `at_`: the same loader from the batch reached when
  // the world never changed this epoch, else one over what is left of it.
  // Returns the optimizer steps it can still give this epoch.
  int64_t startLoader() {
    const uint64_t perStep = samplesPerStep();
    const bool same = loaderWorld_ == world_ && loaderRank_ == rank_ && loaderOffset_ == 0 &&
                      at_.samplePositions == static_cast<uint64_t>(at_.stepInEpoch) * perStep;
    if (!same) openTrainingData(at_.samplePositions);
    const uint64_t firstBatch = same ? static_cast<uint64_t>(at_.stepInEpoch) * accumulation_ : 0;
    train_->startEpoch(static_cast<uint64_t>(at_.epoch), firstBatch);
    const uint64_t batches = train_->batchesPerEpoch();
    return static_cast<int64_t>((batches - std::min(batches, firstBatch)) / accumulation_);
  }

  ModelOptions modelOptions() const {
    ModelOptions options;
    options.maxBatch = batch_;
    options.seed = static_cast<uint64_t>(cell_.integer("seed"));
    options.labelSmoothing = static_cast<float>(cell_.real("label_smoothing"));
    options.threads = threadsPerRank(cell_);
    return options;
  }

  // Samples of the epoch's order one optimizer step of the world trains on.
  uint64_t samplesPerStep() const { return uint64_t{accumulation_} * batch_ * static_cast<uint64_t>(world_); }

  // The samples one epoch trains on: its steps in the run's first world
  // (max_steps_per_epoch or the whole split) times that world's step. An
  // elastic world that changes mid-epoch trains on what is left of them.
  uint64_t samplesPerEpoch() {
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
    return static_cast<uint64_t>(steps) * uint64_t{accumulation_} * batch_ *
           static_cast<uint64_t>(spec_.world);
  }

  // The steps of the current epoch: those done and those what is left of its
  // samples makes in this world.
  int64_t epochLength() const {
    const uint64_t left = epochSamples_ - std::min(epochSamples_, at_.samplePositions);
    return at_.stepInEpoch + static_cast<int64_t>(left / samplesPerStep());
  }

  // Where training goes on from: the start, or (recovery = "restart", after
  // a restart) the checkpoint the coordinator chose for every rank.
  EpochPosition resume() {
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
    return {c.epoch, c.stepInEpoch, static_cast<uint64_t>(c.stepInEpoch) * samplesPerStep()};
  }

  // This rank's checkpoint of the steps done so far (recovery = "restart").
  void saveCheckpoint() {
    epochEndCheckpoint_ = false;
    writeCheckpoint(spec_.checkpointDir, rank_,
                    captureCheckpoint(plugins_, optimizerSteps_, at_.epoch, at_.stepInEpoch));
    records_.flush();  // every step up to the checkpoint is stored, whatever comes next
  }

  // The epochs from `at_` on; each ends with its checkpoint (restart) or
  // commit (elastic) once it is recorded, so that no recovery runs a
  // finished epoch's end again.
  void trainEpochs(int64_t epochs) {
    while (at_.epoch < epochs) {
      trainEpoch();
      at_ = {at_.epoch + 1, 0, 0};
      sums_ = {};
      epochSoFar_ = {};
      epochStepsRun_ = 0;
      epochStart_.reset();
      if (epochEndCheckpoint_) saveCheckpoint();
      if (elastic_) commitAndCheckForWorkers(true);
    }
  }

  // Trains the current epoch from `at_`, evaluates, and reports it (rank 0,
  // with the phases averaged and the counts summed over the ranks).
  void trainEpoch() {
    plugins_.modelApi().set_mode(plugins_.model().context(), DTB_MODE_TRAIN);
    const int64_t loadable = startLoader();
    if (!epochStart_) epochStart_ = Clock::now();
    // An epoch that changed its world midway may have fewer full batches
    // left on a rank than its samples make steps (padding, a partial last batch).
    trainSteps(std::min(epochLength(), at_.stepInEpoch + loadable));
    std::vector<double> seconds = {since(*epochStart_)};
    records_.flush();  // every rank's steps leave at the end of each epoch
    // Mean phase times over ranks; sums of loss and counts; with an elastic
    // world that changed midway, what the earlier one committed too.
    allreduceDoubles(plugins_.comm(), seconds, DTB_REDUCE_AVG);
    EpochFigures figures = epochSoFar_;
    figures += reduceEpochSums(plugins_.comm(), sums_);
    const int64_t epoch = at_.epoch;
    epochHook(&dtb_strategy_plugin_v1_t::before_evaluation, "before_evaluation", epoch);
    const Evaluation test = evaluateTestSplit(plugins_, train_->info(), batch_, rank_, world_, *step_);
    epochHook(&dtb_strategy_plugin_v1_t::end_epoch, "end_epoch", epoch);
    if (rank_ == 0) records_.epoch(epochRecord(epoch, epochStepsRun_, seconds[0], figures, test));
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

  // Steps up to step `steps` of the current epoch.
  void trainSteps(int64_t steps) {
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
      ++at_.stepInEpoch;
      at_.samplePositions += samplesPerStep();
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
        commitAndCheckForWorkers(false);
    }
  }

  // The cell's [fault] before the next step, the first time the run reaches
  // it (an elastic rollback runs steps again, not their faults).
  void injectFaults() {
    if (optimizerSteps_ < furthestStep_) return;
    furthestStep_ =
        optimizerSteps_ + 1;  // before it strikes: a failure within this step must not bring it back
    faults_.beforeStep(optimizerSteps_, [&](const std::string& fault) {
      records_.event(rank_, runSeconds(), "fault", fault);
      records_.flush();  // a killed rank's last words
    });
    if (elastic_ && faults_.addsWorkerAt(optimizerSteps_)) {
      records_.grow(optimizerSteps_);
      records_.flush();
    }
  }

  // ---- Elastic training (recovery = "elastic", Horovod Elastic's way) ----

  // Horovod's state.commit(): a copy of the state in memory, then a look for
  // workers the coordinator has let in — rank 0 looks, every rank learns, so
  // that all leave for the next world at the same step.
  // Mid-epoch, the same collective adds the ranks' epoch sums to the
  // epoch's figures so far (a world that changes later in the epoch loses
  // none of them), and the commit follows it. At an epoch's end, once it is
  // recorded, the commit comes first: a failure of the collective then goes
  // back to the next epoch's start, and no finished epoch runs its end again.
  void commitAndCheckForWorkers(bool epochEnd) {
    double grows = rank_ == 0 && readElasticWorld(spec_.storeDir, generation_ + 1) ? 1.0 : 0.0;
    if (epochEnd) {
      commit();
      std::vector<double> flag = {grows};
      allreduceDoubles(plugins_.comm(), flag, DTB_REDUCE_MAX);
      grows = flag[0];
    } else {
      epochSoFar_ += reduceEpochSums(plugins_.comm(), sums_, &grows);
      sums_ = {};
      commit();
    }
    if (grows > 0) throw WorldGrows{};
  }

  void commit() {
    commit_ = Commit{captureCheckpoint(plugins_, optimizerSteps_, at_.epoch, at_.stepInEpoch), at_,
                     epochSoFar_, epochStepsRun_, epochStart_};
  }

  // A collective of this world failed: the strategy and the broken
  // communicator go, and the coordinator hears that this rank waits for the
  // next world, with the step of its last commit.
  // Before anything goes, every operation of the broken communicator ends
  // (those the strategy never waited for, and those whose wait timed out):
  // none may then write into a buffer freed with the strategy. One that
  // outlives the timeout makes going on unsafe: the worker ends instead.
  // Safe to call again when entering the next world failed halfway.
  void leaveWorld(const std::string& why) {
    records_.reset(generation_, commit_ ? commit_->state.steps : 0, why);
    records_.flush();
    if (!plugins_.inWorld()) return;
    forwardPluginEvents();  // what the strategy reported goes with it
    Communicator& comm = plugins_.comm();
    if (!comm.abandon(comm.defaultTimeout()))
      throw std::runtime_error("rank " + std::to_string(rank_) +
                               " cannot leave its broken world: a collective still "
                               "runs " +
                               std::to_string(comm.defaultTimeout().count()) + " ms after " + why);
    step_.reset();
    plugins_.leaveWorld();
  }

  // Waits for the coordinator's next world (after a failure: the survivors;
  // at a commit: the members and who joins), goes back to the last commit,
  // meets the new world and takes rank 0's state, as Horovod's reset() and
  // state.sync() do. Throws when this rank is not in it.
  void enterNextWorld(PluginLoader& loader, bool failed) {
    if (!failed) {  // at a commit: nothing is in flight
      forwardPluginEvents();
      step_.reset();
      plugins_.leaveWorld();
    }
    const ElasticWorld next = waitForElasticWorld(spec_.storeDir, generation_ + 1, worldWaitSeconds(), slot_);
    const int before = world_;
    adopt(next);
    // Everyone goes back to its last commit (after a join: the one just
    // made); rank 0's then becomes everyone's.
    at_ = commit_->position;
    sums_ = {};
    epochSoFar_ = commit_->epochSoFar;
    epochStepsRun_ = commit_->stepsRun;
    epochStart_ = commit_->epochStart;
    optimizerSteps_ = commit_->state.steps;
    restoreParameters(plugins_, commit_->state);
    plugins_.connect(connectToWorld(loader));
    syncInitialWeights(plugins_.comm(), plugins_.params(), plugins_.paramCount());
    createStrategy(loader);
    restoreState(plugins_, commit_->state);
    syncWithRankZero();
    commit();
    recoveredNote_ = std::string(next.rollback ? "reset" : "join") + " to generation " +
                     std::to_string(generation_) + " (" + std::to_string(before) + " -> " +
                     std::to_string(world_) + " ranks): from step " + std::to_string(optimizerSteps_);
  }

  // Also rank 0's epoch so far (a joining worker's first epoch record must
  // count what was trained before it came).
  void syncWithRankZero() {
    const EpochFigures& f = epochSoFar_;
    std::vector<double> epoch = {epochStart_ ? since(*epochStart_) : 0.0,
                                 static_cast<double>(epochStepsRun_),
                                 f.dataS,
                                 f.forwardS,
                                 f.backwardS,
                                 f.commExposedS,
                                 f.optimizerS,
                                 f.commTotalS,
                                 f.busBytes,
                                 f.lossSum,
                                 f.correct,
                                 f.samples};
    const SyncedProgress synced = syncFromRankZero(plugins_, optimizerSteps_, at_, epoch);
    optimizerSteps_ = synced.steps;
    at_ = synced.position;
    epochStart_ =
        Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(epoch[0]));
    epochStepsRun_ = static_cast<int64_t>(epoch[1]);
    epochSoFar_ = {epoch[2], epoch[3], epoch[4], epoch[5],  epoch[6],
                   epoch[7], epoch[8], epoch[9], epoch[10], epoch[11]};
  }

  void adopt(const ElasticWorld& world) {
    generation_ = world.generation;
    rank_ = world.rankOf(slot_);
    world_ = world.size();
  }

  // How long a rank waits for its next world: the coordinator may first wait
  // out the survivors' collective timeouts, then elastic_timeout_s for
  // workers when the world fell below min_np.
  double worldWaitSeconds() const {
    return cell_.real("elastic_timeout_s") + 2 * cell_.real("collective_timeout_s") + 30;
  }

  // A checksum of this rank's parameters, to show the ranks end alike.
  std::string parameterChecksum() const {
    double sum = 0;
    for (uint32_t i = 0; i < plugins_.paramCount(); ++i) {
      const auto* v = static_cast<const float*>(plugins_.params()[i]->value.data);
      for (uint64_t k = 0; k < plugins_.params()[i]->value.count; ++k) sum += v[k] * double(k % 7 + 1);
    }
    char text[64];
    std::snprintf(text, sizeof(text), "checksum %.17g", sum);
    return text;
  }

  EpochRecord epochRecord(int64_t epoch, int64_t steps, double seconds, const EpochFigures& f,
                          const Evaluation& test) {
    Communicator& comm = plugins_.comm();
    EpochRecord e;
    e.epoch = static_cast<int>(epoch + 1);
    e.steps = steps;
    e.samples = static_cast<int64_t>(f.samples);
    e.seconds = seconds;
    e.dataS = f.dataS;
    e.forwardS = f.forwardS;
    e.backwardS = f.backwardS;
    e.commExposedS = f.commExposedS;
    e.optimizerS = f.optimizerS;
    if (comm.busySeconds()) e.commTotalS = f.commTotalS;
    e.trainLoss = f.lossSum / f.samples;
    e.trainAccuracy = f.correct / f.samples;
    e.testLoss = test.loss;
    e.testAccuracy = test.accuracy;
    e.bytesSent = static_cast<int64_t>(comm.bytes());
    e.collectives = static_cast<int64_t>(comm.collectives());
    e.stepBusBytes = f.busBytes / static_cast<double>(steps);
    return e;
  }

  // One optimizer step (its micro-batches) of this rank, timed phase by
  // phase from the moment it asks the loader for data.
  StepRecord measureStep(uint32_t epoch) {
    StepRecord r;
    r.rank = rank_;
    r.step = static_cast<int64_t>(optimizerSteps_);
    r.epoch = static_cast<int>(epoch + 1);
    takeMetrics(r.step);  // what came between steps (evaluation's gathers) is no step's
    const int64_t begin = TraceRecorder::nowNs();
    const double dataBefore = train_->waitSeconds();
    const CommCounters commBefore = CommCounters::of(plugins_.comm());
    const double straggling = straggle();
    MicroBatchTotals micro = runMicroBatches(epoch);
    micro.timing.forwardS += straggling;  // a straggler computes slowly
    r.seconds = static_cast<double>(TraceRecorder::nowNs() - begin) / 1e9;
    setPhases(r, micro.timing);
    r.dataS = train_->waitSeconds() - dataBefore;
    r.loss = micro.samples > 0 ? micro.lossSum / static_cast<double>(micro.samples) : NAN;
    r.samples = micro.samples;
    r.correct = micro.correct;
    setCommSince(r, commBefore, plugins_.comm());
    r.endedAtS = runSeconds();
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
  MicroBatchTotals runMicroBatches(uint32_t epoch) {
    MicroBatchTotals totals;
    for (uint32_t micro = 0; micro < accumulation_; ++micro) {
      const int64_t dataBegin = TraceRecorder::nowNs();
      std::optional<Batch> b = train_->next();
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

  // What elastic training commits in memory and goes back to.
  struct Commit {
    Checkpoint state;  // parameters, strategy state, optimizer step count
    EpochPosition position;
    EpochFigures epochSoFar;
    int64_t stepsRun = 0;
    std::optional<Clock::time_point> epochStart;  // the recovery's time counts in the epoch's
  };

  const RunSpec& spec_;
  const Cell& cell_;
  const int slot_;  // the rank it was started as: its pipe, and who it is to the coordinator
  int rank_;        // in the current world (elastic: changes with it)
  int world_;
  RecordWriter& records_;
  const uint32_t batch_;             // samples per micro-batch on this rank
  const uint32_t accumulation_;      // micro-batches per optimizer step
  const bool stepRecords_;           // every step stored, not only epochs
  const FaultInjector faults_;       // the cell's [fault], if it strikes this rank
  const uint64_t checkpointEvery_;   // recovery = "restart": steps between checkpoints; 0 none
  const bool elastic_;               // recovery = "elastic"
  const uint64_t commitEvery_;       // elastic: steps between commits; 0 none
  bool epochEndCheckpoint_ = false;  // one is due once the epoch is recorded
  // After a restart or a new elastic world, until its first step is done: what rank 0's event says.
  std::optional<std::string> recoveredNote_;
  const Clock::time_point started_ = Clock::now();
  uint64_t optimizerSteps_ = 0;  // of the run so far
  uint64_t furthestStep_ = 0;    // the most steps the run has reached (faults strike once)
  uint64_t epochSamples_ = 0;    // samples of its order an epoch trains on
  EpochPosition at_;             // where training stands
  EpochSums sums_;               // this rank's, of the current epoch since its last commit (elastic)
  EpochFigures epochSoFar_;      // elastic: the current epoch's over all ranks, up to the last commit
  int64_t epochStepsRun_ = 0;    // steps of the current epoch this run did
  std::optional<Clock::time_point> epochStart_;
  int generation_ = 0;  // elastic: the world's generation
  std::optional<Commit> commit_;
  int loaderWorld_ = 0, loaderRank_ = 0;  // what train_ was made for
  uint64_t loaderOffset_ = 0;
  std::optional<LrSchedule> schedule_;
  // Destroyed in reverse: the training data before the dataset it reads,
  // the training step before the plugins it drives, the plugins, then the
  // trace they all record into.
  std::unique_ptr<TraceRecorder> trace_;  // trace = true
  RankPlugins plugins_;
  std::unique_ptr<DataLoader> train_;
  std::optional<TrainingStep> step_;
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
