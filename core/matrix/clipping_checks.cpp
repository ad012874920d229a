// Gradient clipping's limits, checked at plan time (cell_checks.h).
#include "matrix/cell_checks.h"

namespace dtb::core {

void checkGradientClipping(const CellChecks& checks) {
  for (const Cell& cell : checks.cells) {
    if (cell.real("gradient_clipping") <= 0 || cell.text("device") != "cuda") continue;
    // The host measures the norm on host tensors (host_services.cpp's optim_check).
    checks.fail("gradient_clipping", "gradient_clipping (cell " + std::to_string(cell.index) +
                                         ") clips gradients on the CPU only so far; on a GPU set "
                                         "gradient_clipping = 0");
    return;
  }
}

}  // namespace dtb::core
