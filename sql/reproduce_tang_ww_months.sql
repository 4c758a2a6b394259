-- Tang Eq. 4's weighted wait of the reproduction's baseline and selective p85 runs, month by month
-- as sums (of wait x weight and of the weights: migration 332's eq4_weight, as run_metrics), so that
-- any set of months gives its pooled weighted wait. $1 = the traces.
SELECT p.trace, p.policy, p.role, s.month,
       sum(s.wait * eq4_weight(p.policy, s.wait, s.req, s.nodes)) AS num,
       sum(eq4_weight(p.policy, s.wait, s.req, s.nodes)) AS den
FROM report_plan_runs p JOIN sim_jobs s ON s.run_id = p.run_id
WHERE p.experiment = 'tang' AND p.trace IN (SELECT unnest($1::VARCHAR[]))
  AND (p.role = 'original' OR (p.role = 'p85' AND p.adjust = 'selective'))
GROUP BY ALL
ORDER BY p.trace, p.policy, p.role, s.month;
