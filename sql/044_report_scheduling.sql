-- Report section 4 (scheduling) over the runs of report_plan_runs.

-- Month rows of every planned run (run_metrics), with the plan's labels.
CREATE OR REPLACE VIEW report_run_months AS
SELECT p.trace, p.experiment, p.role, p.label, p.pos, p.policy, p.backfill, p.adjust, p.overrun,
       p.run_id, p.capacity, m.*  EXCLUDE (run_id)
FROM report_plan_runs p JOIN run_metrics m ON m.run_id = p.run_id;

-- Tang et al. Figs. 14-17 (a)-(c): per month, each scheme relative to the
-- baseline (users' requests) under the same policy; as in the paper the
-- baseline wait and weighted wait are 100 and the baseline slowdown is 10.
CREATE OR REPLACE VIEW report_tang_months AS
WITH r AS (SELECT * FROM report_run_months WHERE experiment = 'tang' AND month <> 'all'),
     b AS (SELECT * FROM r WHERE role = 'original')
SELECT r.trace, r.policy, r.adjust, r.role AS scheme, r.month, r.jobs,
       round(b.mean_wait / 60, 1)                               AS baseline_wait_min,
       round(100 * r.mean_wait / nullif(b.mean_wait, 0), 1)     AS wait,
       round(10 * r.mean_slowdown / nullif(b.mean_slowdown, 0), 2) AS slowdown,
       round(100 * r.weighted_wait / nullif(b.weighted_wait, 0), 1) AS weighted_wait
FROM r JOIN b ON b.trace = r.trace AND b.policy = r.policy AND b.month = r.month
WHERE r.role <> 'original';

-- Panel (d): the average over months of each scheme's gain (percent; positive
-- = better than the baseline), months where the baseline wait is 0 left out;
-- and the scheme's accuracy gain over the requests.
CREATE OR REPLACE VIEW report_tang_gain AS
SELECT m.trace, m.policy, m.adjust, m.scheme,
       count(*) AS months,
       round(avg(100 - m.wait), 1)               AS wait_gain_pct,
       round(avg(100 - 10 * m.slowdown), 1)      AS slowdown_gain_pct,
       round(avg(100 - m.weighted_wait), 1)      AS weighted_wait_gain_pct,
       round(100 * (any_value(a.acc_mean) / any_value(o.acc_mean) - 1), 1) AS accuracy_gain_pct
FROM report_tang_months m
LEFT JOIN report_schemes s ON s.trace = m.trace AND s.role = m.scheme
LEFT JOIN estimate_accuracy a ON a.trace = m.trace AND a.scheme = s.estimate
LEFT JOIN estimate_accuracy o ON o.trace = m.trace AND o.scheme = 'request'
WHERE m.wait IS NOT NULL AND m.slowdown IS NOT NULL AND m.weighted_wait IS NOT NULL
GROUP BY m.trace, m.policy, m.adjust, m.scheme;

-- Mu'alem & Feitelson Table 1: per month, EASY vs conservative with the users'
-- requests: offered load at the simulated capacity, response time (s) and bounded
-- slowdown; difference = change when switching from EASY to conservative.
CREATE OR REPLACE VIEW report_mualem_table1 AS
WITH r AS (SELECT * FROM report_run_months WHERE experiment = 'mualem' AND role = 'original' AND month <> 'all')
SELECT e.trace, e.month,
       round(l.node_hours * 3600 / (e.capacity * date_diff('second', strptime(e.month, '%Y-%m'),
             strptime(e.month, '%Y-%m') + INTERVAL 1 MONTH)), 3) AS load,  -- at the simulated capacity
       e.jobs,
       round(e.mean_response) AS resp_easy, round(c.mean_response) AS resp_cons,
       round(100 * (c.mean_response / nullif(e.mean_response, 0) - 1), 1) AS resp_diff_pct,
       round(e.mean_bounded_slowdown, 1) AS bsld_easy, round(c.mean_bounded_slowdown, 1) AS bsld_cons,
       round(100 * (c.mean_bounded_slowdown / nullif(e.mean_bounded_slowdown, 0) - 1), 1) AS bsld_diff_pct,
       e.capacity
FROM r e JOIN r c ON c.trace = e.trace AND c.month = e.month AND c.backfill = 'conservative'
LEFT JOIN report_load_month l ON l.trace = e.trace AND l.month = e.month
WHERE e.backfill = 'easy';

