-- Who wins and who loses when the scheduler uses another estimate than the
-- users' requests (`walltime summary`, the report's summary section).
-- Grain: one row per (requests' run, other run of the same trace under the
-- same scheduler, machine, split, load factor and partitions, kind of owner,
-- owner), kind in user / account / partition (owners as job_owners names
-- them, sql/080_summary_views.sql). Only the jobs both runs simulated.
-- Waits in hours; bounded slowdown with the 10 s bound, as run_metrics.
-- wait_change_h: mean wait under the other run minus under the requests
-- (negative: the owner waits less). total_wait_change_h = jobs x wait_change_h
-- ranks the owners: rank_gain 1 saves the most hours of waiting in total,
-- rank_loss 1 loses the most. Ask for one pair: WHERE base_run = ? AND run_id = ?.
CREATE OR REPLACE VIEW summary_owner_change AS
WITH pairs AS (
    SELECT a.trace, a.run_id AS base_run, b.run_id
    FROM runs a
    JOIN runs b ON b.trace = a.trace AND b.run_id <> a.run_id  -- the same replay but for the runtimes:
               AND b.policy = a.policy AND b.backfill = a.backfill AND b.capacity = a.capacity
               AND b.split IS NOT DISTINCT FROM a.split AND b.load_factor = a.load_factor
               AND json_extract(b.config, '$.partitions') IS NOT DISTINCT FROM json_extract(a.config, '$.partitions')
    WHERE a.estimate = 'request'
),
j AS (
    SELECT p.trace, p.base_run, p.run_id,
           o.owner_user, o.owner_account, o.owner_partition,
           a.wait AS base_wait, b.wait AS run_wait,
           greatest(1.0, (a.wait + a.run) / greatest(a.run, 10)) AS base_bsld,
           greatest(1.0, (b.wait + b.run) / greatest(b.run, 10)) AS run_bsld
    FROM pairs p
    JOIN sim_jobs a ON a.run_id = p.base_run
    JOIN sim_jobs b ON b.run_id = p.run_id AND b.job_id = a.job_id
    JOIN job_owners o ON o.trace = p.trace AND o.job_id = a.job_id
),
g AS (  -- one pass: a grouping set per kind of owner
    SELECT trace, base_run, run_id,
           CASE WHEN grouping(owner_user) = 0 THEN 'user' WHEN grouping(owner_account) = 0 THEN 'account'
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
    GROUP BY GROUPING SETS ((trace, base_run, run_id, owner_user), (trace, base_run, run_id, owner_account),
                            (trace, base_run, run_id, owner_partition))
)
SELECT g.*,
       row_number() OVER (PARTITION BY base_run, run_id, kind ORDER BY total_wait_change_h, owner) AS rank_gain,
       row_number() OVER (PARTITION BY base_run, run_id, kind ORDER BY total_wait_change_h DESC, owner) AS rank_loss
FROM g
WHERE g.owner IS NOT NULL;
