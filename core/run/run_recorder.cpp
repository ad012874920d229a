#include "run/run_recorder.h"

namespace dtb::core {

void RunRecorder::add(const Record& r) {
  switch (r.kind) {
    case Record::Kind::kProgress:
      progress_.update(r);
      break;
    case Record::Kind::kEpoch:
      stamp(pending_.epochs, r.epochRecord);  // one transaction with the steps that came before it
      store_.write(pending_);
      pending_ = {};
      break;
    case Record::Kind::kStep:
      stamp(pending_.steps, r.stepRecord);
      break;
    case Record::Kind::kMetric:
      stamp(pending_.metrics, r.metricRecord);
      break;
    case Record::Kind::kMemory:
      stamp(endOfRun_.memory, r.memoryRecord);
      break;
    case Record::Kind::kHost:
      stamp(endOfRun_.hosts, r.hostRecord);
      break;
    case Record::Kind::kGradient:
      stamp(endOfRun_.gradients, r.gradientRecord);
      break;
    case Record::Kind::kEvent:
      stamp(endOfRun_.events, r.eventRecord);
      break;
    default:
      break;
  }
  if (pending_.steps.size() + pending_.metrics.size() >= kStepBatch) {
    store_.write(pending_);
    pending_ = {};
  }
}

void RunRecorder::coordinatorEvent(double atS, const std::string& kind, const std::string& detail) {
  stamp(endOfRun_.events, EventRecord{0, std::nullopt, atS, kind, detail});
}

int64_t RunRecorder::restartFrom(uint64_t step) {
  store_.write(pending_);
  pending_ = {};
  return store_.forgetStepsFrom(runId_, static_cast<int64_t>(step));
}

void RunRecorder::finish() {
  store_.write(pending_);
  store_.write(endOfRun_);
}

}  // namespace dtb::core
