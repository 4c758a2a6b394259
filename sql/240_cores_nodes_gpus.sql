-- "node-hours" were processor-hours. `jobs.nodes` stays the replay's
-- size unit (processors for SWF; CPUs or nodes per `ingest --size` for sacct
-- and tables) and two columns keep cores and real nodes apart:
--   cores       allocated cores (SWF: processors, field 5, else field 8;
--               sacct: NCPUS/AllocCPUS, else ReqCPUS; tables: procs, else req_procs)
--   node_count  allocated nodes where the log has them (sacct: NNodes, else
--               ReqNodes; tables: nodes, else req_nodes); NULL for SWF
-- Hours: core-hours from cores (processor-hours for SWF traces), node-hours
-- only from node_count, GPU-hours only from gpus.
ALTER TABLE jobs_legacy ADD COLUMN cores BIGINT;
ALTER TABLE jobs_legacy ADD COLUMN node_count BIGINT;

-- Rows still in the legacy table (a warehouse from before 190): what the size
-- counted (cores unless ingested with --size nodes). Files: jobs_files.ADDED.
UPDATE jobs_legacy SET cores = CASE WHEN t.size_unit = 'nodes' THEN NULL ELSE jobs_legacy.nodes END,
                       node_count = CASE WHEN t.size_unit = 'nodes' THEN jobs_legacy.nodes END
FROM traces t WHERE t.trace = jobs_legacy.trace;

-- A warehouse with jobs files: their files lack the new columns until the
-- first writer rewrites them (pipeline/jobs_files.py, prepare_writer, right
-- after this migration, under the same lock); until then the view shows the
-- (empty) legacy table, whose columns the views below bind to.
CREATE OR REPLACE VIEW jobs AS SELECT * FROM jobs_legacy;

CREATE OR REPLACE VIEW job_owners AS
SELECT *,
       "user"      AS owner_user,       -- names from sacct/table logs; SWF ids as text
       account     AS owner_account,    -- Tang's "project" (SWF: the group id)
       "partition" AS owner_partition
FROM jobs;

-- Jobs with an R = min(run, req) / req, and their hours requested and used:
-- core-hours (cores x time / 3600; processor-hours for SWF), node-hours
-- (NULL where the log has no node counts) and GPU-hours (NULL without GPUs).
-- Replaces req_node_h / used_node_h, which were core- or processor-hours.
CREATE OR REPLACE VIEW summary_jobs_r AS
SELECT trace, job_id, owner_user AS "user", owner_account AS account, owner_partition AS "partition",
       least(run, req)::DOUBLE / req                    AS r,
       cores * req / 3600.0                             AS req_core_h,
       cores * least(run, req) / 3600.0                 AS used_core_h,
       node_count * req / 3600.0                        AS req_node_h,
       node_count * least(run, req) / 3600.0            AS used_node_h,
       gpus * req / 3600.0                              AS req_gpu_h,
       gpus * least(run, req) / 3600.0                  AS used_gpu_h
FROM job_owners
WHERE req > 0 AND run >= 0 AND nodes > 0;

-- One row per trace: the R distribution and the core-hours asked for but not
-- used; node- and GPU-hours where the log has them (NULL otherwise).
CREATE OR REPLACE VIEW summary_r AS
SELECT trace,
       count(*)                                    AS jobs_r,
       median(r)                                   AS median_r,
       avg(r)                                      AS mean_r,
       avg((r < 0.2)::INTEGER)                     AS share_r_lt_0_2,
       avg((r >= 0.99)::INTEGER)                   AS share_killed,
       sum(req_core_h)                             AS req_core_h,
       sum(req_core_h - used_core_h)               AS unused_core_h,
       sum(req_core_h - used_core_h) / nullif(sum(req_core_h), 0) AS unused_share,
       sum(req_node_h)                             AS req_node_h,
       sum(req_node_h - used_node_h)               AS unused_node_h,
       sum(req_gpu_h)                              AS req_gpu_h,
       sum(used_gpu_h)                             AS used_gpu_h
FROM summary_jobs_r
GROUP BY trace;

-- R and unused core-hours per user, account and partition (owners with a
-- known id), ranked by unused core-hours within each trace and kind.
CREATE OR REPLACE VIEW report_waste_by_owner AS
WITH g AS (  -- one pass: a grouping set per kind of owner
    SELECT trace,
           CASE WHEN grouping("user") = 0 THEN 'user' WHEN grouping(account) = 0 THEN 'account'
                ELSE 'partition' END                       AS kind,
           coalesce("user", account, "partition")          AS owner,
           count(*) AS jobs, avg(r) AS mean_r, median(r) AS median_r,
           sum(req_core_h) AS req_core_h, sum(req_core_h - used_core_h) AS unused_core_h
    FROM summary_jobs_r
    GROUP BY GROUPING SETS ((trace, "user"), (trace, account), (trace, "partition"))
)
SELECT g.*, g.unused_core_h / nullif(g.req_core_h, 0) AS unused_share,
       g.unused_core_h / nullif(sum(g.unused_core_h) OVER (PARTITION BY trace, kind), 0) AS share_of_unused,
       row_number() OVER (PARTITION BY trace, kind ORDER BY g.unused_core_h DESC, g.owner) AS rank
