-- `walltime summary`: the paired comparison of runs of one trace with the
-- requests' run, period by period of submission (pipeline/summary/compare.py).
-- Grain: one row per (other run, period): the jobs both runs simulated, and
-- the sums of their waits (seconds) and of their bounded slowdowns (10 s
-- bound, as run_metrics) under each run. One scan of the requests' run serves
-- every other run.
-- $1 = the run with the users' requests, $2 = the other runs (VARCHAR[]),
-- $3 = the period in seconds from the first submission (0: the month of submission).
SELECT b.run_id,
       CASE WHEN $3 = 0 THEN a.month ELSE floor(a.submit / $3)::BIGINT::VARCHAR END AS period,
       count(*)                                                        AS jobs,
       sum(a.wait)::DOUBLE                                             AS base_wait,
       sum(b.wait)::DOUBLE                                             AS run_wait,
       sum(greatest(1.0, (a.wait + a.run) / greatest(a.run, 10)))      AS base_bsld,
       sum(greatest(1.0, (b.wait + b.run) / greatest(b.run, 10)))      AS run_bsld
FROM sim_jobs a
JOIN sim_jobs b ON b.job_id = a.job_id AND b.run_id IN (SELECT unnest($2::VARCHAR[]))
WHERE a.run_id = $1
GROUP BY 1, 2
ORDER BY 1, min(a.submit);
