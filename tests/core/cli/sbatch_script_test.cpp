// The batch script `dtbench run --sbatch` writes: what Slurm reads from its
// #SBATCH lines, and a command the shell takes word for word.
#include "cli/sbatch_script.h"

#include <gtest/gtest.h>

namespace dtb::cli {
namespace {

SbatchRequest request() {
  SbatchRequest r;
  r.jobName = "resnet scaling";
  r.ntasks = 8;
  r.output = "/shared/jobs/resnet scaling-%j.out";
  r.workDir = "/shared/work";
  r.command = {
      "/opt/dtbench/bin/dtbench", "run", "/shared/m.toml", "--db", "/shared/r.db", "--set", "launcher=srun"};
  return r;
}

TEST(SbatchScript, AsksForTheLargestCellsTasksAndRunsTheMatrixInTheJob) {
  const std::string text = sbatchScript(request());
  EXPECT_EQ(text.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(text.find("\n#SBATCH --job-name=resnet_scaling\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n#SBATCH --ntasks=8\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("--nodes"), std::string::npos) << "no --nodes unless asked";
  EXPECT_NE(text.find("\ncd /shared/work\nexec /opt/dtbench/bin/dtbench run /shared/m.toml --db /shared/r.db "
                      "--set launcher=srun\n"),
            std::string::npos)
      << text;
}

TEST(SbatchScript, QuotesWhatTheShellWouldSplitOrExpand) {
  SbatchRequest r = request();
  r.nodes = 2;
  r.workDir = "/shared/my work";
  r.command = {"/opt/dtbench", "run",          "/m.toml", "--only", "strategy=bucketed model=resnet",
               "--set",        "name='it''s'", "--set",   "x=$HOME"};
  const std::string text = sbatchScript(r);
  EXPECT_NE(text.find("\n#SBATCH --nodes=2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ncd '/shared/my work'\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" 'strategy=bucketed model=resnet' "), std::string::npos) << text;
  EXPECT_NE(text.find(" 'name='\\''it'\\'''\\''s'\\''' "), std::string::npos) << text;
  EXPECT_NE(text.find(" 'x=$HOME'\n"), std::string::npos) << text;
}

// sbatch splits an #SBATCH line itself (blanks outside quotes, '\' escapes,
// an unquoted '#' starts a comment): an output path with a space, a quote or
// a '#' reaches Slurm whole only quoted its way.
TEST(SbatchScript, TheOutputPathIsOneArgumentOfItsSbatchLine) {
  EXPECT_NE(sbatchScript(request()).find("\n#SBATCH --output=\"/shared/jobs/resnet scaling-%j.out\"\n"),
            std::string::npos)
      << sbatchScript(request());
  SbatchRequest r = request();
  r.output = "/shared/it's \"ours\" #1\\-%j.out";
  EXPECT_NE(sbatchScript(r).find("\n#SBATCH --output=\"/shared/it's \\\"ours\\\" #1\\\\-%j.out\"\n"),
            std::string::npos)
      << sbatchScript(r);
  r.output = "/plain/path-%j.out";
  EXPECT_NE(sbatchScript(r).find("\n#SBATCH --output=/plain/path-%j.out\n"), std::string::npos);
  r.output = "/a\nb-%j.out";
  EXPECT_THROW(sbatchScript(r), std::invalid_argument);
}

}  // namespace
}  // namespace dtb::cli
