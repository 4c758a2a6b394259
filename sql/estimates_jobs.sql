-- The columns every estimator needs, one row per job of trace $1.
-- req <= 0 is "no request" (NULL here); end is NULL when wait or run is unknown.
SELECT job_id,
       submit,
       run,
       CASE WHEN req > 0 THEN req END AS req,
       "end",
       user_id,
       group_id,
       exe_id,
       queue_id,
       partition_id,
       nodes
FROM jobs
WHERE trace = $1
ORDER BY job_id;
