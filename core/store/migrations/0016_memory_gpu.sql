-- A rank that trained on a GPU: that GPU's memory in use at the end of
-- training, as its driver counts it (cudaMemGetInfo's total minus free:
-- the rank's CUDA context, the model's and the strategy's buffers, cuDNN's
-- workspaces, NCCL's, and whatever other processes hold on that GPU, as
-- nvidia-smi shows it). dtbench's GPU buffers only grow, so this is the
-- run's peak. NULL: the rank trained on the CPU.
ALTER TABLE memory ADD COLUMN gpu_used_bytes INTEGER;  -- bytes of the rank's GPU in use at the end of training
