// DTB_HOST_DEVICE marks a function that runs on the host and, compiled by
// nvcc, on the GPU too: one definition of what both sides compute (a sweep's
// expected values, the fused optimizer's tables), so the two cannot drift.
#pragma once

#ifdef __CUDACC__
#define DTB_HOST_DEVICE __host__ __device__
#else
#define DTB_HOST_DEVICE
#endif
