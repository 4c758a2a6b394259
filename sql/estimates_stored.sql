-- Schemes whose estimates are stored for trace $1 and were computed from its
-- current content (a re-ingested trace with new content makes them stale).
SELECT a.scheme
FROM estimate_accuracy a
JOIN traces t ON t.trace = a.trace AND t.sha256 = a.trace_sha256
WHERE a.trace = $1;
