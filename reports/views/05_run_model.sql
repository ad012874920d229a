-- The model of each run as the field names it, with its depth where the
-- plugin has one (resnet50, not resnet; lenet stays lenet): every view's
-- `model` column reads it, so one model has one name everywhere.
--   run_id  the run (run.id)
--   model   the model plugin's name and its depth parameter, if any: resnet50, lenet
CREATE VIEW run_model AS
SELECT r.id AS run_id,
       r.model || COALESCE((SELECT p.value FROM run_param p
                            WHERE p.run_id = r.id AND p.key = 'model.' || r.model || '.depth'), '') AS model
FROM run r;
