// The collective sweep's parts: sizes and settings as nccl-tests reads them,
// the printed table's words and footer, and a one-rank sweep through a real
// backend plugin whose rows, bytes and correctness count are checked —
// including a backend that answers wrong.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "plugin/loader.h"
#include "sweep/collective_sweep.h"
#include "sweep/latency_bandwidth_fit.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_table.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

TEST(SweepSpec, SizesGrowByTheFactorFromMinToMax) {
  SweepSpec s;
  s.minBytes = parseSize("4K");
  s.maxBytes = parseSize("64K");
  EXPECT_EQ(s.sizes(), (std::vector<int64_t>{4096, 8192, 16384, 32768, 65536}));
  s.factor = 4;
  EXPECT_EQ(s.sizes(), (std::vector<int64_t>{4096, 16384, 65536}));
  EXPECT_EQ(parseSize("64M"), 64 << 20);
  EXPECT_EQ(parseSize("1GB"), int64_t{1} << 30);
  EXPECT_EQ(parseSize("512"), 512);
  EXPECT_THROW(parseSize("4Q"), std::invalid_argument);
  EXPECT_EQ(formatSize(64 << 20), "64M");
  EXPECT_EQ(formatSize(1000), "1000");
}

TEST(SweepSpec, RefusesSettingsThatMakeNoSense) {
  SweepSpec s;
  s.ops = {"alltoall"};
  EXPECT_THROW(s.validate(), std::invalid_argument);
  s = {};
  s.dtypes = {"int32"};
  s.reduceOp = "avg";
  EXPECT_THROW(s.validate(), std::invalid_argument);
  s = {};
  s.minBytes = 8192;
  s.maxBytes = 4096;
  EXPECT_THROW(s.validate(), std::invalid_argument);
  s = {};
  s.factor = 1;
  EXPECT_THROW(s.validate(), std::invalid_argument);
}

TEST(SweepSpec, RoundTripsThroughTomlAndNamesUnknownKeys) {
  SweepSpec s;
  s.ops = {"allgather"};
  s.dtypes = {"half", "bfloat16"};
  s.minBytes = 1024;
  s.iterations = 7;
  s.check = false;
  const SweepSpec back = SweepSpec::fromToml(s.toToml());
  EXPECT_EQ(back.ops, s.ops);
  EXPECT_EQ(back.dtypes, s.dtypes);
  EXPECT_EQ(back.minBytes, 1024);
  EXPECT_EQ(back.iterations, 7);
  EXPECT_FALSE(back.check);
  toml::table bad{{"max_byte", "64M"}};
  try {
    SweepSpec::fromToml(bad);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'max_byte' in [comm]"), std::string::npos);
  }
  toml::table sized{{"max_bytes", "1M"}};
  EXPECT_EQ(SweepSpec::fromToml(sized).maxBytes, 1 << 20);
}

// nccl-tests' -d all: every dtype, by the words -d takes, each once.
TEST(SweepSpec, AllDtypesAreEveryDtypeByItsDashDWord) {
  const std::vector<std::string> all = expandDtypes({"all"});
  EXPECT_EQ(all, (std::vector<std::string>{"int8", "uint8", "int32", "int64", "half", "float", "double",
                                           "bfloat16"}));
  EXPECT_EQ(expandDtypes({"float", "all"}).size(), all.size());
  EXPECT_EQ(expandDtypes({"half", "float"}), (std::vector<std::string>{"half", "float"}));
  for (const std::string& word : all) EXPECT_EQ(sweepDtypeWord(sweepDtype(word)), word);
  EXPECT_EQ(sweepDtypeWord(sweepDtype("f32")), "float");  // what the store keeps, as the table shows it
  EXPECT_EQ(SweepSpec::fromToml(toml::table{{"dtypes", "all"}}).dtypes, all);
}

