// One rank of one training run, in its own process: loads the run's four
// plugins, connects to the other ranks, makes sure every rank starts from
// the same weights, trains and evaluates epoch by epoch, and reports records
// to the coordinator (worker/worker.h starts it). ARCHITECTURE.md's "one
// training step" is TrainingStep; this is the loop around it, with what
// recovery needs: checkpoints and resuming (recovery = "restart"), and
// elastic training's commits, rollbacks and new worlds (recovery =
// "elastic", training_worker_elastic.cpp).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/data_loader.h"
#include "data/device_prefetcher.h"
#include "elastic/elastic_world.h"
#include "host/trace_recorder.h"
#include "protocol/checkpoint.h"
#include "protocol/record_channel.h"
#include "protocol/run_spec.h"
#include "train/lr_schedule.h"
#include "train/training_step.h"
#include "worker/elastic_sync.h"
#include "worker/epoch_sums.h"
#include "worker/evaluation.h"
#include "worker/fault_injector.h"
#include "worker/rank_plugins.h"
#include "worker/step_measures.h"

namespace dtb::core {

class TrainingWorker {
 public:
  using Clock = std::chrono::steady_clock;

  // `slot`: the rank this worker was started as (a worker started later
  // to join an elastic run has one past the first world's).
  TrainingWorker(const RunSpec& spec, int slot, RecordWriter& records)
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

  // Trains the run's epochs; throws what ends the rank (an elastic run
  // survives its peers' failures). Returns early, its work done, when an
  // elastic run leaves this worker out of its world (its host left).
  void run();

 private:
  static double since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  // The rank's plugins in the order each needs the ones before; the model is
  // identical on every rank before the strategy sees it. A worker the
  // coordinator started to join an elastic run first learns its world, and
  // gets rank 0's state once the strategy is there.
  void setUp(PluginLoader& loader);
  // The first world this worker meets in (elastic: the first that forms).
  void connectFirstWorld(PluginLoader& loader);
  void train(PluginLoader& loader);

  // The strategy for this world, its learning-rate schedule and the
  // training step over it, traced where the run asks.
  void createStrategy(PluginLoader& loader);

  // This world's communicator: the run's rendezvous, under the prefix of
  // its elastic generation.
  std::unique_ptr<Communicator> connectToWorld(PluginLoader& loader) const;

  // This rank's share of the training split from `offset` on (positions of
  // the epoch's order already trained on), reshuffled every epoch.
  void openTrainingData(uint64_t offset);

  // Starts the loader at `at_`: the same loader from the batch reached when
  // the world never changed this epoch, else one over what is left of it.
  // Returns the optimizer steps it can still give this epoch.
  int64_t startLoader();
  // device = "cuda" with pin_memory: batches in pinned host memory, and
  // (where the model takes its inputs on the GPU) copied there a step ahead.
  bool pinsBatches() const;
  void prefetchToGpu();
  // The training thread's waits for data: the loader's, and the copies'.
  double dataWaitSeconds() const;

  ModelOptions modelOptions() const;

  // Samples of the epoch's order one optimizer step of the world trains on.
  uint64_t samplesPerStep() const { return uint64_t{accumulation_} * batch_ * static_cast<uint64_t>(world_); }

  // The positions of each epoch's order an epoch trains on: its steps in
  // the run's first world (max_steps_per_epoch) times that world's step, or
  // the whole split (its last step partial, as DataLoader's drop_last =
  // False gives it). An elastic world that changes mid-epoch trains on
  // what is left of them.
  uint64_t samplesPerEpoch();

  // The steps of the current epoch: those done, and those what is left of
  // its positions makes in this world as a whole epoch of them would:
  // ceil(ceil(left / world) / batch) batches per rank (the tail padded over
  // the ranks, the last batch partial), in optimizer steps of
  // accumulation_steps batches.
  int64_t epochLength() const;

  // Where training goes on from: the start, or (recovery = "restart", after
  // a restart) the checkpoint the coordinator chose for every rank.
  EpochPosition resume();

  // This rank's checkpoint of the steps done so far (recovery = "restart").
  void saveCheckpoint();

  // The epochs from `at_` on; each ends with its checkpoint (restart) or
  // commit (elastic) once it is recorded, so that no recovery runs a
  // finished epoch's end again.
  void trainEpochs(int64_t epochs);

  // Trains the current epoch from `at_`, evaluates, and reports it (rank 0,
  // with the phases averaged and the counts summed over the ranks).
  void trainEpoch();

  // The strategy's before_evaluation or end_epoch (ABI 1.3), where it has
  // one: a descriptor of 1.2 or older reads as NULL here (copyGrowable).
  // Every rank calls it at the same point, after the epoch's collectives
  // above, so the strategy may issue its own. Outside every step: its time
  // is in no phase, and what it adds with metric_add is no step's (dropped
  // by the next step's takeMetrics); its events are forwarded below.
  using EpochHook = dtb_status_t (*)(void*, uint32_t);
  void epochHook(EpochHook dtb_strategy_plugin_v1_t::*member, const char* name, int64_t epoch);

  // Steps up to step `steps` of the current epoch.
  void trainSteps(int64_t steps);

  // The cell's [fault] before the next step, the first time the run reaches
  // it (an elastic rollback runs steps again, not their faults).
  void injectFaults();