-- Mu'alem & Feitelson Table 3: estimates uniform in [r, f r] (one seed) beside the
-- users' requests; whole-trace means of the monthly simulations.
CREATE OR REPLACE VIEW report_mualem_table3 AS
WITH a AS (SELECT * FROM report_run_months WHERE experiment = 'mualem' AND month = 'all'),
m AS (
    SELECT trace, backfill, 1 AS mpos, 'bounded slowdown' AS metric, role, mean_bounded_slowdown AS v FROM a
    UNION ALL
    SELECT trace, backfill, 2, 'response time', role, mean_response FROM a
)
SELECT trace, backfill, metric,
       round(max(v) FILTER (WHERE role = 'original'), 2) AS original,
       round(max(v) FILTER (WHERE role = 'f1'), 2)   AS f1,
       round(max(v) FILTER (WHERE role = 'f2'), 2)   AS f2,
       round(max(v) FILTER (WHERE role = 'f4'), 2)   AS f4,
       round(max(v) FILTER (WHERE role = 'f11'), 2)  AS f11,
       round(max(v) FILTER (WHERE role = 'f31'), 2)  AS f31,
       round(max(v) FILTER (WHERE role = 'f101'), 2) AS f101,
       round(max(v) FILTER (WHERE role = 'f301'), 2) AS f301
FROM m GROUP BY trace, backfill, mpos, metric;

-- Mu'alem & Feitelson Table 4: the users' requests doubled.
CREATE OR REPLACE VIEW report_mualem_table4 AS
WITH a AS (SELECT * FROM report_run_months WHERE experiment = 'mualem' AND month = 'all'
           AND role IN ('original', 'double')),
m AS (
    SELECT trace, backfill, 1 AS mpos, 'bounded slowdown' AS metric, role, mean_bounded_slowdown AS v FROM a
    UNION ALL
    SELECT trace, backfill, 2, 'response time', role, mean_response FROM a
),
p AS (
    SELECT trace, mpos, metric,
           max(v) FILTER (WHERE backfill = 'easy' AND role = 'original') AS eo,
           max(v) FILTER (WHERE backfill = 'easy' AND role = 'double') AS ed,
           max(v) FILTER (WHERE backfill = 'conservative' AND role = 'original') AS co,
           max(v) FILTER (WHERE backfill = 'conservative' AND role = 'double') AS cd
    FROM m GROUP BY trace, mpos, metric
)
SELECT trace, metric,
       round(eo, 2) AS easy_orig, round(ed, 2) AS easy_x2, round(100 * (ed / nullif(eo, 0) - 1), 1) AS easy_diff_pct,
       round(co, 2) AS cons_orig, round(cd, 2) AS cons_x2, round(100 * (cd / nullif(co, 0) - 1), 1) AS cons_diff_pct
FROM p;

-- Klusacek & Soysal Fig. 5: share of backfilled jobs under FCFS + conservative
-- backfilling with exact runtimes, the users' requests and the predictor.
CREATE OR REPLACE VIEW report_ks_backfill AS
SELECT trace, pos, label AS walltime, jobs, round(100 * backfill_ratio, 2) AS backfilled_pct,
       round(mean_wait / 60, 1) AS mean_wait_min, round(mean_bounded_slowdown, 2) AS mean_bsld,
       capacity
FROM report_run_months WHERE experiment = 'klusacek' AND month = 'all';

-- Klusacek & Soysal Figs. 6-7: distribution of job wait times.
CREATE OR REPLACE VIEW report_ks_wait AS
WITH w AS (
    SELECT p.trace, p.pos, p.label, s.wait,
           CASE WHEN s.wait = 0 THEN 0 WHEN s.wait <= 600 THEN 1 WHEN s.wait <= 3600 THEN 2
                WHEN s.wait <= 3 * 3600 THEN 3 WHEN s.wait <= 6 * 3600 THEN 4
                WHEN s.wait <= 12 * 3600 THEN 5 WHEN s.wait <= 86400 THEN 6 ELSE 7 END AS bin
    FROM report_plan_runs p JOIN sim_jobs s ON s.run_id = p.run_id
    WHERE p.experiment = 'klusacek'
)
SELECT trace, pos, label AS walltime, bin,
       ['0 (immediate)', '<= 10 min', '10 min - 1 h', '1 - 3 h', '3 - 6 h', '6 - 12 h', '12 - 24 h', '> 24 h'][bin + 1] AS wait,
       count(*) AS jobs,
       round(count(*) / sum(count(*)) OVER (PARTITION BY trace, pos), 4) AS share
FROM w GROUP BY trace, pos, label, bin;
