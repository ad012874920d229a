-- What the strategy views hold against theory: the bytes a rank moves per
-- training step, counted as nccl-tests' bus bytes (all-reduce S x 2(n-1)/n,
-- reduce-scatter and all-gather S x (n-1)/n, broadcast S), and the model's
-- size and the optimizer's state per element.
ALTER TABLE epoch ADD COLUMN step_bus_bytes REAL;      -- nccl-tests' bus bytes a rank moved per training step, mean over the epoch's steps and ranks
ALTER TABLE memory ADD COLUMN param_elements INTEGER;  -- Ψ: the model's parameter count
ALTER TABLE memory ADD COLUMN state_floats INTEGER;    -- optimizer state f32 values per parameter element
