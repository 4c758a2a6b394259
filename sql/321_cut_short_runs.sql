-- Runs cut short, and totals kept whole.
--
-- A job cut short ran less than it would have: preempted (PREEMPTED), lost
-- with its node (NODE_FAIL), or cancelled after it started (CANCELLED ...
-- with a start and a run). Its run is a censored observation: it is not the
-- job's runtime, so it stays out of R, of the accuracy of every estimate, of
-- the unused-hour statistics and of every estimator's history (the estimates
-- stage reads it as a job that never ended: sql/estimates_jobs.sql). It still
-- ran on the machine: the replay keeps it, with the time it held its CPUs.
-- Only logs with job states (sacct, JSON/YAML, tables with a state column)
-- have such jobs; an SWF job has no state (its status 5 "cancelled" stays in,
-- as in the papers reproduced).
CREATE OR REPLACE MACRO cut_short(state, wait, run) AS
    coalesce(split_part(upper(state), ' ', 1) IN ('PREEMPTED', 'NODE_FAIL')
             OR (split_part(upper(state), ' ', 1) = 'CANCELLED' AND wait IS NOT NULL AND run IS NOT NULL),
             false);

-- Jobs with an R = min(run, req) / req, and their hours requested and used;
-- runs cut short left out (above). GPU-hours requested count the GPUs the job
-- asked for (req_gpus, migration 320; the allocated ones where the log cannot
-- say), used the GPUs it held: a --exclusive job that asked for none requests 0
-- and uses the node's.
CREATE OR REPLACE VIEW summary_jobs_r AS
SELECT trace, job_id, owner_user AS "user", owner_account AS account, owner_partition AS "partition",
       least(run, req)::DOUBLE / req                    AS r,
       cores * req / 3600.0                             AS req_core_h,
       cores * least(run, req) / 3600.0                 AS used_core_h,
       node_count * req / 3600.0                        AS req_node_h,
       node_count * least(run, req) / 3600.0            AS used_node_h,
       coalesce(req_gpus, gpus) * req / 3600.0          AS req_gpu_h,
       gpus * least(run, req) / 3600.0                  AS used_gpu_h
FROM job_owners
WHERE req > 0 AND run >= 0 AND nodes > 0 AND NOT cut_short(state, wait, run);

-- Per trace: the jobs cut short, what they held, and their states; the
-- summary says how many it left out and why.
CREATE OR REPLACE VIEW summary_cut_short AS
SELECT trace,
       count(*)                                              AS jobs,
       sum(cores * run) / 3600.0                             AS core_h,
       count(*) FILTER (split_part(upper(state), ' ', 1) = 'PREEMPTED')  AS preempted,
       count(*) FILTER (split_part(upper(state), ' ', 1) = 'NODE_FAIL')  AS node_fail,
       count(*) FILTER (split_part(upper(state), ' ', 1) = 'CANCELLED')  AS cancelled_running
FROM jobs
WHERE cut_short(state, wait, run)
GROUP BY trace;

-- Klusacek & Soysal Figs. 3-4 per user: request and predictor errors over jobs
-- with a true runtime (runs cut short left out); hours unrounded.
CREATE OR REPLACE VIEW report_user_error AS
SELECT j.trace,
       row_number() OVER (PARTITION BY j.trace ORDER BY avg(abs(j.req - j.run)) DESC, j.user_id) AS rank_by_request,
       j.user_id, any_value(j."user") AS "user", count(*) AS jobs,
       avg(abs(j.req - j.run)) / 3600.0 AS mae_request_h,
       avg(abs(e.est - j.run)) / 3600.0 AS mae_predictor_h
FROM jobs j JOIN estimates e ON e.trace = j.trace AND e.job_id = j.job_id
WHERE e.scheme = 'klusacek:last=5' AND e.est IS NOT NULL AND j.run >= 0 AND j.req > 0
  AND j.user_id IS NOT NULL AND NOT cut_short(j.state, j.wait, j.run)
