-- Issue 42: a Slurm replay with QOS preemption counts the jobs it preempted and how many times (NULL for any
-- other run); run_calibration puts them beside the log's (a PREEMPTED attempt of `sacct --duplicates`,
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

CREATE OR REPLACE VIEW run_calibration AS
WITH j AS (
    SELECT s.run_id, j.wait AS log_wait, s.wait AS rep_wait
    FROM sim_jobs s JOIN runs r USING (run_id) JOIN jobs j ON j.trace = r.trace AND j.job_id = s.job_id
    WHERE j.wait >= 0 AND s.wait IS NOT NULL
),
w AS (
    SELECT run_id, count(*) AS jobs, avg(log_wait) AS log_mean_wait, avg(rep_wait) AS rep_mean_wait,
           median(log_wait) AS log_median_wait, median(rep_wait) AS rep_median_wait
    FROM j GROUP BY run_id
),
m AS (
    SELECT run_id, any_value(bin_s) AS bin_s, count(*) AS bins,
           count(*) FILTER (log_moving_wait > 0) AS bins_scored,
           100 * avg(abs(rep_moving_wait - log_moving_wait) / log_moving_wait) FILTER (log_moving_wait > 0)
               AS moving_wait_mape
    FROM run_calibration_bins GROUP BY run_id
)
SELECT r.run_id, r.trace, coalesce(r.scheduler, 'queue') AS scheduler, r.policy, r.backfill, r.estimate, r.adjust, r.load_factor, r.split,
       w.jobs, w.log_mean_wait, w.rep_mean_wait, w.log_median_wait, w.rep_median_wait,
       m.bin_s, m.bins, m.bins_scored, m.moving_wait_mape,
       r.preempted_jobs, r.preemptions,
       CASE WHEN r.preempted_jobs IS NOT NULL THEN coalesce(tp.preempted_jobs, 0) END AS log_preempted_jobs,
       CASE WHEN r.preempted_jobs IS NOT NULL THEN coalesce(tp.preemptions, 0) END AS log_preemptions
FROM w JOIN m USING (run_id) JOIN runs r USING (run_id) LEFT JOIN trace_preemptions tp ON tp.trace = r.trace;
