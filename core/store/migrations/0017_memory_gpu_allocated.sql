-- A rank that trained on a GPU: the most GPU memory it held through dtbench
-- at once (the model's parameters, gradients, activations and cuDNN
-- workspace, the strategy's buckets, partitions and optimizer state, the
-- host's prefetch slots and mixed-precision records): PyTorch's
-- torch.cuda.max_memory_allocated. Without the CUDA context and what
-- cuDNN, cuBLAS and NCCL allocate inside themselves, which gpu_used_bytes
-- counts with the rest of the GPU. NULL: the rank trained on the CPU.
ALTER TABLE memory ADD COLUMN gpu_peak_allocated_bytes INTEGER;  -- the most GPU memory the rank held through dtbench at once
