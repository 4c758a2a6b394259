-- R = run/req per partition of trace $1 (names from sacct, ids as text for SWF),
-- with its size when known (trace_partitions), and its GPU-hours requested
-- (GPUs asked for, req_gpus, x req / 3600) and used (GPUs held x min(run, req) / 3600) over its jobs with
-- GPUs that finished with a request and were not cut short: the jobs of
-- summary_gpu_partitions (NULL in a partition without them). Runs cut short
-- (sql/321_cut_short_runs.sql) are left out of R too. Not stored: cheap, and read
-- with the stored characterization.
WITH j AS (  -- has_r: a job with an R (a request, a run, not cut short)
    SELECT *, coalesce(req > 0 AND run >= 0, false) AND NOT cut_short(state, wait, run) AS has_r
    FROM jobs
    WHERE trace = $1 AND "partition" IS NOT NULL
)
SELECT j."partition",
       count(*)                                                           AS jobs,
       count(DISTINCT j."user")                                           AS users,
       count(DISTINCT j.account)                                          AS accounts,
       count(*) FILTER (j.has_r)                                          AS jobs_r,
       avg(least(j.run, j.req) / j.req::DOUBLE) FILTER (j.has_r)          AS mean_r,
       median(least(j.run, j.req) / j.req::DOUBLE) FILTER (j.has_r)       AS median_r,
       any_value(p.capacity)                                              AS capacity,
       count(*) FILTER (j.gpus > 0 AND j.has_r)                           AS gpu_jobs,
       sum(coalesce(j.req_gpus, j.gpus) * j.req) FILTER (j.gpus > 0 AND j.has_r) / 3600.0 AS req_gpu_h,
       sum(j.gpus * least(j.run, j.req)) FILTER (j.gpus > 0 AND j.has_r) / 3600.0 AS used_gpu_h
FROM j
LEFT JOIN trace_partitions p ON p.trace = j.trace AND p."partition" = j."partition"
GROUP BY j."partition"
ORDER BY jobs DESC, j."partition";
