-- One row per stored simulation run with its whole-run metrics in reading
-- units: the report's "study runs" table (a study's own runs, side by side).
CREATE OR REPLACE VIEW report_runs AS
SELECT r.run_id, r.trace, r.policy, r.backfill, r.estimate, r.adjust, r.overrun,
       coalesce(r.split, 'whole trace') AS split, r.capacity, m.jobs,
       m.mean_wait / 3600.0             AS mean_wait_h,
       m.median_wait / 3600.0           AS median_wait_h,
       m.mean_bounded_slowdown,
       m.utilization,
       m.backfill_ratio,
       r.created_at
FROM runs r JOIN run_metrics m ON m.run_id = r.run_id AND m.month = 'all';
