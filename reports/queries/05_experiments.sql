-- Report query: the experiments the report covers, with their runs' outcome.
SELECT x.id AS experiment_id, x.name, x.description, x.created_at, x.host, x.matrix_path,
       x.dtbench_version, x.git_commit,
       COUNT(r.id) AS runs, SUM(r.status = 'ok') AS ok, SUM(r.status = 'failed') AS failed,
       SUM(r.strategy = 'sweep') AS sweeps
FROM experiment x
LEFT JOIN run r ON r.experiment_id = x.id
WHERE x.id IN ({experiments})
GROUP BY x.id
ORDER BY x.id;
