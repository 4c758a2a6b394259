-- Tang Table 2 by group: for the key type $2 ('all' or one of characterize_keys.sql's keys), per
-- group of that key, the jobs with an R and their sums of R and R^2 (the jobs and keys of
-- characterize_keys.sql), so that any draw of groups gives each group's and the whole's sample std
-- of R. $1 = trace, $2 = key type.
WITH r AS (
    SELECT user_id, group_id, req, least(run, req) / req::DOUBLE AS r
    FROM jobs
    WHERE trace = $1 AND req > 0 AND run >= 0 AND NOT cut_short(state, wait, run)
),
k AS (
    SELECT r,
           CASE $2 WHEN 'all' THEN ''
                   WHEN 'project' THEN group_id::VARCHAR
                   WHEN 'user' THEN user_id::VARCHAR
                   WHEN 'user_project' THEN user_id || '/' || group_id
                   WHEN 'user_project_req' THEN user_id || '/' || group_id || '/' || req END AS grp
    FROM r
)
SELECT grp, count(*) AS n, sum(r) AS s1, sum(r * r) AS s2
FROM k
WHERE grp IS NOT NULL
GROUP BY grp
ORDER BY grp;