// nccl-tests' op words: the ones the ABI reduces with, and prod refused by name.
TEST(SweepSpec, ReduceOpWordsAndProdRefusedClearly) {
  EXPECT_EQ(sweepReduceOp("sum"), DTB_REDUCE_SUM);
  EXPECT_EQ(sweepReduceOp("avg"), DTB_REDUCE_AVG);
  EXPECT_EQ(sweepReduceOp("max"), DTB_REDUCE_MAX);
  EXPECT_EQ(sweepReduceOp("min"), DTB_REDUCE_MIN);
  try {
    sweepReduceOp("prod");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("reduce op 'prod' is not supported"), std::string::npos) << e.what();
  }
  SweepSpec s;
  s.dtypes = expandDtypes({"all"});
  s.reduceOp = "max";
  EXPECT_NO_THROW(s.validate());
  s.reduceOp = "avg";  // the backends average floats only
  EXPECT_THROW(s.validate(), std::invalid_argument);
}

// What `print` wrote to a file.
template <typename Print>
std::string printed(Print print) {
  std::FILE* out = std::tmpfile();
  print(out);
  std::rewind(out);
  std::string text;
  for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) text += static_cast<char>(c);
  std::fclose(out);
  return text;
}

CollectiveRecord row(const std::string& op, const std::string& dtype, int64_t bytes, double timeS) {
  CollectiveRecord r;
  r.op = op;
  r.dtype = dtype;
  r.bytes = bytes;
  r.timeS = timeS;
  r.p50S = timeS;
  r.p95S = timeS;
  return r;
}

TEST(SweepTable, TypeColumnShowsTheDashDWord) {
  const std::string text =
      printed([](std::FILE* out) { printSweepRow(out, row("allreduce", "bf16", 4096, 1e-3), 2, 0); });
  EXPECT_NE(text.find(" bfloat16 allreduce"), std::string::npos) << text;
  EXPECT_EQ(text.find("bf16"), std::string::npos) << text;
}

TEST(SweepTable, HeaderCountsInTheSingular) {
  const std::string text =
      printed([](std::FILE* out) { printSweepHeader(out, "gloo", 1, "local", "sum", 1, 1); });
  EXPECT_NE(text.find("# gloo, 1 rank (local launcher), reduce op sum, 1 warm-up and 1 timed iteration\n"),
            std::string::npos)
      << text;
}

// nccl-tests' footer, one line per collective: the mean busbw of its rows.
TEST(SweepTable, AverageBusBandwidthPerCollective) {
  SweepFooter averages;
  // 1e9 bytes in 1 s at 2 ranks: all-reduce busbw 1 x 2(n-1)/n = 1 GB/s; in 0.5 s, 2 GB/s.
  averages.add(row("allreduce", "f32", 1000000000, 1.0), 2);
  averages.add(row("allreduce", "f32", 1000000000, 0.5), 2);
  averages.add(row("allgather", "f32", 1000000000, 1.0), 2);  // busbw (n-1)/n = 0.5
  const std::string text = printed([&](std::FILE* out) { averages.printAverages(out, "mpi"); });
  EXPECT_EQ(text,
            "# Avg bus bandwidth    : 1.500 GB/s (mpi allreduce, the mean of 2 rows)\n"
            "# Avg bus bandwidth    : 0.500 GB/s (mpi allgather, the mean of 1 row)\n");
  EXPECT_EQ(printed([](std::FILE* out) { SweepFooter().printAverages(out, "mpi"); }), "");
}

// t = a + bus bytes / B recovered exactly from points on that line, and
// nothing claimed from too few points or times that do not grow.
TEST(LatencyBandwidthFit, RecoversTheLineItWasGiven) {
  std::vector<std::pair<double, double>> points;
  for (double bytes : {4096.0, 65536.0, 1048576.0, 16777216.0})
    points.emplace_back(bytes, 10e-6 + bytes / 5e9);
  const auto fit = fitLatencyBandwidth(points);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->latencyS, 10e-6, 1e-12);
  EXPECT_NEAR(fit->busGbps, 5.0, 1e-9);
  EXPECT_EQ(fit->sizes, 4);
  EXPECT_FALSE(fitLatencyBandwidth({points[0], points[1]}));
  EXPECT_FALSE(fitLatencyBandwidth({{1, 1e-3}, {2, 1e-3}, {3, 1e-3}}));  // flat: no bandwidth
  EXPECT_FALSE(fitLatencyBandwidth({{0, 1e-3}, {0, 2e-3}, {0, 3e-3}}));  // one rank: no bus bytes
}

