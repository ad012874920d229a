#include "run/worker.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include "sweep/collective_sweep.h"
#include "data/data_loader.h"
#include "dtbench/plugin.hpp"
#include "host/communicator.h"
#include "host/host_services.h"
#include "host/trace_recorder.h"
#include "log/log.h"
#include "matrix/run_schema.h"
#include "plugin/loader.h"
#include "run/connect.h"
#include "train/lr_schedule.h"
#include "train/training_step.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class Worker {
 public:
  Worker(const RunSpec& spec, int rank, RecordWriter& records)
      : spec_(spec), rank_(rank), records_(records) {}

  void run() {
    const Cell& cell = spec_.cell;
    PluginLoader loader = workerLoader(spec_);

    // Data.
    dataset_ =
        openDataset(loader.load(PluginKind::kDataset, cell.text("dataset")), cell.pluginParams("dataset"));
    const int64_t batch = cell.integer("batch_size");
    const int64_t seed = cell.integer("seed");
    DataLoader train(
        *dataset_, {0, static_cast<uint32_t>(batch), static_cast<int>(cell.integer("loader_threads")), false},
        DistributedSampler({splitSize(0), static_cast<uint64_t>(cell.integer("dataset_scale")), spec_.world,
                            rank_, true, false, static_cast<uint64_t>(seed)}));
    const dtb_dataset_info_t& info = train.info();

    // Model, identical on every rank.
    dtb_model_setup_t modelSetup{};
    modelSetup.struct_size = sizeof(modelSetup);
    modelSetup.device = {DTB_DEVICE_HOST, 0};
    modelSetup.input_ndim = info.sample_ndim;
    for (int d = 0; d < info.sample_ndim; ++d) modelSetup.input_shape[d] = info.sample_shape[d];
    modelSetup.num_classes = info.num_classes;
    modelSetup.max_batch = static_cast<uint32_t>(batch);
    modelSetup.seed = static_cast<uint64_t>(seed);
    modelSetup.label_smoothing = static_cast<float>(cell.real("label_smoothing"));
    modelSetup.threads = threadsPerRank(cell);
    model_ = createModel(loader.load(PluginKind::kModel, cell.text("model")), cell.pluginParams("model"),
                         modelSetup);
    const auto& modelApi = model_->plugin().descriptor<dtb_model_plugin_v1_t>();
    dtb_param_t* const* params = nullptr;
    uint32_t paramCount = 0;
    model_->check("params", modelApi.params(model_->context(), &params, &paramCount));
    const char* const* layerNames = nullptr;
    uint32_t layerCount = 0;
    model_->check("layers", modelApi.layers(model_->context(), &layerNames, &layerCount));

    comm_ = connectRank(spec_, rank_, loader);
    syncInitialWeights(params, paramCount);

    // Optimizer, schedule, strategy.
    OptimizerConfig optimizerConfig;
    optimizerConfig.kind = cell.text("optimizer");
    optimizerConfig.lr = cell.real(kEffectiveLrKey);
    optimizerConfig.momentum = cell.real("momentum");
    optimizerConfig.nesterov = cell.flag("nesterov");
    optimizerConfig.weightDecay = cell.real("weight_decay");
    optimizer_ = std::make_unique<Optimizer>(optimizerConfig);
    Optimizer& optimizer = *optimizer_;
    const int64_t epochs = cell.integer("epochs");
    LrScheduleConfig scheduleConfig;
    scheduleConfig.kind = cell.text("schedule");
    scheduleConfig.lr = cell.real("lr");
    scheduleConfig.peak = optimizerConfig.lr;
    scheduleConfig.epochs = epochs;
    scheduleConfig.warmupEpochs = cell.integer("warmup_epochs");
    scheduleConfig.stepEpochs = cell.integer("lr_step_epochs");
    scheduleConfig.stepGamma = cell.real("lr_step_gamma");
    scheduleConfig.expGamma = cell.real("lr_exp_gamma");
    LrSchedule schedule(scheduleConfig);

    const uint32_t accumulation = static_cast<uint32_t>(cell.integer("accumulation_steps"));
    dtb_strategy_setup_t strategySetup{};
    strategySetup.struct_size = sizeof(strategySetup);
    strategySetup.params = params;
    strategySetup.param_count = paramCount;
    strategySetup.layer_count = layerCount;
    strategySetup.device = {DTB_DEVICE_HOST, 0};
    strategySetup.accumulation_steps = accumulation;
    strategy_ = createStrategy(loader.load(PluginKind::kStrategy, cell.text("strategy")),
                               cell.pluginParams("strategy"), strategySetup, comm_.get(), &optimizer,
                               model_.get());
    const auto& strategyApi = strategy_->plugin().descriptor<dtb_strategy_plugin_v1_t>();

    if (!spec_.traceDir.empty()) {
      trace_ = std::make_unique<TraceRecorder>(rank_);
      comm_->traceTo(trace_.get());
      strategy_->services().traceTo(trace_.get());
    }
    TrainingStep step(*model_, *strategy_, optimizer, comm_.get());
    const int64_t maxSteps = cell.integer("max_steps_per_epoch");
    const int64_t stepsPerEpoch = [&] {
      const int64_t all = static_cast<int64_t>(train.batchesPerEpoch()) / accumulation;
      return maxSteps > 0 ? std::min(all, maxSteps) : all;
    }();
    if (stepsPerEpoch == 0)
      throw std::runtime_error(
          "an epoch has no full step: the dataset is too small for batch_size x accumulation_steps x "
          "world_size");
    const bool stepRecords = cell.flag("step_records");
    uint64_t optimizerSteps = 0;
    for (int64_t epoch = 0; epoch < epochs; ++epoch) {
      modelApi.set_mode(model_->context(), DTB_MODE_TRAIN);
      train.startEpoch(static_cast<uint64_t>(epoch));
      const double dataBefore = train.waitSeconds();
      const auto epochStart = Clock::now();
      StepRecord sum;  // the epoch's phases, summed over its steps
      double lossSum = 0, correct = 0, samples = 0;
      auto lastProgress = Clock::now();
      for (int64_t s = 0; s < stepsPerEpoch; ++s) {
        optimizer.setLearningRate(schedule.at(epoch, s, stepsPerEpoch));
        StepRecord record =
            measureStep(step, train, info, optimizerSteps, static_cast<uint32_t>(epoch), accumulation);
        lossSum += *record.loss * static_cast<double>(*record.samples);
        correct += record.correct;
        samples += static_cast<double>(*record.samples);
        addPhases(sum, record);
        if (stepRecords) {
          records_.step(record);
          for (const MetricRecord& m : takeMetrics(record.step)) records_.metric(m);
        }
        ++optimizerSteps;
        if (rank_ == 0 && since(lastProgress) > 1.0) {
          records_.progress(static_cast<int>(epoch + 1), s + 1, stepsPerEpoch,
                            samples * spec_.world / since(epochStart));
          lastProgress = Clock::now();
        }
      }
      const double seconds = since(epochStart);
      records_.flush();  // every rank's steps leave at the end of each epoch
      // Mean phase times over ranks; sums of loss and counts.
      std::vector<double> phases = {seconds,           train.waitSeconds() - dataBefore,
                                    *sum.forwardS,     *sum.backwardS,
                                    *sum.commExposedS, *sum.optimizerS,
                                    *sum.commTotalS};
      allreduceDoubles(*comm_, phases, DTB_REDUCE_AVG);
      std::vector<double> totals = {lossSum, correct, samples};
      allreduceDoubles(*comm_, totals, DTB_REDUCE_SUM);
      const auto [testLoss, testAccuracy] = evaluate(info, static_cast<uint32_t>(batch), step);
      if (rank_ == 0) {
        EpochRecord e;
        e.epoch = static_cast<int>(epoch + 1);
        e.steps = stepsPerEpoch;
        e.samples = static_cast<int64_t>(totals[2]);
        e.seconds = phases[0];
        e.dataS = phases[1];
        e.forwardS = phases[2];
        e.backwardS = phases[3];
        e.commExposedS = phases[4];
        e.optimizerS = phases[5];
        if (comm_->busySeconds()) e.commTotalS = phases[6];
        e.trainLoss = totals[0] / totals[2];
        e.trainAccuracy = totals[1] / totals[2];
        e.testLoss = testLoss;
        e.testAccuracy = testAccuracy;
        e.bytesSent = static_cast<int64_t>(comm_->bytes());
        e.collectives = static_cast<int64_t>(comm_->collectives());
        e.stepBusBytes = *sum.busBytes / static_cast<double>(stepsPerEpoch);
        records_.epoch(e);
      }
      forwardPluginEvents();
    }
    reportMemory(strategyApi, params, paramCount, optimizer);
    writeTrace();
    // No rank leaves while a peer may still be finishing a collective with it.
    runCollective(*comm_, [&](dtb_request_t* r, std::string* e) { return comm_->barrier(r, e); });
  }

 private:
  // One optimizer step (its micro-batches) of this rank, timed phase by
  // phase from the moment it asks the loader for data.
  StepRecord measureStep(TrainingStep& step, DataLoader& train, const dtb_dataset_info_t& info,
                         uint64_t optimizerStep, uint32_t epoch, uint32_t accumulation) {
    StepRecord r;
    r.rank = rank_;
    r.step = static_cast<int64_t>(optimizerStep);
    r.epoch = static_cast<int>(epoch + 1);
    takeMetrics(r.step);  // what came between steps (evaluation's gathers) is no step's
    const int64_t begin = TraceRecorder::nowNs();
    const double dataBefore = train.waitSeconds();
    const uint64_t busBefore = comm_->busBytes(), bytesBefore = comm_->bytes();
    const uint64_t collectivesBefore = comm_->collectives();
    const std::optional<double> busyBefore = comm_->busySeconds();
    StepTiming timing;
    double lossSum = 0;
    int64_t samples = 0;
    for (uint32_t micro = 0; micro < accumulation; ++micro) {
      const int64_t dataBegin = TraceRecorder::nowNs();
      std::optional<Batch> b = train.next();
      if (!b) throw std::runtime_error("the data loader ran out of batches mid-epoch");
      dtb_batch_t view = batchView(*b, info);
      dtb_step_info_t stepInfo{sizeof(dtb_step_info_t), optimizerStep, epoch, micro, accumulation};
      const int64_t stepBegin = TraceRecorder::nowNs();
      const StepResult result = step.run(view, stepInfo);
      if (trace_) traceStep(dataBegin, stepBegin, result.timing);
      timing += result.timing;
      lossSum += result.loss * b->size;
      r.correct += result.correct;
      samples += b->size;
    }
    r.seconds = static_cast<double>(TraceRecorder::nowNs() - begin) / 1e9;
    r.forwardS = timing.forwardS;
    r.backwardS = timing.backwardS;
    r.commExposedS = timing.commExposedS;
    r.optimizerS = timing.optimizerS;
    r.forwardWaitS = timing.forwardWaitS;
    r.backwardWaitS = timing.backwardWaitS;
    r.optimizerWaitS = timing.optimizerWaitS;
    r.dataS = train.waitSeconds() - dataBefore;
    r.loss = samples > 0 ? lossSum / static_cast<double>(samples) : NAN;
    r.samples = samples;
    r.bytesSent = static_cast<int64_t>(comm_->bytes() - bytesBefore);
    r.collectives = static_cast<int64_t>(comm_->collectives() - collectivesBefore);
    r.busBytes = static_cast<double>(comm_->busBytes() - busBefore);
    // The backend's busy time, overlapped or not; unknown where it does not count it.
    if (busyBefore) r.commTotalS = comm_->busySeconds().value_or(*busyBefore) - *busyBefore;
    return r;
  }

  static void addPhases(StepRecord& sum, const StepRecord& step) {
    auto add = [](std::optional<double>& total, const std::optional<double>& v) {
      total = total.value_or(0) + v.value_or(0);
    };
    add(sum.forwardS, step.forwardS);
    add(sum.backwardS, step.backwardS);
    add(sum.commExposedS, step.commExposedS);
    add(sum.optimizerS, step.optimizerS);
    add(sum.commTotalS, step.commTotalS);
    add(sum.busBytes, step.busBytes);
  }

  // What the plugins added with host->metric_add since the last take.
  std::vector<MetricRecord> takeMetrics(int64_t step) {
    std::vector<MetricRecord> out;
    const std::pair<const char*, PluginInstance*> plugins[] = {{"strategy", strategy_.get()},
                                                               {"backend", &comm_->backend()},
                                                               {"model", model_.get()},
                                                               {"dataset", dataset_.get()}};
    for (const auto& [kind, plugin] : plugins) {
      for (const auto& [name, value] : plugin->services().takeMetrics()) {
        out.push_back({0, rank_, step, kind, name, value});
      }
    }
    return out;
  }

  uint64_t splitSize(uint32_t split) {
    dtb_split_info_t s{};
    s.struct_size = sizeof(s);
    dataset_->check("split_info", dataset_->plugin().descriptor<dtb_dataset_plugin_v1_t>().split_info(
                                      dataset_->context(), split, &s));
    return s.samples;
  }

  dtb_batch_t batchView(Batch& b, const dtb_dataset_info_t& info) {
    dtb_batch_t view{};
    view.struct_size = sizeof(view);
    view.size = b.size;
    view.inputs = dtb::hostTensor(b.inputs.data(), b.inputs.size(), DTB_DTYPE_F32);
    view.inputs.ndim = info.sample_ndim + 1;
    view.inputs.shape[0] = b.size;
    for (int d = 0; d < info.sample_ndim; ++d) view.inputs.shape[d + 1] = info.sample_shape[d];
    view.labels = dtb::hostTensor(b.labels.data(), b.labels.size(), DTB_DTYPE_I32);
    return view;
  }

  // DDP's rule: rank 0's weights are broadcast at start; then every rank
  // checks it holds the same (a checksum's min and max agree).
  void syncInitialWeights(dtb_param_t* const* params, uint32_t count) {
    double checksum = 0;
    for (uint32_t i = 0; i < count; ++i) {
      runCollective(*comm_, [&](dtb_request_t* r, std::string* e) {
        return comm_->broadcast(&params[i]->value, 0, r, e);
      });
      const auto* v = static_cast<const float*>(params[i]->value.data);
      for (uint64_t k = 0; k < params[i]->value.count; ++k) checksum += v[k] * double(k % 7 + 1);
    }
    std::vector<double> low = {checksum}, high = {checksum};
    allreduceDoubles(*comm_, low, DTB_REDUCE_MIN);
    allreduceDoubles(*comm_, high, DTB_REDUCE_MAX);
    if (low[0] != high[0])
      throw std::runtime_error("ranks hold different initial weights after the broadcast");
  }

  // Loss and accuracy on the test split, sharded over the ranks (rank r takes
  // samples r, r + world, ...; no padding, so every sample counts once).
  // Forward passes go through the strategy's hooks, and every rank makes as
  // many as the busiest one (repeating its last batch, results discarded): a
  // strategy may issue collectives in forward (ZeRO-3's gathers).
  std::pair<double, double> evaluate(const dtb_dataset_info_t& info, uint32_t batch,
                                     const TrainingStep& step) {
    const auto& modelApi = model_->plugin().descriptor<dtb_model_plugin_v1_t>();
    double lossSum = 0, correct = 0, samples = 0;
    if (info.split_count > 1) {
      model_->check("set_mode", modelApi.set_mode(model_->context(), DTB_MODE_EVAL));
      // This rank's strided share, unpadded: every test sample counts once.
      SamplerConfig shard{splitSize(1), 1, spec_.world, rank_, false, false, 0};
      shard.pad = false;
      DataLoader test(*dataset_, {1, batch, 0, false}, DistributedSampler(shard));
      std::vector<double> passes = {static_cast<double>(test.batchesPerEpoch())};
      allreduceDoubles(*comm_, passes, DTB_REDUCE_MAX);
      test.startEpoch(0);
      std::optional<Batch> last;
      for (uint64_t pass = 0; pass < static_cast<uint64_t>(passes[0]); ++pass) {
        std::optional<Batch> b = test.next();
        const bool counted = b.has_value();
        if (counted) last = std::move(b);
        if (!last)
          throw std::runtime_error("rank " + std::to_string(rank_) + " has no test samples to evaluate");
        dtb_batch_t view = batchView(*last, info);
        dtb_forward_result_t out{};
        out.struct_size = sizeof(out);
        model_->check("forward", modelApi.forward(model_->context(), &view, step.hooks(), &out));
        if (!counted) continue;
        lossSum += out.loss * last->size;
        correct += out.correct;
        samples += last->size;
      }
    }
    std::vector<double> totals = {lossSum, correct, samples};
    allreduceDoubles(*comm_, totals, DTB_REDUCE_SUM);
    if (totals[2] == 0) return {NAN, NAN};
    return {totals[0] / totals[2], totals[1] / totals[2]};
  }

  // The phases of one training step, back to back from its start (the
  // training step times them in this order).
  void traceStep(int64_t dataBegin, int64_t begin, const StepTiming& t) {
    trace_->span("data", "step", dataBegin, begin);
    // Each phase as long as it lasted on the clock, its waits included (the
    // collectives' own spans show where they were); finish_backward is the
    // exposed communication that is a phase of its own.
    const double waits = t.forwardWaitS + t.backwardWaitS + t.optimizerWaitS;
    const std::pair<const char*, double> phases[] = {{"forward", t.forwardS + t.forwardWaitS},
                                                     {"backward", t.backwardS + t.backwardWaitS},
                                                     {"finish_backward (exposed)", t.commExposedS - waits},
                                                     {"optimizer", t.optimizerS + t.optimizerWaitS}};
    for (const auto& [name, seconds] : phases) {
      const int64_t end = begin + static_cast<int64_t>(seconds * 1e9);
      trace_->span(name, "step", begin, end);
      begin = end;
    }
  }

  // Writes this rank's trace where the coordinator asked, and says where.
  void writeTrace() {
    if (!trace_) return;
    const std::filesystem::path file =
        std::filesystem::path(spec_.traceDir) / ("rank" + std::to_string(rank_) + ".trace.json");
    trace_->write(file);
    records_.event(rank_, std::chrono::duration<double>(Clock::now() - started_).count(), "trace",
                   file.string());
  }

  // What the plugins reported with host->event() (a strategy's rebucket,
  // overflow, ...) goes to the store's event table, stamped from the run's start.
  void forwardPluginEvents() {
    for (PluginInstance* plugin : {model_.get(), strategy_.get(), &comm_->backend()}) {
      for (const HostServices::PluginEvent& e : plugin->services().takeEvents()) {
        records_.event(rank_, std::chrono::duration<double>(e.at - started_).count(), e.kind, e.detail);
      }
    }
  }

  void reportMemory(const dtb_strategy_plugin_v1_t& api, dtb_param_t* const* params, uint32_t count,
                    const Optimizer& optimizer) {
    MemoryRecord m;
    m.rank = rank_;
    uint64_t elements = 0;
    for (uint32_t i = 0; i < count; ++i) elements += params[i]->value.count;
    dtb_memory_report_t report{};
    report.struct_size = sizeof(report);
    if (api.memory_report) {
      strategy_->check("memory_report", api.memory_report(strategy_->context(), &report));
    } else {
      report.param_bytes = report.grad_bytes = elements * sizeof(float);
      report.optimizer_bytes = elements * sizeof(float) * optimizer.stateFloats();
    }
    m.paramBytes = static_cast<int64_t>(report.param_bytes);
    m.gradBytes = static_cast<int64_t>(report.grad_bytes);
    m.optimizerBytes = static_cast<int64_t>(report.optimizer_bytes);
    m.bufferBytes = static_cast<int64_t>(report.buffer_bytes);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    m.peakRssBytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;
    m.paramElements = static_cast<int64_t>(elements);
    m.stateFloats = optimizer.stateFloats();
    records_.memory(m);
  }

  const RunSpec& spec_;
  int rank_;
  RecordWriter& records_;
  const Clock::time_point started_ = Clock::now();
  // Destroyed in reverse: the strategy before the optimizer, communicator and
  // model it points into, the dataset, then the trace they all record into.
  std::unique_ptr<TraceRecorder> trace_;  // trace = true
  std::unique_ptr<PluginInstance> dataset_;
  std::unique_ptr<PluginInstance> model_;
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<PluginInstance> strategy_;
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
