-- What `walltime simulate` needs to know about a trace before loading jobs:
-- its capacity, content hash, the widest job that would be simulated, and how
-- many jobs can be (a run time and a size: none is refused before any work).
-- One scan of the trace's jobs (four subqueries took 0.8 s at 11M jobs).
WITH j AS (
    SELECT max(nodes) FILTER (WHERE run >= 0)                  AS max_nodes,
           arg_max(job_id, nodes) FILTER (WHERE run >= 0)      AS widest_job,
           count(*) FILTER (WHERE req > 0)                     AS with_request,
           count(*) FILTER (WHERE run >= 0 AND nodes > 0)      AS runnable
    FROM jobs
    WHERE trace = $1
)
SELECT t.trace, t.capacity, t.sha256, t.jobs, j.max_nodes, j.widest_job, j.with_request, j.runnable
FROM traces t, j
WHERE t.trace = $1;
