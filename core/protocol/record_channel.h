// What workers tell the coordinator, one line per record over a pipe:
//
//   progress <epoch> <step> <steps> <samples_per_s>
//   epoch <epoch> <steps> <samples> <seconds> <data> <forward> <backward>
//         <comm_exposed> <optimizer> <train_loss> <train_acc> <test_loss>
//         <test_acc> <bytes> <collectives> <step_bus_bytes> <comm_total>
//   step <rank> <step> <epoch> <seconds> <data> <forward> <backward>
//        <comm_exposed> <optimizer> <loss> <bytes> <collectives> <samples>
//        <comm_total> <bus_bytes> <forward_wait> <backward_wait> <optimizer_wait>
//        <ended_at_s>
//   metric <rank> <step> <plugin kind> <name> <value>
//   memory <rank> <params> <grads> <optimizer> <buffers> <peak_rss> <param_elements>
//          <state_floats> <gpu_used|-1> <gpu_peak_allocated|-1>
//   event <rank> <at_s> <kind> <detail...>
//   collective <rank> <op> <dtype> <bytes> <iterations> <time_s> <p50_s>
//              <p95_s> <wrong>            (dtbench comm)
//   reference <name> <bytes> <gbps>       (dtbench comm: memcpy bandwidth)
//   error <rank> <own|peer> <message...>   (peer: a collective failed or timed
//                                          out: likely another rank's fault)
//   reset <generation> <commit_step> <message...>
//                                          (recovery = "elastic": a collective
//                                          of that generation failed; the
//                                          worker left it and waits for the
//                                          next, its last commit at that step)
//   grow <step>                            (recovery = "elastic": the rank
//                                          [fault] add names asks for a worker
//                                          to join)
//   gradient <rank> <param> <layer> <bytes> <ready_s> <backward_s> <steps>
//            <name>                        (when a gradient is ready in
//                                          backward, once per parameter at
//                                          the end of the run)
//   host <rank> <local_rank> <address> <hostname>
//                                          (where the rank runs, once, when
//                                          it has joined its peers)
//   done <rank>
//
// Numbers in C locale; "nan" for an unknown value. The coordinator is the
// only writer of the database; workers never open it. On a pipe of its own
// (the local launcher) step and metric lines, many and small, are not
// flushed one by one: they leave with the next record that is, at flush()
// (every rank, each epoch), or when the buffer fills; the reader joins
// chunks into lines. On stdout (mpirun, srun) every line is flushed whole;
// mpirun may still forward one in two tagged chunks (it reads a
// pseudo-terminal), which the coordinator joins (launch/tagged_lines.h).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "store/records.h"

namespace dtb::core {

class RecordWriter {
 public:
  explicit RecordWriter(int fd);  // takes the descriptor; -1: records are dropped; 1: stdout, line by line
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  void progress(int epoch, int64_t step, int64_t steps, double samplesPerSecond);
  void epoch(const EpochRecord& e);
  void step(const StepRecord& s);
  void metric(const MetricRecord& m);  // non-finite values are no measurement: dropped
  void flush();
  void memory(const MemoryRecord& m);
  void host(const RankHostRecord& h);
  void gradient(const GradientReadyRecord& g);
  void event(int rank, double atS, const std::string& kind, const std::string& detail);
  void collective(const CollectiveRecord& c);
  void reference(const BandwidthReferenceRecord& b);
  void error(int rank, bool peerFailure, const std::string& message);
  void reset(int generation, uint64_t commitStep, const std::string& message);
  void grow(uint64_t step);
  void done(int rank);

 private:
  void line(const std::string& text, bool flush = true);
  std::FILE* out_ = nullptr;
  bool everyLine_ = false;  // flush every line (stdout shared with a launcher)
};

// One parsed line.
struct Record {
  enum class Kind {
    kProgress,
    kEpoch,
    kStep,
    kMetric,
    kMemory,
    kHost,
    kGradient,
    kEvent,
    kCollective,
    kReference,
    kError,
    kReset,
    kGrow,
    kDone
  } kind;
  int epoch = 0;
  int64_t step = 0, steps = 0;
  double samplesPerSecond = 0;
  EpochRecord epochRecord;
  StepRecord stepRecord;
  MetricRecord metricRecord;
  MemoryRecord memoryRecord;
  RankHostRecord hostRecord;
  GradientReadyRecord gradientRecord;
  EventRecord eventRecord;
  CollectiveRecord collectiveRecord;
  BandwidthReferenceRecord referenceRecord;
  int rank = 0;
  int generation = 0;        // reset: the elastic world whose collective failed
  bool peerFailure = false;  // error: raised by a failed collective
  std::string message;
};

// nullopt for a line that is not a record (a worker's stray output).
std::optional<Record> parseRecord(const std::string& line);

}  // namespace dtb::core
