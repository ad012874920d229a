-- {{why}}:
-- {{expectation}}.
-- The test passes on a row saying PASS.
SELECT CASE WHEN {{passes}} THEN 'PASS' ELSE 'FAIL' END
       || ': {{measure}} ' || ROUND(mine.{{column}}, {{digits}}) || ' (my_plugin), '
       || ROUND(base.{{column}}, {{digits}}) || ' ({{reference}})' AS verdict
FROM run_summary mine
JOIN run_summary base ON base.experiment_id = mine.experiment_id
WHERE mine.{{kind}} = 'my_plugin' AND base.{{kind}} = '{{reference}}'
  AND mine.status = 'ok' AND base.status = 'ok'
