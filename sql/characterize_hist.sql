-- Tang Fig. 1: 20 bins of R, width 0.05; bin = floor(20 R) computed on integers, R = 1 in bin 19.
-- Every bin gets a row, empty ones too. $1 = trace.
INSERT INTO characterize_hist
WITH r AS (
    SELECT least((20 * run) // req, 19) AS bin
    FROM jobs
    WHERE trace = $1 AND req > 0 AND run >= 0 AND NOT cut_short(state, wait, run)
),
n AS (SELECT count(*) AS n FROM r)
SELECT $1, b.bin, b.bin / 20.0, (b.bin + 1) / 20.0,
       count(r.bin), count(r.bin) / n.n::DOUBLE
FROM range(20) AS b(bin)
CROSS JOIN n
LEFT JOIN r ON r.bin = b.bin
WHERE n.n > 0
GROUP BY b.bin, n.n
ORDER BY b.bin;
