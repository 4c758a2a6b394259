-- Metrics of one run ($1 = run_id) from its sim_jobs rows, per month of
-- submission and for the whole run (month = 'all'); simulation.md "Metrics".
-- Peak nodes in use is a sweep over start/end events per simulated segment
-- (each month alone with --split month, else the whole run): at equal times
-- ends come before starts, as in the event loop.
-- Weighted wait (Tang Eq. 4): weight P_i = (wait / t_req)^3 x nodes under WFP
-- (Eq. 5 as printed: t_req is the user's request, `req`, the same for every run
-- of a trace, so runs with adjusted estimates are weighted alike), else the
-- wait (FCFS: "the score of FCFS can be represented by the job's waiting time").
-- sim_jobs.score (the kernel's own queue score, from the adjusted estimate) is
-- no longer the weight. Kept in step with tests/naive_metrics.py eq4_weight.
INSERT INTO run_metrics
WITH j AS (
    SELECT * FROM sim_jobs WHERE run_id = $1
),
r AS (
    SELECT capacity, split = 'month' AS by_month, policy FROM runs WHERE run_id = $1
),
jw AS (
    SELECT j.*, eq4_weight(r.policy, j.wait, j.req, j.nodes) AS eq4_weight  -- migration 332
    FROM j, r
),
ev AS (
    SELECT CASE WHEN r.by_month THEN j.month ELSE 'all' END AS segment, j.start AS t, j.nodes AS delta
    FROM j, r WHERE j.run > 0
    UNION ALL
    SELECT CASE WHEN r.by_month THEN j.month ELSE 'all' END, j."end", -j.nodes
    FROM j, r WHERE j.run > 0
),
sweep AS (
    SELECT segment,
           sum(delta) OVER (PARTITION BY segment ORDER BY t, delta
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS in_use
    FROM ev
),
peaks AS (
    SELECT segment, max(in_use) AS peak FROM sweep GROUP BY segment
),
m AS (
    SELECT CASE WHEN grouping(month) = 1 THEN 'all' ELSE month END AS month,
           count(*)                                                AS jobs,
           avg(wait)                                               AS mean_wait,
           median(wait)                                            AS median_wait,
           max(wait)                                               AS max_wait,
           avg(wait + run)                                         AS mean_response,
           avg((wait + run) / greatest(run, 1))                    AS mean_slowdown,
           avg(greatest(1.0, (wait + run) / greatest(run, 10)))    AS mean_bounded_slowdown,
           CASE WHEN sum(eq4_weight) > 0 THEN sum(wait * eq4_weight) / sum(eq4_weight) ELSE 0.0 END AS weighted_wait,
           sum(nodes * run)::DOUBLE
               / NULLIF(any_value(r.capacity) * (max("end") - min(submit)), 0) AS utilization,
           max("end") - min(submit)                                AS makespan,
           avg(backfilled::INT)                                    AS backfill_ratio,
           sum(backfilled::INT)                                    AS backfilled,
           count(predicted_start)                                  AS predicted,
           avg(abs(predicted_start - start))                       AS prediction_error,
           100.0 * avg(abs(predicted_start - start))
               / NULLIF(avg(CASE WHEN predicted_start IS NOT NULL THEN wait END), 0) AS prediction_error_pct
    FROM jw, r
    GROUP BY GROUPING SETS ((), (month))
)
SELECT $1 AS run_id, m.*,
       CASE WHEN m.month = 'all' THEN (SELECT COALESCE(max(peak), 0) FROM peaks)
            WHEN (SELECT by_month FROM r) THEN (SELECT COALESCE(max(peak), 0) FROM peaks p WHERE p.segment = m.month)
       END AS peak_nodes  -- NULL for months of a run that was not split (they share the machine)
FROM m;