FROM g
WHERE g.owner IS NOT NULL;

-- GPU-hours requested (gpus x request) and used (gpus x run) per partition,
-- for the jobs with GPUs; a trace without GPUs has no rows.
CREATE OR REPLACE VIEW summary_gpu_partitions AS
SELECT trace, "partition",
       count(*)                                     AS gpu_jobs,
       sum(gpus * req) / 3600.0                     AS req_gpu_h,
       sum(gpus * greatest(run, 0)) / 3600.0        AS used_gpu_h
FROM jobs
WHERE gpus > 0
GROUP BY trace, "partition";

CREATE OR REPLACE VIEW report_trace_overview AS
SELECT t.trace,
       t.jobs,
       t.rejected,
       strftime(t.first_submit AT TIME ZONE t.tz, '%Y-%m-%d') AS first_day,
       strftime(t.last_submit AT TIME ZONE t.tz, '%Y-%m-%d') AS last_day,
       round(date_diff('second', t.first_submit, t.last_submit) / 86400.0, 1) AS span_days,
       t.capacity,
       t.users,
       t.groups,
       s.share_with_request,
       s.share_with_wait,
       s.core_hours,
       s.node_hours,
       s.gpu_hours
FROM traces t
JOIN (
    SELECT trace,
           round(avg(CASE WHEN req > 0 THEN 1.0 ELSE 0.0 END), 3) AS share_with_request,
           round(avg(CASE WHEN wait IS NOT NULL THEN 1.0 ELSE 0.0 END), 3) AS share_with_wait,
           round(sum(cores * greatest(run, 0)) / 3600.0, 0) AS core_hours,
           round(sum(node_count * greatest(run, 0)) / 3600.0, 0) AS node_hours,
           round(sum(gpus * greatest(run, 0)) / 3600.0, 0) AS gpu_hours
    FROM jobs GROUP BY trace
) s USING (trace);

-- Offered load per month of submission: size-seconds submitted (jobs.nodes, the
-- unit of the capacity) / capacity-seconds of the calendar month (first and last
-- months are partial, so lower); core-, node- and GPU-hours used as above.
CREATE OR REPLACE VIEW report_load_month AS
SELECT j.trace,
       j.month,
       count(*) AS jobs,
       count(DISTINCT j.user_id) AS users,
       round(sum(j.cores * greatest(j.run, 0)) / 3600.0, 0) AS core_hours,
       round(sum(j.node_count * greatest(j.run, 0)) / 3600.0, 0) AS node_hours,
       round(sum(j.gpus * greatest(j.run, 0)) / 3600.0, 0) AS gpu_hours,
       round(sum(j.nodes * greatest(j.run, 0)) / 3600.0, 0) AS size_hours,
       round(sum(j.nodes * greatest(j.run, 0))
             / (any_value(t.capacity)
                * date_diff('second', strptime(j.month, '%Y-%m'), strptime(j.month, '%Y-%m') + INTERVAL 1 MONTH)), 3)
           AS offered_load
FROM jobs j JOIN traces t USING (trace)
GROUP BY j.trace, j.month;

-- Mu'alem & Feitelson Table 1: per month, EASY vs conservative with the users'
-- requests: offered load at the simulated capacity (size_hours: jobs.nodes x run), response time (s) and bounded
-- slowdown; difference = change when switching from EASY to conservative.
CREATE OR REPLACE VIEW report_mualem_table1 AS
WITH r AS (SELECT * FROM report_run_months WHERE experiment = 'mualem' AND role = 'original' AND month <> 'all')
SELECT e.trace, e.month,
       round(l.size_hours * 3600 / (e.capacity * date_diff('second', strptime(e.month, '%Y-%m'),
             strptime(e.month, '%Y-%m') + INTERVAL 1 MONTH)), 3) AS load,  -- at the simulated capacity
       e.jobs,
       round(e.mean_response) AS resp_easy, round(c.mean_response) AS resp_cons,
       round(100 * (c.mean_response / nullif(e.mean_response, 0) - 1), 1) AS resp_diff_pct,
       round(e.mean_bounded_slowdown, 1) AS bsld_easy, round(c.mean_bounded_slowdown, 1) AS bsld_cons,
       round(100 * (c.mean_bounded_slowdown / nullif(e.mean_bounded_slowdown, 0) - 1), 1) AS bsld_diff_pct,
       e.capacity
FROM r e JOIN r c ON c.trace = e.trace AND c.month = e.month AND c.backfill = 'conservative'
LEFT JOIN report_load_month l ON l.trace = e.trace AND l.month = e.month
WHERE e.backfill = 'easy';
