/* dtbench-abi-dump: prints the ABI's struct layouts, one row per line:
 *   <type> <member> <offset> <size>      (member "-" for the struct's size)
 * `dtbench-abi-dump > tools/abi_check/abi-v1.layout` records a release. */
#include <stdio.h>

#include "layout_table.h"

int main(void) {
  size_t count = 0;
  const dtb_layout_row* rows = dtb_layout_rows(&count);
  for (size_t i = 0; i < count; ++i) {
    printf("%s %s %zu %zu\n", rows[i].type, rows[i].member[0] ? rows[i].member : "-", rows[i].offset,
           rows[i].size);
  }
  return 0;
}
