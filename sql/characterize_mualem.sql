-- Mu'alem & Feitelson 2001, Table 2, over the jobs that ran (run >= 0):
--   killed      = status 0 (failed) or 5 (cancelled): how the SWF conversions mark kills
--   100% peak   = used >= 99% of the request (top 1% bin; runs past the request included)
--   0% peak     = used < 1% of the request (bottom 1% bin)
--   zero jobs   = run = 0 (the paper's KTH-only per-node definition is not in SWF)
--   <90sec      = run < 90 s;  <2hr = request <= 2 h (the paper's Fig. 8 scatter plot rule)
-- A row is NULL when no job carries the field it needs (req, status). $1 = trace.
INSERT INTO characterize_mualem
WITH j AS (
    SELECT run, req, status, status IN (0, 5) AS killed
    FROM jobs
    WHERE trace = $1 AND run >= 0
),
c AS (
    SELECT
        count(*)                                                     AS total,
        count(req) FILTER (req > 0) > 0                              AS has_req,
        count(status) > 0                                            AS has_status,
        count(*) FILTER (killed)                                     AS killed,
        count(*) FILTER (req > 0 AND 100 * run >= 99 * req)          AS peak_100,
        count(*) FILTER (req > 0 AND 100 * run >= 99 * req AND killed) AS peak_100_killed,
        count(*) FILTER (req > 0 AND 100 * run < req)                AS peak_0,
        count(*) FILTER (run = 0)                                    AS zero,
        count(*) FILTER (run < 90)                                   AS under_90s,
        count(*) FILTER (req > 0 AND req <= 7200)                    AS under_2h
    FROM j
),
rows AS (
    SELECT 1 AS pos, 'total_jobs' AS row, 'total jobs' AS label, total AS number, total AS base, 'total' AS of FROM c
    UNION ALL SELECT 2, 'killed_jobs', 'killed jobs', CASE WHEN has_status THEN killed END, total, 'total' FROM c
    UNION ALL SELECT 3, 'peak_100', '100% peak', CASE WHEN has_req THEN peak_100 END, total, 'total' FROM c
    UNION ALL SELECT 4, 'peak_100_killed', 'killed', CASE WHEN has_req AND has_status THEN peak_100_killed END,
                     peak_100, '100% peak' FROM c
    UNION ALL SELECT 5, 'peak_0', '0% peak', CASE WHEN has_req THEN peak_0 END, total, 'total' FROM c
    UNION ALL SELECT 6, 'zero_jobs', 'zero jobs', zero, total, 'total' FROM c
    UNION ALL SELECT 7, 'under_90s_jobs', '<90sec jobs', under_90s, total, 'total' FROM c
    UNION ALL SELECT 8, 'under_2h_req_jobs', '<2hr jobs', CASE WHEN has_req THEN under_2h END, total, 'total' FROM c
)
SELECT $1, pos, row, label, number, 100.0 * number / nullif(base, 0), of
FROM rows
ORDER BY pos;
