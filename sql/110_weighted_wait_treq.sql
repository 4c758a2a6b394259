-- Tang Eq. 4 weighted wait with the weight of Eq. 5 as printed: under WFP
-- P_i = (wait / t_req)^3 x nodes with t_req the user's request (sim_jobs.req),
-- no longer the kernel's start score (which uses the adjusted estimate); under
-- every other policy P_i = wait, as before. New runs compute it this way
-- (pipeline/metrics.py, sql/metrics_run.sql); this recomputes the runs stored
-- before migration 070 (still in sim_jobs_legacy then).
UPDATE run_metrics AS m
SET weighted_wait = w.ww
FROM (
    WITH p AS (
        SELECT j.run_id, j.month, j.wait,
               CASE WHEN r.policy = 'wfp' THEN power(j.wait::DOUBLE / greatest(j.req, 1), 3) * j.nodes
                    ELSE j.wait::DOUBLE END AS p
        FROM sim_jobs_legacy j JOIN runs r USING (run_id)
    )
    SELECT run_id, CASE WHEN grouping(month) = 1 THEN 'all' ELSE month END AS month,
           CASE WHEN sum(p) > 0 THEN sum(wait * p) / sum(p) ELSE 0.0 END AS ww
    FROM p GROUP BY GROUPING SETS ((run_id), (run_id, month))
) w
WHERE m.run_id = w.run_id AND m.month = w.month;
