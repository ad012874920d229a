// Mixed precision's limits, checked at plan time (cell_checks.h), and the
// fault that only a mixed-precision run can take.
#include <cmath>

#include "matrix/cell_checks.h"

namespace dtb::core {

void checkPrecision(const CellChecks& checks) {
  for (const Cell& cell : checks.cells) {
    const std::string precision = cell.text("precision");
    if (cell.text("fault.kind") == "overflow" && precision != "fp16") {
      // bf16 has f32's range: it scales no loss, so nothing would skip the step.
      checks.fail("fault.kind", "[fault] kind = \"overflow\" (cell " + std::to_string(cell.index) +
                                    ") tests fp16's loss scaling; this cell's precision is \"" + precision +
                                    "\": set precision = \"fp16\"");
      return;
    }
    if (precision == "fp32") continue;
    const std::string where = "precision = \"" + precision + "\" (cell " + std::to_string(cell.index) + ")";
    if (precision == "fp16" && std::ldexp(1.0, static_cast<int>(cell.integer("initial_scale_power"))) <
                                   cell.real("min_loss_scale")) {
      checks.fail("min_loss_scale", where +
                                        ": the first loss scale, 2^initial_scale_power, is below "
                                        "min_loss_scale");
      return;
    }
    if (cell.integer("accumulation_steps") > 1 && cell.text("strategy") == "zero") {
      // (allreduce, bucketed and fusion sum micro-batches in f32: GradAccumulator.)
      checks.fail("accumulation_steps",
                  where +
                      ": ZeRO's gradient accumulation in mixed precision is not built yet; set "
                      "accumulation_steps = 1");
      return;
    }
  }
}

}  // namespace dtb::core
