-- plain_runs (one row per run; first defined in 180_plain_runs.sql) leaves
-- out EASY++ runs too: `--backfill-order sjbf` is kept in the canonical
-- config only (no runs column; runs in queue order have no key), so without
-- this an sjbf run made later with the same policy, backfill, estimate, ...
-- would replace the plain EASY run in report_plan_runs and in the
-- reproduction's tables, as node-aware and --forecast-with runs did before 180.
CREATE OR REPLACE VIEW plain_runs AS
SELECT * FROM runs
WHERE run_id NOT IN (SELECT run_id FROM node_runs)
  AND json_extract(config, '$.forecast_with') IS NULL
  AND json_extract(config, '$.partitions') IS NULL
  AND json_extract(config, '$.backfill_order') IS NULL;
