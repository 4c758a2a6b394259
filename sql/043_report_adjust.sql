-- Report section 3 (adjustment schemes, Tang et al. Figs. 4-11) from the stored
-- `--grid tang` (estimate_grid) and the per-job estimates of the report's schemes.

-- Fig. 4: mean accuracy by key and percentile, window "all", no floor; the
-- users' own requests ("original") for comparison.
CREATE OR REPLACE VIEW report_grid_accuracy AS
SELECT g.trace,
       list_position(['max', 'p95', 'p90', 'p85', 'p80', 'p75', 'p70', 'median', 'mean'], g.stat) AS pos,
       g.stat,
       round(max(g.acc_mean) FILTER (WHERE g.key_type = 'user'), 3)             AS single_user,
       round(max(g.acc_mean) FILTER (WHERE g.key_type = 'project'), 3)          AS single_project,
       round(max(g.acc_mean) FILTER (WHERE g.key_type = 'user_project'), 3)     AS double_key,
       round(max(g.acc_mean) FILTER (WHERE g.key_type = 'user_project_req'), 3) AS triple_key,
       round(any_value(a.acc_mean), 3)                                          AS original
FROM estimate_grid g
LEFT JOIN estimate_accuracy a ON a.trace = g.trace AND a.scheme = 'request'
WHERE g.grid = 'tang' AND g.win = 'all' AND g.floor = 0
GROUP BY g.trace, g.stat;

-- Fig. 5: shares of NA / OE / UE / BE (and estimates above the request) for the
-- triple and double keys, window "all", no floor.
CREATE OR REPLACE VIEW report_grid_shares AS
SELECT trace, key_type,
       list_position(['max', 'p95', 'p90', 'p85', 'p80', 'p75', 'p70', 'median', 'mean'], stat) AS pos,
       stat, round(na, 3) AS na, round(oe, 3) AS oe, round(ue, 3) AS ue, round(be, 3) AS be,
       round(above, 3) AS above, round(acc_mean, 3) AS acc_mean
FROM estimate_grid
WHERE grid = 'tang' AND win = 'all' AND floor = 0 AND key_type IN ('user_project_req', 'user_project');

-- Figs. 6-7: the floor A >= 0.5: underestimated share and accuracy without and with it.
CREATE OR REPLACE VIEW report_grid_floor AS
SELECT trace, key_type,
       list_position(['max', 'p95', 'p90', 'p85', 'p80', 'p75', 'p70', 'median', 'mean'], stat) AS pos,
       stat,
       round(max(under_rate) FILTER (WHERE floor = 0), 3)   AS under_no_floor,
       round(max(under_rate) FILTER (WHERE floor = 0.5), 3) AS under_floor_0_5,
       round(max(acc_mean) FILTER (WHERE floor = 0), 3)     AS acc_no_floor,
       round(max(acc_mean) FILTER (WHERE floor = 0.5), 3)   AS acc_floor_0_5
FROM estimate_grid
WHERE grid = 'tang' AND win = 'all' AND key_type IN ('user_project_req', 'user_project')
GROUP BY ALL;

-- Figs. 8-10: the history window: accuracy and underestimated share (UE + BE)
-- per window, floor 0.5.
CREATE OR REPLACE VIEW report_grid_window AS
SELECT trace, key_type,
       list_position(['max', 'p95', 'p90', 'p85', 'p80', 'p75', 'p70', 'median', 'mean'], stat) AS pos,
       stat,
       round(max(acc_mean) FILTER (WHERE win = '30d'), 3)  AS acc_30d,
       round(max(acc_mean) FILTER (WHERE win = '90d'), 3)  AS acc_90d,
       round(max(acc_mean) FILTER (WHERE win = '365d'), 3) AS acc_365d,
       round(max(acc_mean) FILTER (WHERE win = 'all'), 3)  AS acc_all,
       round(max(ue + be) FILTER (WHERE win = '30d'), 3)   AS under_30d,
       round(max(ue + be) FILTER (WHERE win = '90d'), 3)   AS under_90d,
       round(max(ue + be) FILTER (WHERE win = '365d'), 3)  AS under_365d,
       round(max(ue + be) FILTER (WHERE win = 'all'), 3)   AS under_all,
       round(max(be) FILTER (WHERE win = '30d'), 4)        AS be_30d,
       round(max(be) FILTER (WHERE win = 'all'), 4)        AS be_all