TEST(LatencyBandwidthFit, OneLinePerCollectiveAfterTheTable) {
  SweepFooter fits;
  // All-reduce at 2 ranks: bus bytes = S; 10 us + S / 2 GB/s.
  for (int64_t bytes : {4096, 65536, 1048576})
    fits.add(row("allreduce", "f32", bytes, 10e-6 + bytes / 2e9), 2);
  fits.add(row("allgather", "f32", 4096, 1e-5), 2);  // one size: no fit, no line
  EXPECT_EQ(printed([&](std::FILE* out) { fits.printFits(out, "mpi"); }),
            "# Fit t = a + bus bytes / B: a = 10.0 us, B = 2.000 GB/s (mpi allreduce, 3 sizes)\n");
}

TEST(SweepSpec, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(busFactor("allreduce", 4), 1.5);
  EXPECT_DOUBLE_EQ(busFactor("reduce_scatter", 4), 0.75);
  EXPECT_DOUBLE_EQ(busFactor("allgather", 2), 0.5);
  EXPECT_DOUBLE_EQ(busFactor("broadcast", 8), 1.0);
}

// One rank over the `single` test backend; the records it writes, parsed.
std::vector<Record> sweepOnOneRank(const SweepSpec& sweep, bool corrupt) {
  PluginLoader loader(SearchPath({DTBENCH_TEST_PLUGIN_DIR}));
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.world_size = 1;
  rdv.local_size = 1;
  rdv.timeout_ms = 10000;
  auto backend = createBackend(loader.load(PluginKind::kBackend, "single"), {{"corrupt", corrupt}}, rdv);
  Communicator comm(std::move(backend), 0, 1, std::chrono::milliseconds(10000));
  dtb::testing::TempDir dir;
  const std::string file = (dir.path() / "records").string();
  {
    RecordWriter records(::open(file.c_str(), O_WRONLY | O_CREAT, 0644));
    runCollectiveSweep(sweep, comm, 0, 1, records);
  }
  std::vector<Record> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (auto r = parseRecord(line)) out.push_back(*r);
  }
  return out;
}

TEST(CollectiveSweep, ReportsEveryOpDtypeAndSizeWithNcclTestsBytes) {
  SweepSpec s;
  s.dtypes = {"float", "half", "int8"};
  s.minBytes = 1024;
  s.maxBytes = 4096;
  s.warmup = 1;
  s.iterations = 3;
  const std::vector<Record> records = sweepOnOneRank(s, false);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.front().kind, Record::Kind::kReference);
  EXPECT_EQ(records.front().referenceRecord.name, "memcpy");
  EXPECT_GT(records.front().referenceRecord.gbps, 0);
  int rows = 0;
  for (const Record& r : records) {
    if (r.kind != Record::Kind::kCollective) continue;
    ++rows;
    const CollectiveRecord& c = r.collectiveRecord;
    EXPECT_EQ(c.wrong, 0) << c.op << " " << c.dtype << " " << c.bytes;
    EXPECT_EQ(c.iterations, 3);
    EXPECT_GT(c.timeS, 0);
    EXPECT_LE(*c.p50S, *c.p95S);
    EXPECT_TRUE(c.bytes == 1024 || c.bytes == 2048 || c.bytes == 4096) << c.bytes;
  }
  EXPECT_EQ(rows, 4 * 3 * 3);  // ops x dtypes x sizes
}

TEST(CollectiveSweep, CountsWrongElementsWhenTheBackendAnswersWrong) {
  SweepSpec s;
  s.ops = {"allreduce", "broadcast"};
  s.minBytes = s.maxBytes = 4096;
  s.warmup = 0;
  s.iterations = 1;
  int64_t allreduceWrong = -1, broadcastWrong = -1;
  for (const Record& r : sweepOnOneRank(s, true)) {
    if (r.kind != Record::Kind::kCollective) continue;
    (r.collectiveRecord.op == "allreduce" ? allreduceWrong : broadcastWrong) = r.collectiveRecord.wrong;
  }
  EXPECT_EQ(allreduceWrong, 1);  // element 0 only
  EXPECT_EQ(broadcastWrong, 0);
}

}  // namespace
}  // namespace dtb::core
