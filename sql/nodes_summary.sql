-- T_node summary of one node-aware run (walltime simulate --nodes-aware); $1 = run_id.
SELECT count(*)                                          AS jobs,
       avg((n.t_node > 0)::INT)                          AS share_t_node_pos,
       avg((n.t_node > 600)::INT)                        AS share_t_node_10min,
       avg((n.t_node > 3600)::INT)                       AS share_t_node_1h,
       avg((n.t_node_strict > 0)::INT)                   AS share_t_node_strict_pos,
       avg(n.t_node)                                     AS mean_t_node,
       median(n.t_node) FILTER (WHERE j.wait > 0)        AS median_t_node_waiting,
       avg(n.plan_changes)                               AS mean_plan_changes,
       avg((n.pinned_at IS NOT NULL)::INT)               AS share_pinned,
       avg(j.wait)                                       AS mean_wait,
       any_value(r.machine_nodes)                        AS machine_nodes,
       any_value(r.node_size)                            AS node_size,
       any_value(r.pin_interval)                         AS pin_interval
FROM sim_nodes n
JOIN sim_jobs j USING (run_id, job_id)
JOIN node_runs r USING (run_id)
WHERE n.run_id = $1
