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
--   min_nodes  the minimum node count the job asked for: sacct ReqNodes (else ReqTRES node=; JSON/YAML
--              tres.requested node); for `-N a-b`, a; `-n 4` without `-N` gives 1. NULL when the log does not
--              say (SWF, tables, jobs loaded before migration 333).
--   max_nodes  the maximum node count the job asked for: the `-N`/`--nodes` option of its SubmitLine before
--              any `--wrap` (`-N 2` -> 2, `-N 1-3` -> 3, `--nodes=2`, `-N2`; the last one given). NULL when no
--              node count was given (the job may spread over nodes) or when the log has no submit line
--              (22.05's sacct --json/--yaml, SWF, tables, jobs loaded before 333), or the value is not one
--              sbatch accepts. Options after `--wrap` are the wrapped command's, not sbatch's.
--              NULL cannot tell "no -N" from "no submit line": a dump without SubmitLine (README's suggested
--              --format has none; 22.05's JSON) leaves every job's max_nodes NULL, `-N1 --exclusive` jobs too.
--              traces.submit_lines (sql/334_submit_lines.sql) says which: TRUE, the dump had SubmitLine, so
--              NULL is "no -N"; the replay guesses (some job's -N or -p list) only where it is NULL.
--              What else fixes or bounds it, in 22.05's source (none of it is in these columns):
--              `-w`/`--nodelist` raises the minimum to the list's node count but sets no maximum (sbatch
--              opt.c _opt_verify; slurmctld job_mgr.c _job_create), so a `-n 4 -w node1` job may still take
--              node1 and another node (tests/data/slurm job 33 did); `--exclusive` and `--ntasks-per-node`
--              set no maximum (with `-N` absent, ntasks-per-node only sets the task count from the minimum);
--              `-m arbitrary` without `-N` fixes it to the node list's count (opt.c). With `-N a-b` and
--              `-n T < b`, sbatch lowers the maximum to T (opt.c: "max_nodes is <= number of tasks"); not
--              applied here (the column is what `-N` says). cons_tres's _eval_nodes_spread, _busy and _lln
--              cap the maximum at the task count (job_test.c: max_nodes = MIN(max_nodes, num_tasks)); the
--              default _eval_nodes does not. The task count (`-n`) is not in the warehouse. A `#SBATCH -N` in
--              the script or SBATCH_/SLURM_NNODES in the environment is not on the line (NULL here). The
--              partition's MinNodes/MaxNodes bound both (node_scheduler.c get_node_cnts).
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
       j.min_nodes,
       j.max_nodes,
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
