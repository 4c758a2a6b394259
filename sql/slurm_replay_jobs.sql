-- What the Slurm-shaped replay reads of each job beyond the event loop's inputs (docs/slurm-replay.md).
-- $1 trace. One row per job; the replay joins these to simulate_inputs' rows by job_id.
--   cpus      CPUs asked for (sacct ReqCPUS, else the CPUs it held)
--   held_cpus CPUs it held (NCPUS): more than the request rounded to whole cores means --exclusive
--   nodes     nodes it held (NNodes, else ReqNodes; 1 when the log has none)
--   mem_mb    memory in MB over the whole job (ReqMem; req_mem is KB per held CPU)
--   req_gpus / gpus: GPUs asked for / held (held beyond the request: an exclusive node's GPUs)
SELECT job_id,
       "partition",
       "user",
       account,
       qos,
       COALESCE(NULLIF(req_procs, 0), cores, nodes, 1)           AS cpus,
       COALESCE(cores, req_procs, nodes, 1)                      AS held_cpus,
       COALESCE(NULLIF(node_count, 0), 1)                        AS nodes,
       COALESCE(req_mem * COALESCE(cores, req_procs, 1) / 1024.0, 0) AS mem_mb,
       COALESCE(req_gpus, gpus, 0)                               AS req_gpus,
       COALESCE(gpus, 0)                                         AS gpus
FROM jobs
WHERE trace = $1;
