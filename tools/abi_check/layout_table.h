/* The layout of every struct of the plugin ABI, as a C compiler sees it:
 * one row per member (offset, size) and one per struct (its size). The ABI
 * test compares it with the layout of the last release (abi-v1.layout), so
 * an accidental break of the ABI fails CI. */
#ifndef DTBENCH_TOOLS_LAYOUT_TABLE_H
#define DTBENCH_TOOLS_LAYOUT_TABLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dtb_layout_row {
  const char* type;   /* e.g. "dtb_tensor_t" */
  const char* member; /* "" for the row giving the struct's own size */
  size_t offset;
  size_t size;
} dtb_layout_row;

/* The rows, in declaration order; *out_count gets their number. */
const dtb_layout_row* dtb_layout_rows(size_t* out_count);

#ifdef __cplusplus
}
#endif

#endif