  // ---- Elastic training (recovery = "elastic", Horovod Elastic's way):
  // training_worker_elastic.cpp ----

  // Thrown at a commit where the coordinator has decided a new world (a
  // worker joins, or hosts left): every rank leaves its world there for the
  // next (Horovod's HostsUpdatedInterrupt).
  struct WorldChanges {};

  // Horovod's state.commit(): a copy of the state in memory, and a look for
  // a new world the coordinator decided — rank 0 looks, every rank learns, so
  // that all leave for the next world at the same step. Mid-epoch, the same
  // collective adds the ranks' epoch sums to the epoch's figures so far (a
  // world that changes later in the epoch loses none of them), and the
  // commit follows it. At an epoch's end, once it is recorded, the commit
  // comes first: a failure of the collective then goes back to the next
  // epoch's start, and no finished epoch runs its end again.
  void commitAndCheckForChanges(bool epochEnd);
  void commit();

  // A collective of this world failed: the coordinator hears that this rank
  // waits for the next world, with the step of its last commit, and the
  // strategy and the broken communicator go. Before they go, every operation of the broken communicator ends
  // (those the strategy never waited for, and those whose wait timed out):
  // none may then write into a buffer freed with the strategy. One that
  // outlives the timeout makes going on unsafe: the worker ends instead.
  // Safe to call again when entering the next world failed halfway.
  void leaveWorld(const std::string& why);

  // Waits for the coordinator's next world (after a failure: the survivors;
  // at a commit: the members and who joins), goes back to the last commit,
  // meets the new world and takes rank 0's state, as Horovod's reset() and
  // state.sync() do. Throws LeftOutOfWorld when this rank is not in it.
  void enterNextWorld(PluginLoader& loader, bool failed);

  // Also rank 0's epoch so far (a joining worker's first epoch record must
  // count what was trained before it came).
  void syncWithRankZero();

  void adopt(const ElasticWorld& world);

  // How long a rank waits for its next world: the coordinator may first wait
  // out the survivors' collective timeouts, then elastic_timeout_s for
  // workers when the world fell below min_np.
  double worldWaitSeconds() const;

  // A checksum of this rank's parameters, to show the ranks end alike.
  std::string parameterChecksum() const;

  EpochRecord epochRecord(int64_t epoch, int64_t steps, double seconds, const EpochFigures& f,
                          const Evaluation& test);

  // One optimizer step (its micro-batches) of this rank, timed phase by
  // phase from the moment it asks the loader for data.
  StepRecord measureStep(uint32_t epoch);

  // A slow fault's delay before this step, on its rank; the seconds it took.
  double straggle();

  // The accumulation_steps micro-batches of one optimizer step.
  MicroBatchTotals runMicroBatches(uint32_t epoch);

  // What the plugins added with host->metric_add since the last take.
  std::vector<MetricRecord> takeMetrics(int64_t step);

  // Writes this rank's trace where the coordinator asked, and says where.
  void writeTrace();
  // When each gradient was ready in backward (gradientProfile_), one
  // record per parameter.
  void recordGradientProfile();

  // What the plugins reported with host->event() (a strategy's rebucket,
  // overflow, ...) goes to the store's event table, stamped from the run's start.
  void forwardPluginEvents();

  // Seconds since the run began (the coordinator's clock, so that events of
  // a restarted run's workers and the coordinator's own line up), else since
  // this worker began.
  double runSeconds() const;

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
  // The host's own figures of the last step (fp16's scale and skip,
  // gradient clipping's norm and factor), for takeMetrics.
  std::vector<MetricRecord> hostMetrics_;
  uint64_t furthestStep_ = 0;  // the most steps the run has reached (faults strike once)
  uint64_t epochSamples_ = 0;  // positions of its order an epoch trains on
  EpochPosition at_;           // where training stands
  EpochSums sums_;             // this rank's, of the current epoch since its last commit (elastic)
  EpochFigures epochSoFar_;    // elastic: the current epoch's over all ranks, up to the last commit
  int64_t epochStepsRun_ = 0;  // steps of the current epoch this run did
  std::optional<Clock::time_point> epochStart_;
  int generation_ = 0;  // elastic: the world's generation
  std::optional<Commit> commit_;
  int loaderWorld_ = 0, loaderRank_ = 0;  // what train_ was made for
  uint64_t loaderOffset_ = 0;
  std::optional<LrSchedule> schedule_;
  double peakLr_ = 0;  // the schedule's peak for this world (lr_scaling applied to its size)
  // Destroyed in reverse: the training data before the dataset it reads,
  // the training step before the plugins it drives, the plugins, then the
  // trace they all record into.
  std::unique_ptr<TraceRecorder> trace_;  // trace = true
  GradientProfile gradientProfile_;       // over every training step this worker ran
  RankPlugins plugins_;
  // device = "cuda": the GPU of the rank this worker started as, kept in
  // every later world (its model stays there).
  dtb_device_t gpu_{DTB_DEVICE_HOST, 0};
  std::shared_ptr<BlockPool> pinnedBatches_;  // pinsBatches(): the loaders' input memory
  std::unique_ptr<DataLoader> train_;
  std::unique_ptr<DevicePrefetcher> toGpu_;  // reads train_
  std::optional<TrainingStep> step_;
};

}  // namespace dtb::core
