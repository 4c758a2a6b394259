-- Which fields a trace carries, to decide what `characterize` can compute. $1 = trace.
SELECT
    count(*)                                              AS jobs,
    count(*) FILTER (run >= 0)                            AS jobs_ran,
    count(*) FILTER (req > 0 AND run >= 0)                AS jobs_r,
    count(*) FILTER (run >= 0 AND status IS NOT NULL)     AS ran_with_status,
    count(*) FILTER (req > 0 AND run >= 0 AND user_id IS NOT NULL)  AS r_with_user,
    count(*) FILTER (req > 0 AND run >= 0 AND group_id IS NOT NULL) AS r_with_group
FROM jobs
WHERE trace = $1;
