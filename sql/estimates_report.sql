-- Stored accuracy rows of trace $1 for the canonical schemes in list $2, in that order.
SELECT a.*
FROM estimate_accuracy a
JOIN (SELECT unnest($2::VARCHAR[]) AS scheme, generate_subscripts($2::VARCHAR[], 1) AS pos) w
  ON w.scheme = a.scheme
WHERE a.trace = $1
ORDER BY w.pos;
