-- `walltime summary` and the report's waste views: how wrong the requested
-- times are, per trace and per owner (user, account, partition).

-- Who owns each job, as text. The ONE place that says where a job's user,
-- account and partition come from: the names jobs carries (sacct and table
-- logs: from the log; SWF: the ids as text, migration 060).
CREATE OR REPLACE VIEW job_owners AS
SELECT *,
       "user"      AS owner_user,       -- names from sacct/table logs; SWF ids as text
       account     AS owner_account,    -- Tang's "project" (SWF: the group id)
       "partition" AS owner_partition
FROM jobs;

-- Jobs with an R = min(run, req) / req, and their node-hours requested and used.
CREATE OR REPLACE VIEW summary_jobs_r AS
SELECT trace, job_id, owner_user AS "user", owner_account AS account, owner_partition AS "partition",
       least(run, req)::DOUBLE / req                    AS r,
       nodes * req / 3600.0                             AS req_node_h,
       nodes * least(run, req) / 3600.0                 AS used_node_h
FROM job_owners
WHERE req > 0 AND run >= 0 AND nodes > 0;

-- One row per trace: the R distribution and the node-hours asked for but not used.
-- "Killed at the limit" is R >= 0.99, as in characterize (Tang et al. Sec. 3.2).
CREATE OR REPLACE VIEW summary_r AS
SELECT trace,
       count(*)                                    AS jobs_r,
       median(r)                                   AS median_r,
       avg(r)                                      AS mean_r,
       avg((r < 0.2)::INTEGER)                     AS share_r_lt_0_2,
       avg((r >= 0.99)::INTEGER)                   AS share_killed,
       sum(req_node_h)                             AS req_node_h,
       sum(req_node_h - used_node_h)               AS unused_node_h,
       sum(req_node_h - used_node_h) / nullif(sum(req_node_h), 0) AS unused_share
FROM summary_jobs_r
GROUP BY trace;

-- R and unused node-hours per user, account and partition (owners with a
-- known id), ranked by unused node-hours within each trace and kind.
CREATE OR REPLACE VIEW report_waste_by_owner AS
WITH g AS (  -- one pass: a grouping set per kind of owner
    SELECT trace,
           CASE WHEN grouping("user") = 0 THEN 'user' WHEN grouping(account) = 0 THEN 'account'
                ELSE 'partition' END                       AS kind,
           coalesce("user", account, "partition")          AS owner,
           count(*) AS jobs, avg(r) AS mean_r, median(r) AS median_r,
           sum(req_node_h) AS req_node_h, sum(req_node_h - used_node_h) AS unused_node_h
    FROM summary_jobs_r
    GROUP BY GROUPING SETS ((trace, "user"), (trace, account), (trace, "partition"))
)
SELECT g.*, g.unused_node_h / nullif(g.req_node_h, 0) AS unused_share,
       g.unused_node_h / nullif(sum(g.unused_node_h) OVER (PARTITION BY trace, kind), 0) AS share_of_unused,
       row_number() OVER (PARTITION BY trace, kind ORDER BY g.unused_node_h DESC, g.owner) AS rank
FROM g
WHERE g.owner IS NOT NULL;
