-- R = run/req per partition of trace $1 (names from sacct, ids as text for SWF),
-- with its size when known (trace_partitions), and its GPU-hours requested
-- (gpus x req / 3600) and used (gpus x run / 3600) over its jobs with GPUs
-- (NULL in a partition without them). Not stored: cheap, and read
-- with the stored characterization.
SELECT j."partition",
       count(*)                                                    AS jobs,
       count(DISTINCT j."user")                                    AS users,
       count(DISTINCT j.account)                                   AS accounts,
       count(*) FILTER (j.req > 0 AND j.run >= 0)                  AS jobs_r,
       avg(least(j.run, j.req) / j.req::DOUBLE) FILTER (j.req > 0 AND j.run >= 0)    AS mean_r,
       median(least(j.run, j.req) / j.req::DOUBLE) FILTER (j.req > 0 AND j.run >= 0) AS median_r,
       any_value(p.capacity)                                       AS capacity,
       count(*) FILTER (j.gpus > 0)                                AS gpu_jobs,
       sum(j.gpus * j.req) FILTER (j.gpus > 0) / 3600.0            AS req_gpu_h,
       sum(j.gpus * greatest(j.run, 0)) FILTER (j.gpus > 0) / 3600.0 AS used_gpu_h
FROM jobs j
LEFT JOIN trace_partitions p ON p.trace = j.trace AND p."partition" = j."partition"
WHERE j.trace = $1 AND j."partition" IS NOT NULL
GROUP BY j."partition"
ORDER BY jobs DESC, j."partition";
