-- The stored metrics of one run ($1): the 'all' row first, then months in order.
SELECT * EXCLUDE (run_id)
FROM run_metrics
WHERE run_id = $1
ORDER BY month = 'all' DESC, month;
