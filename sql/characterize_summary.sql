-- Tang et al. Sec. 3.2: mean, sample std and shares of R = least(run, req) / req
-- (runs cut short left out: sql/321_cut_short_runs.sql).
-- Shares use integer comparisons (5*run < req is R < 0.2) so no rounding can move a job. $1 = trace.
INSERT INTO characterize_summary
SELECT
    $1,
    (SELECT count(*) FROM jobs WHERE trace = $1),
    (SELECT count(*) FROM jobs WHERE trace = $1 AND run >= 0),
    count(*),
    avg(least(run, req) / req::DOUBLE),
    stddev_samp(least(run, req) / req::DOUBLE),
    count(*) FILTER (5 * run < req)          / nullif(count(*), 0)::DOUBLE,
    count(*) FILTER (2 * run < req)          / nullif(count(*), 0)::DOUBLE,
    count(*) FILTER (5 * run > 4 * req)      / nullif(count(*), 0)::DOUBLE,
    count(*) FILTER (100 * run >= 99 * req)  / nullif(count(*), 0)::DOUBLE,
    now()
FROM jobs
WHERE trace = $1 AND req > 0 AND run >= 0 AND NOT cut_short(state, wait, run);
