-- Runs of the whole trace on processor counts with the forecast on the
-- estimates: what a "run with these options" means to the report and the
-- reproduction. Before this, report_plan_runs took the newest run with the
-- same policy, backfill, estimate, ... whatever else it was, so a node-aware
-- run (node_runs), a --forecast-with run or a --partition run made later with
-- the same options replaced the plain one in the report's tables (found when
-- klusacek-nodes added conservative CTC runs and Klusacek & Soysal's Fig. 5
-- rows on CTC read the node-aware runs).
-- (plain_runs is redefined by 220_plain_runs_queue_order.sql: EASY++ runs left out too)
CREATE OR REPLACE VIEW plain_runs AS
SELECT * FROM runs
WHERE run_id NOT IN (SELECT run_id FROM node_runs)
  AND json_extract(config, '$.forecast_with') IS NULL
  AND json_extract(config, '$.partitions') IS NULL;

CREATE OR REPLACE VIEW report_plan_runs AS
SELECT p.*, r.run_id, r.capacity, r.jobs_simulated
FROM report_plan p
LEFT JOIN (
    SELECT * FROM plain_runs
    WHERE load_factor = 1.0
    QUALIFY row_number() OVER (
        PARTITION BY trace, policy, backfill, estimate, adjust, overrun, split, predict_wait
        ORDER BY created_at DESC) = 1
) r ON r.trace = p.trace AND r.estimate = p.estimate AND r.policy = p.policy
   AND r.backfill = p.backfill AND r.adjust = p.adjust AND r.overrun = p.overrun
   AND r.split IS NOT DISTINCT FROM p.split AND r.predict_wait = p.predict_wait;
