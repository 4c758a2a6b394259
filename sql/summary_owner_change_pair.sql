-- summary_owner_change (sql/210_summary_owner_change.sql) for one pair of runs, the owners ranked in
-- the TOP first and last: what `walltime summary` shows as who wins and who loses.
-- $1 trace, $2 the requests' run (base_run), $3 the other run, $4 how many owners each way.
-- Why a query of its own beside the view: the view pairs every requests' run with every other run
-- before the pair is chosen, so asking it for one pair still joins all the trace's runs' jobs
-- (at 11M jobs and four runs: 11 s against 2.8 s here). The same columns and the same definitions;
-- tests/test_summary_advice.py holds the two equal.
WITH a AS (SELECT job_id, wait, run FROM sim_jobs WHERE run_id = $2),
b AS (SELECT job_id, wait, run FROM sim_jobs WHERE run_id = $3),
j AS (
    SELECT o.owner_user, o.owner_account, o.owner_partition,
           a.wait AS base_wait, b.wait AS run_wait,
           greatest(1.0, (a.wait + a.run) / greatest(a.run, 10)) AS base_bsld,
           greatest(1.0, (b.wait + b.run) / greatest(b.run, 10)) AS run_bsld
    FROM a
    JOIN b ON b.job_id = a.job_id
    JOIN job_owners o ON o.trace = $1 AND o.job_id = a.job_id
),
g AS (  -- one pass: a grouping set per kind of owner
    SELECT CASE WHEN grouping(owner_user) = 0 THEN 'user' WHEN grouping(owner_account) = 0 THEN 'account'
                ELSE 'partition' END                          AS kind,
           coalesce(owner_user, owner_account, owner_partition) AS owner,
           count(*)                                           AS jobs,
           avg(base_wait) / 3600.0                            AS base_mean_wait_h,
           avg(run_wait) / 3600.0                             AS mean_wait_h,
           avg(run_wait - base_wait) / 3600.0                 AS wait_change_h,
           sum(run_wait - base_wait) / 3600.0                 AS total_wait_change_h,
           avg(base_bsld)                                     AS base_mean_bsld,
           avg(run_bsld)                                      AS mean_bsld,
           avg(run_bsld - base_bsld)                          AS bsld_change
    FROM j
    GROUP BY GROUPING SETS ((owner_user), (owner_account), (owner_partition))
),
ranked AS (
    SELECT g.*,
           row_number() OVER (PARTITION BY kind ORDER BY total_wait_change_h, owner)      AS rank_gain,
           row_number() OVER (PARTITION BY kind ORDER BY total_wait_change_h DESC, owner) AS rank_loss
    FROM g
    WHERE g.owner IS NOT NULL
)
SELECT kind, owner, jobs, base_mean_wait_h, mean_wait_h, wait_change_h, total_wait_change_h,
       base_mean_bsld, mean_bsld, bsld_change, rank_gain, rank_loss
FROM ranked
WHERE rank_gain <= $4 OR rank_loss <= $4
ORDER BY kind, rank_gain;
