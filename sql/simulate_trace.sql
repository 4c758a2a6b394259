-- What `walltime simulate` needs to know about a trace before loading jobs:
-- its capacity, content hash, the widest job that would be simulated, and how
-- many jobs can be (a run time and a size: none is refused before any work).
SELECT t.trace, t.capacity, t.sha256, t.jobs,
       (SELECT max(nodes) FROM jobs j WHERE j.trace = t.trace AND j.run >= 0) AS max_nodes,
       (SELECT arg_max(job_id, nodes) FROM jobs j WHERE j.trace = t.trace AND j.run >= 0) AS widest_job,
       (SELECT count(*) FROM jobs j WHERE j.trace = t.trace AND j.req > 0) AS with_request,
       (SELECT count(*) FROM jobs j WHERE j.trace = t.trace AND j.run >= 0 AND j.nodes > 0) AS runnable
FROM traces t
WHERE t.trace = $1;
