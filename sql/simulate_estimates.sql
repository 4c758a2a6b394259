-- A scheme's stored estimates of a trace's jobs (float seconds), by job_id: load_inputs matches
-- them to simulate_inputs.sql's jobs (a job without one gets NaN, then its request).
-- $1 trace, $2 canonical estimate scheme.
SELECT job_id, est
FROM estimates
WHERE trace = $1 AND scheme = $2
ORDER BY job_id;
