-- What the Slurm-shaped replay reads of each job beyond the event loop's inputs (docs/slurm-replay.md).
-- $1 trace. One row per job; the replay joins these to simulate_inputs' rows by job_id. Only a Slurm log says
-- what a job asked for apart from what it held; for SWF and tables a job asks for its size (the replay's
-- processors) on one node, with no memory and no exclusivity.
--   cpus      CPUs asked for (sacct ReqCPUS, else the CPUs it held)
--   held_cpus CPUs it held (NCPUS): more than the request rounded to whole cores means --exclusive
--   nodes     nodes it held (NNodes, else ReqNodes; 1 when the log has none)
--   mem_mb    memory in MB over the whole job (ReqMem; req_mem is KB per held CPU)
--   req_gpus / gpus: GPUs asked for / held (held beyond the request: an exclusive node's GPUs)
--   req_partitions  the partitions it was submitted to ("batch,small"; NULL: where it ran)
--   first_release   for a job whose earlier attempts (sacct --duplicates: job_attempts) were all PREEMPTED, the
--                   release of its first attempt on the jobs' clock (eligible, else submit): a replay that models
--                   preemption submits it then; NULL otherwise
WITH firsts AS (
    SELECT job_id, min_by(coalesce(eligible_ts, submit_ts), attempt) AS first_ts,
           bool_and(starts_with(coalesce(state, ''), 'PREEMPTED')) AS all_preempted
    FROM job_attempts WHERE trace = $1 GROUP BY job_id)
SELECT j.job_id,
       j."partition",
       j.req_partitions,
       j."user",
       j.account,
       j.qos,
       CASE WHEN sacct THEN COALESCE(NULLIF(j.req_procs, 0), j.cores, j.nodes, 1) ELSE COALESCE(j.nodes, 1) END AS cpus,
       CASE WHEN sacct THEN COALESCE(j.cores, j.req_procs, j.nodes, 1) ELSE COALESCE(j.nodes, 1) END AS held_cpus,
       CASE WHEN sacct THEN COALESCE(NULLIF(j.node_count, 0), 1) ELSE 1 END                     AS nodes,
       CASE WHEN sacct THEN COALESCE(j.req_mem * COALESCE(j.cores, j.req_procs, 1) / 1024.0, 0) ELSE 0 END AS mem_mb,
       COALESCE(j.req_gpus, j.gpus, 0)                                                          AS req_gpus,
       COALESCE(j.gpus, 0)                                                                      AS gpus,
       CASE WHEN f.all_preempted THEN j.submit + (epoch(f.first_ts) - epoch(j.submit_ts))::BIGINT END AS first_release
FROM jobs j
JOIN (SELECT trace, starts_with(format, 'sacct') AS sacct FROM traces) t USING (trace)
LEFT JOIN firsts f USING (job_id)
WHERE j.trace = $1;
