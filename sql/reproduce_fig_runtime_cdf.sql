-- Mu'alem & Feitelson Fig. 6: the cumulative distribution of runtimes by job
-- size. Per trace and size class (1 node, 2-8, 9-32, over 32: our classes, the
-- paper names none), the share of the class's jobs with a known runtime whose
-- runtime is at most x seconds, at each x of $2. $1 = the traces.
WITH j AS (
    SELECT trace, run,
           CASE WHEN nodes <= 1 THEN '1 node' WHEN nodes <= 8 THEN '2-8 nodes'
                WHEN nodes <= 32 THEN '9-32 nodes' ELSE 'over 32 nodes' END AS size
    FROM jobs
    WHERE trace IN (SELECT unnest($1::VARCHAR[])) AND run IS NOT NULL AND run >= 0 AND nodes IS NOT NULL
), x AS (SELECT unnest($2::DOUBLE[]) AS x)
SELECT j.trace, j.size, x.x, count(*) AS jobs, avg((j.run <= x.x)::INT) AS share
FROM j CROSS JOIN x
GROUP BY ALL
ORDER BY j.trace, j.size, x.x
