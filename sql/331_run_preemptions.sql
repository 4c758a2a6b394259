-- A Slurm replay with QOS preemption counts the jobs it preempted and how many times (NULL for any
-- other run); run_preemptions puts them beside the log's (a PREEMPTED attempt of `sacct --duplicates`,
-- job_attempts, or a job that ended PREEMPTED).
ALTER TABLE runs ADD COLUMN preempted_jobs BIGINT;
ALTER TABLE runs ADD COLUMN preemptions BIGINT;

CREATE OR REPLACE VIEW trace_preemptions AS
WITH p AS (
    SELECT trace, job_id FROM job_attempts WHERE starts_with(coalesce(state, ''), 'PREEMPTED')
    UNION ALL
    SELECT trace, job_id FROM jobs WHERE starts_with(coalesce(state, ''), 'PREEMPTED')
)
SELECT trace, count(DISTINCT job_id) AS preempted_jobs, count(*) AS preemptions FROM p GROUP BY trace;

-- A replay's preemptions beside its log's (NULL columns: a run that modelled none); calibration.read joins it
-- to run_calibration.
CREATE OR REPLACE VIEW run_preemptions AS
SELECT r.run_id, r.preempted_jobs, r.preemptions,
       coalesce(tp.preempted_jobs, 0) AS log_preempted_jobs, coalesce(tp.preemptions, 0) AS log_preemptions
FROM runs r LEFT JOIN trace_preemptions tp ON tp.trace = r.trace
WHERE r.preempted_jobs IS NOT NULL;
