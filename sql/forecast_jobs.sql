-- The predictor columns of trace $1's jobs for a wait forecast that re-predicts
-- running jobs (pipeline/simulate/conditional.py): characteristics and the
-- request as the estimators see it (NULL = none). Joined to the loop's order in Python.
SELECT job_id,
       CASE WHEN req > 0 THEN req END AS req,
       user_id,
       group_id,
       exe_id,
       queue_id,
       partition_id,
       nodes
FROM jobs
WHERE trace = $1
ORDER BY job_id;
