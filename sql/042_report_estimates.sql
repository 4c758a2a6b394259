-- Report section 2 (user estimates). Thin views over the characterize_* tables
-- (Tang et al. Sec. 3, Fig. 1, Fig. 2, Table 2; Mu'alem & Feitelson Table 2) and
-- views over jobs + estimates for Klusacek & Soysal Figs. 2-4.

CREATE OR REPLACE VIEW report_r_summary AS
SELECT trace, jobs, jobs_r, round(mean_r, 3) AS mean_r, round(std_r, 3) AS std_r,
       round(share_lt_0_2, 3) AS share_r_lt_0_2, round(share_lt_0_5, 3) AS share_r_lt_0_5,
       round(share_gt_0_8, 3) AS share_r_gt_0_8, round(share_ge_0_99, 3) AS share_r_ge_0_99
FROM characterize_summary;

CREATE OR REPLACE VIEW report_r_hist AS
SELECT trace, bin, lo, hi, jobs, round(share, 4) AS share FROM characterize_hist;

CREATE OR REPLACE VIEW report_r_cdf AS
SELECT trace, x, share_le FROM characterize_cdf;

CREATE OR REPLACE VIEW report_r_quarters AS
SELECT trace, quarter, jobs, round(mean_r, 3) AS mean_r, round(std_r, 3) AS std_r
FROM characterize_quarters;

CREATE OR REPLACE VIEW report_r_keys AS
SELECT trace, pos, key_type, groups, jobs, round(avg_std_r, 3) AS avg_std_r
FROM characterize_keys;

CREATE OR REPLACE VIEW report_mualem_table2 AS
SELECT trace, pos, label, number, round(pct, 1) AS pct, "of" FROM characterize_mualem;

-- Klusacek & Soysal Fig. 2: CDFs of actual, requested and predicted
-- (klusacek:last=5) runtimes over jobs with a run time and a request, at
-- 10^(k/10) seconds, k = 0..60 (1 s .. 11.6 days).
CREATE OR REPLACE VIEW report_runtime_cdf AS
WITH base AS (
    SELECT j.trace, j.job_id, j.run, j.req FROM jobs j WHERE j.run >= 0 AND j.req > 0
),
vals AS (
    SELECT trace, 1 AS pos, 'actual' AS walltime, run::DOUBLE AS v FROM base
    UNION ALL
    SELECT trace, 2, 'user estimate', req::DOUBLE FROM base
    UNION ALL
    SELECT b.trace, 3, 'predictor', e.est
    FROM base b JOIN estimates e ON e.trace = b.trace AND e.job_id = b.job_id
    WHERE e.scheme = 'klusacek:last=5' AND e.est IS NOT NULL
),
buckets AS (
    SELECT trace, pos, walltime,
           CASE WHEN v <= 1 THEN 0 ELSE least(61, ceil(10 * log10(v) - 1e-9))::INTEGER END AS k,
           count(*) AS n
    FROM vals GROUP BY ALL
),
grid AS (
    SELECT DISTINCT b.trace, b.pos, b.walltime, g.k
    FROM buckets b, range(0, 61) g(k)
)
SELECT g.trace, g.walltime, g.k,
       round(pow(10, g.k / 10.0)) AS seconds,
       round(coalesce(sum(b.n), 0) / any_value(t.total), 4) AS share_le
FROM grid g
JOIN (SELECT trace, pos, sum(n) AS total FROM buckets GROUP BY ALL) t USING (trace, pos)
LEFT JOIN buckets b ON b.trace = g.trace AND b.pos = g.pos AND b.k <= g.k
GROUP BY g.trace, g.pos, g.walltime, g.k
ORDER BY g.trace, g.pos, g.k;

-- Klusacek & Soysal Figs. 3-4: per user, the mean absolute error (hours) of the
-- user's requests and of the predictor, over that user's jobs with a run time,
-- a request and a prediction.
CREATE OR REPLACE VIEW report_user_error AS
SELECT j.trace,
       row_number() OVER (PARTITION BY j.trace ORDER BY avg(abs(j.req - j.run)) DESC, j.user_id) AS rank_by_request,
       j.user_id, count(*) AS jobs,
       round(avg(abs(j.req - j.run)) / 3600.0, 3) AS mae_request_h,
       round(avg(abs(e.est - j.run)) / 3600.0, 3) AS mae_predictor_h
FROM jobs j JOIN estimates e ON e.trace = j.trace AND e.job_id = j.job_id
WHERE e.scheme = 'klusacek:last=5' AND e.est IS NOT NULL AND j.run >= 0 AND j.req > 0
  AND j.user_id IS NOT NULL
GROUP BY j.trace, j.user_id;
