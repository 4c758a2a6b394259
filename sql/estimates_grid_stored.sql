-- How many rows of grid $2 are stored for trace $1 from its current content.
SELECT count(*)
FROM estimate_grid g
JOIN traces t ON t.trace = g.trace AND t.sha256 = g.trace_sha256
WHERE g.trace = $1 AND g.grid = $2;
