-- The interface each rank's transport used: the one named (run_param
-- 'interface'), or the one holding the address it bound (lo for a local
-- run); '' when none of its host's interfaces does.
ALTER TABLE rank_host ADD COLUMN interface TEXT;
