-- Tang Table 2: group the jobs with an R by each key type, keep groups of >= 10
-- jobs, and average their sample std of R (unweighted mean over groups). Jobs whose
-- key fields are unknown (NULL) are left out of that key's groups; a key type with
-- no known values gives NULL. $1 = trace.
INSERT INTO characterize_keys
WITH r AS (
    SELECT user_id, group_id, req, least(run, req) / req::DOUBLE AS r
    FROM jobs
    WHERE trace = $1 AND req > 0 AND run >= 0 AND NOT cut_short(state, wait, run)
),
g AS (
    SELECT 1 AS pos, 'all' AS key_type, count(*) AS n, stddev_samp(r) AS sd
    FROM r
    UNION ALL
    SELECT 2, 'project', count(*), stddev_samp(r) FROM r
    WHERE group_id IS NOT NULL GROUP BY group_id
    UNION ALL
    SELECT 3, 'user', count(*), stddev_samp(r) FROM r
    WHERE user_id IS NOT NULL GROUP BY user_id
    UNION ALL
    SELECT 4, 'user_project', count(*), stddev_samp(r) FROM r
    WHERE user_id IS NOT NULL AND group_id IS NOT NULL GROUP BY user_id, group_id
    UNION ALL
    SELECT 5, 'user_project_req', count(*), stddev_samp(r) FROM r
    WHERE user_id IS NOT NULL AND group_id IS NOT NULL GROUP BY user_id, group_id, req
),
kinds AS (
    SELECT * FROM (VALUES (1, 'all', true),
                          (2, 'project', (SELECT count(group_id) > 0 FROM r)),
                          (3, 'user', (SELECT count(user_id) > 0 FROM r)),
                          (4, 'user_project', (SELECT count(*) FILTER (user_id IS NOT NULL AND group_id IS NOT NULL) > 0 FROM r)),
                          (5, 'user_project_req', (SELECT count(*) FILTER (user_id IS NOT NULL AND group_id IS NOT NULL) > 0 FROM r))
    ) AS k(pos, key_type, known)
    WHERE (SELECT count(*) FROM r) > 0
)
SELECT $1, k.pos, k.key_type,
       CASE WHEN k.known THEN count(g.n) ELSE NULL END,
       CASE WHEN k.known THEN coalesce(sum(g.n), 0) ELSE NULL END,
       CASE WHEN k.known THEN avg(g.sd) ELSE NULL END
FROM kinds AS k
LEFT JOIN g ON g.key_type = k.key_type AND g.n >= 10
GROUP BY k.pos, k.key_type, k.known
ORDER BY k.pos;
