-- Whether trace $1's characterization was computed from its current content
-- (not before the content was last ingested).
SELECT count(*)
FROM characterize_summary c
JOIN traces t ON t.trace = c.trace AND c.computed_at >= t.ingested_at
WHERE c.trace = $1;
