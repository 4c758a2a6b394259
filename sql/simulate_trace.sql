-- What `walltime simulate` needs to know about a trace before loading jobs:
-- its capacity, content hash, and the widest job that would be simulated.
SELECT t.trace, t.capacity, t.sha256, t.jobs,
       (SELECT max(nodes) FROM jobs j WHERE j.trace = t.trace AND j.run >= 0) AS max_nodes,
       (SELECT arg_max(job_id, nodes) FROM jobs j WHERE j.trace = t.trace AND j.run >= 0) AS widest_job,
       (SELECT count(*) FROM jobs j WHERE j.trace = t.trace AND j.req > 0) AS with_request
FROM traces t
WHERE t.trace = $1;
