-- R = run/req per partition of trace $1 (names from sacct, ids as text for SWF),
-- with its size when known (trace_partitions). Not stored: cheap, and read
-- with the stored characterization.
SELECT j."partition",
       count(*)                                                    AS jobs,
       count(DISTINCT j."user")                                    AS users,
       count(DISTINCT j.account)                                   AS accounts,
       count(*) FILTER (j.req > 0 AND j.run >= 0)                  AS jobs_r,
       avg(least(j.run, j.req) / j.req::DOUBLE) FILTER (j.req > 0 AND j.run >= 0)    AS mean_r,
       median(least(j.run, j.req) / j.req::DOUBLE) FILTER (j.req > 0 AND j.run >= 0) AS median_r,
       any_value(p.capacity)                                       AS capacity
FROM jobs j
LEFT JOIN trace_partitions p ON p.trace = j.trace AND p."partition" = j."partition"
WHERE j.trace = $1 AND j."partition" IS NOT NULL
GROUP BY j."partition"
ORDER BY jobs DESC, j."partition";
