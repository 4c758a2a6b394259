-- `walltime summary`: the paired comparison of two runs of one trace, period
-- by period of submission (pipeline/summary/compare.py). One row per period:
-- the jobs both runs simulated, and the sums of their waits (seconds) and of
-- their bounded slowdowns (10 s bound, as run_metrics) under each run.
-- $1 = the run with the users' requests, $2 = the other run,
-- $3 = the period in seconds from the first submission (0: the month of submission).
SELECT CASE WHEN $3 = 0 THEN a.month ELSE floor(a.submit / $3)::BIGINT::VARCHAR END AS period,
       count(*)                                                        AS jobs,
       sum(a.wait)::DOUBLE                                             AS base_wait,
       sum(b.wait)::DOUBLE                                             AS run_wait,
       sum(greatest(1.0, (a.wait + a.run) / greatest(a.run, 10)))      AS base_bsld,
       sum(greatest(1.0, (b.wait + b.run) / greatest(b.run, 10)))      AS run_bsld
FROM sim_jobs a
JOIN sim_jobs b ON b.job_id = a.job_id AND b.run_id = $2
WHERE a.run_id = $1
GROUP BY 1
ORDER BY min(a.submit);
