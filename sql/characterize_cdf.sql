-- Empirical CDF of R at x = k/100, k = 0..100: share of jobs with R <= x,
-- i.e. 100 * least(run, req) <= k * req (exact on integers). $1 = trace.
INSERT INTO characterize_cdf
WITH r AS (
    SELECT 100 * least(run, req) AS run100, req
    FROM jobs
    WHERE trace = $1 AND req > 0 AND run >= 0 AND NOT cut_short(state, wait, run)
),
n AS (SELECT count(*) AS n FROM r)
SELECT $1, k.k / 100.0,
       count(*) FILTER (r.run100 <= k.k * r.req) / any_value(n.n)::DOUBLE
FROM range(101) AS k(k)
CROSS JOIN r
CROSS JOIN n
GROUP BY k.k
ORDER BY k.k;
