// Flags that users of torchrun, horovodrun, mpirun and DeepSpeed's launcher
// type to `dtbench run` and `validate` (-np 2, --nproc_per_node=2,
// --master_addr ...): dtbench takes these as matrix keys, so the refusal
// says what to type instead (--set world_size=2) rather than "File does not
// exist: 2" or a bare "argument was not expected".
#pragma once

#include <string>
#include <vector>

namespace dtb::cli {

// The error for the arguments CLI11 could not place (`extras`, in order),
// or "" when there are none. `positional` is what was taken as the matrix
// file: after `-np 2 m.toml` that is "2", the flag's value.
std::string foreignFlagsError(const std::string& command, const std::vector<std::string>& extras,
                              const std::string& positional);

}  // namespace dtb::cli
