-- Jobs of one trace as the event loop's inputs (simulation spec, "Inputs,
-- per job"): unknown runtime or size left out; in (submit, job_id) order.
-- Used by the kernel's real-trace tests and bench/simulate.py.
SELECT job_id, submit, run, nodes, coalesce(req, 0) AS req
FROM jobs
WHERE trace = ? AND run >= 0 AND nodes > 0
ORDER BY submit, job_id
