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

void RunRecorder::finish() {
  store_.write(pending_);
  store_.write(endOfRun_);
}

}  // namespace dtb::core
