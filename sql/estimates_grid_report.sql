-- The stored grid $2 of trace $1, in grid order (keys, windows, statistics as in Tang et al.).
SELECT * FROM estimate_grid
WHERE trace = $1 AND grid = $2
ORDER BY floor DESC,
         list_position(['user', 'project', 'user_project', 'user_project_req'], key_type),
         list_position(['30d', '60d', '90d', '180d', '365d', 'all'], win),
         list_position(['max', 'p95', 'p90', 'p85', 'p80', 'p75', 'p70', 'median', 'mean'], stat);
