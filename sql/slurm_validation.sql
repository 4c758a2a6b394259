-- Repeated real runs of one workload beside a replay of each (docs/slurm-replay.md, "Validation").
-- $1: the real runs' traces (a list), $2: the replay runs' ids (a list; each replays one of $1).
-- Jobs are matched across runs by name (the workload names every job); times are seconds from the run's
-- first submission, so runs made at different hours line up. One row per (job name, real run) and per
-- (job name, replay): kind 'real' or 'replay', its trace, the run id (replays), the submission and start
-- offsets and the wait (from the release time, as the calibration counts it). The wait of a job that was
-- requeued counts from its last release (a real requeue: Eligible, 121 s after the preemption; a replayed one:
-- the replay's), and its start is the last one: the start offset is release + wait, not submit + wait.
WITH origin AS (SELECT trace, min(submit) AS t0 FROM jobs WHERE list_contains($1, trace) GROUP BY trace),
real AS (
    SELECT 'real' AS kind, j.trace, NULL::VARCHAR AS run_id, j.job_name, j.submit - o.t0 AS submit_off, j.wait,
           CASE WHEN t.release = 'eligible' THEN coalesce(j.eligible, j.submit) ELSE j.submit END + j.wait - o.t0
               AS start_off
    FROM jobs j JOIN traces t USING (trace) JOIN origin o USING (trace)
    WHERE list_contains($1, j.trace) AND j.wait >= 0 AND j.job_name IS NOT NULL
),
replay AS (
    SELECT 'replay' AS kind, r.trace, s.run_id, j.job_name, s.submit - o.t0 AS submit_off, s.wait,
           s.submit + s.wait - o.t0 AS start_off
    FROM sim_jobs s JOIN runs r USING (run_id) JOIN origin o ON o.trace = r.trace
    JOIN jobs j ON j.trace = r.trace AND j.job_id = s.job_id
    WHERE list_contains($2, s.run_id) AND s.wait IS NOT NULL AND j.job_name IS NOT NULL
)
SELECT * FROM real
UNION ALL
SELECT * FROM replay
ORDER BY kind, trace, run_id, job_name;
