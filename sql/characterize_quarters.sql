-- Tang Fig. 2: mean R per quarter of submission. jobs.month is YYYY-MM in the
-- trace's time zone (traces.tz), so quarters are too. $1 = trace.
INSERT INTO characterize_quarters
SELECT $1,
       substr(month, 1, 4) || '-Q' || ((CAST(substr(month, 6, 2) AS INTEGER) + 2) // 3) AS quarter,
       count(*),
       avg(least(run, req) / req::DOUBLE),
       stddev_samp(least(run, req) / req::DOUBLE)
FROM jobs
WHERE trace = $1 AND req > 0 AND run >= 0 AND NOT cut_short(state, wait, run) AND month IS NOT NULL
GROUP BY quarter
ORDER BY quarter;
