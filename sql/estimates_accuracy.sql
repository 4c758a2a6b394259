-- Accuracy per scheme of the relation est_long(scheme, run, req, est) (one row per job;
-- req NULL = no request). Tang et al. 2013 Eq. 3: accuracy = min(run, est) / max(run, est),
-- 1 when equal. Classes (shares of scored jobs, summing to 1): NA est = req;
-- UE/BE est < run by < / >= 30 min; OE run <= est < req; above: the rest.
WITH scored AS (
    SELECT scheme, run, req, est,
           CASE WHEN est = run THEN 1.0 ELSE least(est, run) / greatest(est, run) END AS acc,
           CASE
               WHEN est = req THEN 'na'
               WHEN est < run AND run - est < 1800 THEN 'ue'
               WHEN est < run THEN 'be'
               WHEN est < req THEN 'oe'
               ELSE 'above'
           END AS cls
    FROM est_long
    WHERE run IS NOT NULL AND est IS NOT NULL
)
SELECT l.scheme,
       count(s.scheme)                                     AS scored,
       avg(s.acc)                                          AS acc_mean,
       median(s.acc)                                       AS acc_median,
       avg(s.acc) FILTER (WHERE s.est >= s.run)            AS acc_mean_not_under,
       avg((s.est < s.run)::DOUBLE)                       AS under_rate,
       avg((s.cls = 'na')::DOUBLE)                       AS na,
       avg((s.cls = 'oe')::DOUBLE)                       AS oe,
       avg((s.cls = 'ue')::DOUBLE)                       AS ue,
       avg((s.cls = 'be')::DOUBLE)                       AS be,
       avg((s.cls = 'above')::DOUBLE)                    AS above
FROM (SELECT DISTINCT scheme FROM est_long) l
LEFT JOIN scored s ON s.scheme = l.scheme
GROUP BY l.scheme
ORDER BY l.scheme;
