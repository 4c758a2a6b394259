-- Node predictability (Klusacek & Soysal 2018 Section 4.2, Figures 11-14) over
-- every stored node-aware run: T_node shares and buckets, wait buckets.
-- One row per run; a study that ran a grid (pinning x estimate) reads them side by side.

CREATE OR REPLACE VIEW report_node_runs AS
SELECT r.run_id, r.trace, r.policy, r.backfill, r.estimate, r.capacity,
       n.node_size, n.machine_nodes, n.pin_interval,
       CASE WHEN n.pin_interval IS NULL THEN 'none'
            ELSE CAST(round(n.pin_interval / 3600.0, 2) AS VARCHAR) || ' h' END AS pinning
FROM runs r JOIN node_runs n USING (run_id);

-- Figures 11-12: the distribution of T_node (shares of jobs), plus the strict
-- reading (planned start must be right too) and how often plans moved.
CREATE OR REPLACE VIEW report_node_tnode AS
SELECT r.trace, r.backfill, r.estimate, r.pinning, r.pin_interval, r.machine_nodes, r.run_id,
       count(*) AS jobs,
       avg((s.t_node > 0)::INT)             AS share_tnode_pos,
       avg((s.t_node > 600)::INT)           AS share_tnode_10min,
       avg((s.t_node > 3600)::INT)          AS share_tnode_1h,
       avg((s.t_node_strict > 0)::INT)      AS share_strict_pos,
       median(s.t_node) FILTER (WHERE j.wait > 0) AS median_tnode_waiting_s,
       avg(s.plan_changes)                  AS mean_plan_changes,
       avg((s.pinned_at IS NOT NULL)::INT)  AS share_pinned
FROM report_node_runs r
JOIN sim_nodes s USING (run_id)
JOIN sim_jobs j USING (run_id, job_id)
GROUP BY ALL;

-- Figures 13-14: the wait-time distribution of the same runs.
CREATE OR REPLACE VIEW report_node_waits AS
SELECT r.trace, r.backfill, r.estimate, r.pinning, r.pin_interval, r.machine_nodes, r.run_id,
       count(*) AS jobs,
       avg(j.wait) AS mean_wait_s,
       median(j.wait) AS median_wait_s,
       quantile_cont(j.wait, 0.9) AS p90_wait_s,
       avg((j.wait = 0)::INT)               AS share_wait_0,
       avg((j.wait <= 600)::INT)            AS share_wait_10min,
       avg((j.wait <= 3600)::INT)           AS share_wait_1h,
       avg((j.wait <= 86400)::INT)          AS share_wait_1d,
       any_value(m.utilization)             AS utilization
FROM report_node_runs r
JOIN sim_jobs j USING (run_id)
JOIN run_metrics m ON m.run_id = r.run_id AND m.month = 'all'
GROUP BY ALL;