FROM estimate_grid
WHERE grid = 'tang' AND floor = 0.5 AND key_type IN ('user_project_req', 'user_project')
GROUP BY ALL;

-- Per-job accuracy (Tang Eq. 3) of the report's estimate roles.
CREATE OR REPLACE VIEW report_job_accuracy AS
SELECT s.trace, s.role, s.label, s.pos, j.job_id, j.month,
       CASE WHEN e.est = j.run THEN 1.0 ELSE least(e.est, j.run) / greatest(e.est, j.run) END AS acc
FROM report_schemes s
JOIN estimates e ON e.trace = s.trace AND e.scheme = s.estimate
JOIN jobs j ON j.trace = e.trace AND j.job_id = e.job_id
WHERE j.run >= 0 AND e.est IS NOT NULL;

-- Fig. 11: CDF of the per-job accuracy before (original) and after adjustment
-- (p95 / p85 / p70, one-month window): share of jobs with accuracy <= x.
CREATE OR REPLACE VIEW report_accuracy_cdf AS
WITH b AS (
    SELECT trace, role, label, pos, least(20, ceil(acc * 20 - 1e-9))::INTEGER AS k, count(*) AS n
    FROM report_job_accuracy WHERE role IN ('original', 'p95', 'p85', 'p70')
    GROUP BY ALL
),
tot AS (SELECT trace, role, sum(n) AS total FROM b GROUP BY ALL),
grid AS (SELECT DISTINCT b.trace, b.role, b.label, b.pos, g.k FROM b, range(0, 21) g(k))
SELECT g.trace, g.label AS scheme, g.k / 20.0 AS x,
       round(coalesce(sum(b.n), 0) / any_value(t.total), 4) AS share_le
FROM grid g JOIN tot t USING (trace, role)
LEFT JOIN b ON b.trace = g.trace AND b.role = g.role AND b.k <= g.k
GROUP BY g.trace, g.pos, g.label, g.k;

-- Fig. 13 / accuracy summary of the roles: mean and median accuracy, underestimated share.
CREATE OR REPLACE VIEW report_role_accuracy AS
SELECT s.trace, s.pos, s.label AS scheme, s.estimate,
       a.scored, round(a.acc_mean, 3) AS acc_mean, round(a.acc_median, 3) AS acc_median,
       round(a.under_rate, 3) AS under_rate, round(a.na, 3) AS na, round(a.oe, 3) AS oe,
       round(a.ue, 3) AS ue, round(a.be, 3) AS be
FROM report_schemes s JOIN estimate_accuracy a ON a.trace = s.trace AND a.scheme = s.estimate
WHERE s.role IN ('original', 'p95', 'p85', 'p70', 'klusacek', 'feitelson', 'ave2');

-- Fig. 13: mean accuracy per month of submission.
CREATE OR REPLACE VIEW report_accuracy_month AS
SELECT trace, month,
       round(avg(acc) FILTER (WHERE role = 'original'), 3) AS original,
       round(avg(acc) FILTER (WHERE role = 'p95'), 3) AS p95,
       round(avg(acc) FILTER (WHERE role = 'p85'), 3) AS p85,
       round(avg(acc) FILTER (WHERE role = 'p70'), 3) AS p70,
       count(*) FILTER (WHERE role = 'original') AS jobs
FROM report_job_accuracy WHERE role IN ('original', 'p95', 'p85', 'p70')
GROUP BY trace, month;
