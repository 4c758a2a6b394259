-- One row per requeued job (sacct --duplicates): how many attempts
-- it took, its first submission (a requeued job's Submit in `jobs` is its
-- last requeue), and the core-hours its cut-short attempts used.
CREATE VIEW requeued_jobs AS
SELECT trace, job_id, any_value(slurm_id) AS slurm_id,
       count(*) + 1 AS attempts,                 -- the earlier ones and the job itself
       min(submit_ts) AS first_submit_ts,        -- attempt 1's Submit
       sum(run * cpus) / 3600.0 AS lost_core_hours
FROM job_attempts
GROUP BY trace, job_id;