GROUP BY j.trace, j.user_id;

CREATE OR REPLACE VIEW report_partitions AS
SELECT j.trace, j."partition",
       count(*)                                   AS jobs,
       count(DISTINCT j."user")                   AS users,
       count(DISTINCT j.account)                  AS accounts,
       avg(least(j.run, j.req) / j.req::DOUBLE)
           FILTER (j.req > 0 AND j.run >= 0 AND NOT cut_short(j.state, j.wait, j.run)) AS mean_r,
       any_value(p.capacity)                      AS capacity
FROM jobs j
LEFT JOIN trace_partitions p ON p.trace = j.trace AND p."partition" = j."partition"
WHERE j."partition" IS NOT NULL
GROUP BY j.trace, j."partition";

CREATE OR REPLACE VIEW report_accounts AS
SELECT trace, row_number() OVER (PARTITION BY trace ORDER BY count(*) DESC, account) AS rank,
       account, count(*) AS jobs, count(DISTINCT "user") AS users,
       string_agg(DISTINCT "user", ', ' ORDER BY "user") AS user_names,
       avg(least(run, req) / req::DOUBLE) FILTER (req > 0 AND run >= 0 AND NOT cut_short(state, wait, run)) AS mean_r
FROM jobs
WHERE account IS NOT NULL
GROUP BY trace, account;

-- Totals as they are (the page rounds for reading; the CSVs keep every digit).
CREATE OR REPLACE VIEW report_trace_overview AS
SELECT t.trace,
       t.jobs,
       t.rejected,
       strftime(t.first_submit AT TIME ZONE t.tz, '%Y-%m-%d') AS first_day,
       strftime(t.last_submit AT TIME ZONE t.tz, '%Y-%m-%d') AS last_day,
       date_diff('second', t.first_submit, t.last_submit) / 86400.0 AS span_days,
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
           avg(CASE WHEN req > 0 THEN 1.0 ELSE 0.0 END) AS share_with_request,
           avg(CASE WHEN wait IS NOT NULL THEN 1.0 ELSE 0.0 END) AS share_with_wait,
           sum(cores * greatest(run, 0)) / 3600.0 AS core_hours,
           sum(node_count * greatest(run, 0)) / 3600.0 AS node_hours,
           sum(gpus * greatest(run, 0)) / 3600.0 AS gpu_hours
    FROM jobs GROUP BY trace
) s USING (trace);

CREATE OR REPLACE VIEW report_load_month AS
SELECT j.trace,
       j.month,
       count(*) AS jobs,
       count(DISTINCT j.user_id) AS users,
       sum(j.cores * greatest(j.run, 0)) / 3600.0 AS core_hours,
       sum(j.node_count * greatest(j.run, 0)) / 3600.0 AS node_hours,
       sum(j.gpus * greatest(j.run, 0)) / 3600.0 AS gpu_hours,
       sum(j.nodes * greatest(j.run, 0)) / 3600.0 AS size_hours,
       sum(j.nodes * greatest(j.run, 0))
           / (any_value(t.capacity)
              * date_diff('second', strptime(j.month, '%Y-%m'), strptime(j.month, '%Y-%m') + INTERVAL 1 MONTH))
           AS offered_load
FROM jobs j JOIN traces t USING (trace)
GROUP BY j.trace, j.month;

-- GPU-hours requested (GPUs x request) and used (GPUs x run) per partition,
-- over the same jobs as summary_r's totals (finished, with a request, not cut
-- short): jobs pending or running at the dump have no use to compare, and a
-- partition's lines add up to the trace's total. A trace without GPUs has no rows.
CREATE OR REPLACE VIEW summary_gpu_partitions AS
SELECT trace, "partition",
       count(*)                                     AS gpu_jobs,
       sum(req_gpu_h)                               AS req_gpu_h,
       sum(used_gpu_h)                              AS used_gpu_h
FROM summary_jobs_r
WHERE req_gpu_h > 0 OR used_gpu_h > 0
GROUP BY trace, "partition";
