// The trace's rows: the recording thread's, and for work timed on a GPU
// (category "gpu:ROW", NCCL's collectives) a row of its own, named, whatever
// thread reported it; a backend's spans reach the run's trace through its
// communicator.
#include "host/trace_recorder.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "temp_dir.h"

namespace dtb::core {
namespace {

std::string written(const TraceRecorder& trace, const std::filesystem::path& file) {
  trace.write(file);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(TraceRecorder, GpuSpansGoOnANamedRowOfTheirOwnWhicheverThreadReportsThem) {
  const dtb::testing::TempDir dir;
  TraceRecorder trace(3);
  trace.span("backward", "phase", 1000, 9000);
  trace.span("allreduce #1", "gpu:nccl", 4000, 6000);
  std::thread other([&] {
    trace.span("cycle", "fusion", 2000, 3000);
    trace.span("allreduce #2 +1", "gpu:nccl", 7000, 8000);
  });
  other.join();
  const std::string json = written(trace, dir.path() / "rank3.trace.json");
  // The threads' rows: 0 and 1; the GPU's: 1000, named once.
  EXPECT_NE(
      json.find(
          "\"name\": \"backward\", \"cat\": \"phase\", \"ph\": \"X\", \"ts\": 0, \"dur\": 8, \"pid\": 3, "
          "\"tid\": 0}"),
      std::string::npos)
      << json;
  EXPECT_NE(
      json.find("\"name\": \"cycle\", \"cat\": \"fusion\", \"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"pid\": 3, "
                "\"tid\": 1}"),
      std::string::npos)
      << json;
  for (const char* span :
       {"\"name\": \"allreduce #1\", \"cat\": \"gpu:nccl\", \"ph\": \"X\", \"ts\": 3, \"dur\": 2, "
        "\"pid\": 3, \"tid\": 1000}",
        "\"name\": \"allreduce #2 +1\", \"cat\": \"gpu:nccl\", \"ph\": \"X\", \"ts\": 6, \"dur\": "
        "1, \"pid\": 3, \"tid\": 1000}"})
    EXPECT_NE(json.find(span), std::string::npos) << span << "\n" << json;
  EXPECT_NE(
      json.find("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 3, \"tid\": 1000, \"args\": {\"name\": "
                "\"GPU: nccl\"}}"),
      std::string::npos)
      << json;
  EXPECT_EQ(json.find("\"tid\": 1001"), std::string::npos) << "one row for one name";
  EXPECT_EQ(trace.size(), 4u);
}

}  // namespace
}  // namespace dtb::core
