-- The newest run of trace $1 under configuration $2 (canonical JSON) made
-- from the trace's current content (after it was last ingested), by code
-- version $3 when $3 is not NULL.
SELECT r.run_id
FROM runs r
JOIN traces t ON t.trace = r.trace AND r.created_at >= t.ingested_at
WHERE r.trace = $1 AND r.config = $2 AND ($3 IS NULL OR r.code_version = $3)
ORDER BY r.created_at DESC
LIMIT 1;
