-- Core-hours used by the earlier attempts of requeued jobs (job_attempts: sacct --duplicates),
-- work that was cut short (preempted, node failure, requeued) and ran again; per State word. $1 = trace.
-- core-hours = run (s, End - Start) x cpus (NCPUS) / 3600.
SELECT split_part(state, ' ', 1) AS state,
       count(*) AS attempts,
       count(DISTINCT job_id) AS jobs,
       sum(run * cpus) / 3600.0 AS core_hours
FROM job_attempts
WHERE trace = $1
GROUP BY ALL
ORDER BY core_hours DESC NULLS LAST, state
