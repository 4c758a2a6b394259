-- What a study needs recomputed for trace $1: its sha256, whether its
-- characterization predates its current content, and which estimate schemes
-- are stored for its current content.
SELECT t.sha256,
       (c.computed_at IS NULL OR c.computed_at < t.ingested_at) AS characterize_stale,
       coalesce(list(a.scheme) FILTER (WHERE a.trace_sha256 = t.sha256), []) AS schemes
FROM traces t
LEFT JOIN characterize_summary c ON c.trace = t.trace
LEFT JOIN estimate_accuracy a ON a.trace = t.trace
WHERE t.trace = $1
GROUP BY t.sha256, c.computed_at, t.ingested_at;
