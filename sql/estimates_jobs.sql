-- The columns every estimator needs, one row per job of trace $1, in job_id order: the jobs files
-- are written in that order and DuckDB keeps a scan's order, so load_jobs (pipeline/estimates) sorts
-- only when they are not; an ORDER BY here made DuckDB hold a second copy while sorting (11M jobs:
-- peak 5.9 GB, without it 3.4 GB).
-- req <= 0 is "no request" (NULL here); end is NULL when wait or run is unknown,
-- and for a run cut short (sql/321_cut_short_runs.sql: preempted, node failure,
-- cancelled while running): no estimator learns from it, as if it never ended,
-- and its accuracy is not scored (cut_short); its own estimate is made as for any job.
SELECT job_id,
       submit,
       run,
       CASE WHEN req > 0 THEN req END AS req,
       CASE WHEN NOT cut_short(state, wait, run) THEN "end" END AS "end",
       cut_short(state, wait, run) AS cut_short,
       user_id,
       group_id,
       exe_id,
       queue_id,
       partition_id,
       nodes,
       -- for the learned scheme (pipeline/estimates/learned.py): names and sizes
       procs,
       gpus,
       "user",
       account,
       "partition",
       qos,
       job_name,
       CAST(epoch(submit_ts) AS BIGINT) AS submit_epoch
       -- (and tz, the trace's zone: sql/estimates_tz.sql, added by load_jobs as one value, not a
       -- text column of every job: 0.36 GB of the load's RSS at 11M jobs)
FROM jobs
WHERE trace = $1;
