-- Klusacek & Soysal Figs. 7 and 11-14 as curves: per simulation run of $1, at
-- each x (seconds) of $2, the share of the run's jobs that waited at most x
-- (waits, Figs. 7, 13-14) and, for node-aware runs, the share whose T_node
-- (start minus the last change of its planned nodes, sim_nodes.t_node) exceeds x
-- (Figs. 11-12; NULL for a run without node records).
WITH x AS (SELECT unnest($2::DOUBLE[]) AS x),
     j AS (SELECT s.run_id, s.wait, n.t_node
           FROM sim_jobs s LEFT JOIN sim_nodes n USING (run_id, job_id)
           WHERE s.run_id IN (SELECT unnest($1::VARCHAR[])))
SELECT j.run_id, x.x, count(*) AS jobs,
       avg((j.wait <= x.x)::INT) AS wait_share,
       avg((j.t_node > x.x)::INT) AS tnode_share
FROM j CROSS JOIN x
GROUP BY ALL
ORDER BY j.run_id, x.x
