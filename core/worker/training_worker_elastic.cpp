// Elastic training (recovery = "elastic"), Horovod Elastic's way, in the
// worker: commits in memory, leaving a broken world, entering the next one
// the coordinator decided (elastic/elastic_launcher.h), and agreeing there on
// rank 0's state.
#include <cstdio>

#include "host/blocking_collective.h"
#include "worker/initial_weights.h"
#include "worker/rank_checkpoint.h"
#include "worker/training_worker.h"

namespace dtb::core {

void TrainingWorker::commitAndCheckForChanges(bool epochEnd) {
  double changes = rank_ == 0 && readElasticWorld(spec_.storeDir, generation_ + 1) ? 1.0 : 0.0;
  if (epochEnd) {
    commit();
    std::vector<double> flag = {changes};
    allreduceDoubles(plugins_.comm(), flag, DTB_REDUCE_MAX);
    changes = flag[0];
  } else {
    epochSoFar_ += reduceEpochSums(plugins_.comm(), sums_, &changes);
    sums_ = {};
    commit();
  }
  if (changes > 0) throw WorldChanges{};
}

void TrainingWorker::commit() {
  commit_ = Commit{captureCheckpoint(plugins_, optimizerSteps_, at_.epoch, at_.stepInEpoch), at_, epochSoFar_,
                   epochStepsRun_, epochStart_};
}

void TrainingWorker::leaveWorld(const std::string& why) {
  records_.reset(generation_, commit_ ? commit_->state.steps : 0, why);
  records_.flush();
  if (!plugins_.inWorld()) return;
  forwardPluginEvents();  // what the strategy reported goes with it
  Communicator& comm = plugins_.comm();
  if (!comm.abandon(comm.defaultTimeout()))
    throw std::runtime_error("rank " + std::to_string(rank_) +
                             " cannot leave its broken world: a collective still runs " +
                             std::to_string(comm.defaultTimeout().count()) + " ms after " + why);
  step_.reset();
  plugins_.leaveWorld();
}

void TrainingWorker::enterNextWorld(PluginLoader& loader, bool failed) {
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
  char lr[32];
  std::snprintf(lr, sizeof(lr), "%g", peakLr_);  // lr_scaling applied again to the new size
  const char* how = next.rollback ? "reset" : world_ >= before ? "join" : "leave";
  recoveredNote_ = std::string(how) + " to generation " + std::to_string(generation_) + " (" +
                   std::to_string(before) + " -> " + std::to_string(world_) + " ranks): from step " +
                   std::to_string(optimizerSteps_) + ", lr " + lr;
}

void TrainingWorker::syncWithRankZero() {
  const EpochFigures& f = epochSoFar_;
  // The epoch's clock and steps, then its figures so far.
  std::vector<double> epoch = {epochStart_ ? since(*epochStart_) : 0.0, static_cast<double>(epochStepsRun_)};
  const std::vector<double> figures = f.pack();
  epoch.insert(epoch.end(), figures.begin(), figures.end());
  const SyncedProgress synced = syncFromRankZero(plugins_, optimizerSteps_, at_, epoch);
  optimizerSteps_ = synced.steps;
  at_ = synced.position;
  epochStart_ =
      Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(epoch[0]));
  epochStepsRun_ = static_cast<int64_t>(epoch[1]);
  epochSoFar_ = EpochFigures::unpack(epoch.data() + 2);
}

void TrainingWorker::adopt(const ElasticWorld& world) {
  generation_ = world.generation;
  rank_ = world.rankOf(slot_);
  world_ = world.size();
}

double TrainingWorker::worldWaitSeconds() const {
  return cell_.real("elastic_timeout_s") + 2 * cell_.real("collective_timeout_s") + 30;
}

std::string TrainingWorker::parameterChecksum() const {
  char text[64];
  std::snprintf(text, sizeof(text), "checksum %.17g",
                weightChecksum(plugins_.params(), plugins_.paramCount()));
  return text;
}

}  // namespace dtb::core
