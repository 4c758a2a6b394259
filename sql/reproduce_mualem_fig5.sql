-- Mu'alem & Feitelson Fig. 5: the amount of backfilling, share of jobs started by
-- the backfill scan (sim_jobs.backfilled: while a job ahead in queue order still
-- waited), in the Section 3 runs (users' requests, each month alone), EASY beside
-- conservative; with the runs' whole-trace mean response time and bounded
-- slowdown (run_metrics row 'all'). $1 = the traces.
SELECT p.trace, p.backfill, count(*) AS jobs,
       100 * avg(s.backfilled::INT) AS backfilled_pct,
       any_value(m.mean_response) AS mean_response,
       any_value(m.mean_bounded_slowdown) AS mean_bounded_slowdown
FROM report_plan_runs p
JOIN sim_jobs s ON s.run_id = p.run_id
JOIN run_metrics m ON m.run_id = p.run_id AND m.month = 'all'
WHERE p.experiment = 'mualem' AND p.role = 'original' AND p.trace IN (SELECT unnest($1::VARCHAR[]))
GROUP BY p.trace, p.backfill
ORDER BY p.trace, p.backfill
