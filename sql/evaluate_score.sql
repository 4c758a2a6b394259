-- AVEbsld, mean wait and underestimation rate of run $1's jobs, for the jobs
-- after the first $2 in loop order (submit, job_id) -- 'scored' -- and for all
-- of them -- 'whole'. Bounded slowdown as in simulation.md "Metrics" and
-- Gaussier et al. 2015: max(1, (wait + run) / max(run, 10)), 10 s threshold.
-- Underestimated: the estimate the scheduler used while the job waited is
-- below its run time.
WITH j AS (
    SELECT row_number() OVER (ORDER BY submit, job_id) AS k,
           greatest(1.0, (wait + run) / greatest(run, 10)) AS bsld,
           wait,
           (est_wait < run)::INT AS under
    FROM sim_jobs WHERE run_id = $1
)
SELECT 'scored' AS period, count(*) AS jobs, avg(bsld) AS avebsld, avg(wait) AS mean_wait, avg(under) AS under_rate
FROM j WHERE k > $2
UNION ALL
SELECT 'whole', count(*), avg(bsld), avg(wait), avg(under) FROM j
