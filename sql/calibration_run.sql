-- run_calibration's row of one run (sql/323_run_calibration.sql) and its run_preemptions columns: what
-- `walltime summary` and `simulate` say beside the log. $1 run_id.
-- Why a query of its own beside the views: the views join every run's jobs to the log before the run is
-- chosen (at 11M jobs and four runs: 5-7 s, against about 1 s here). The same definitions;
-- tests/test_calibration.py holds the two equal.
WITH r AS (SELECT * FROM runs WHERE run_id = $1),
s AS (
    SELECT j.wait AS log_wait, s.wait AS rep_wait,
           coalesce(t.unix_start_time, 0) + s.submit
               + coalesce(epoch(timezone(t.tz, t.first_submit)) - epoch(t.first_submit), 0)::BIGINT AS local_s
    FROM (SELECT job_id, submit, wait FROM sim_jobs WHERE run_id = $1) s
    CROSS JOIN r
    JOIN traces t ON t.trace = r.trace
    JOIN jobs j ON j.trace = r.trace AND j.job_id = s.job_id
    WHERE j.wait >= 0 AND s.wait IS NOT NULL
),
w AS (
    SELECT count(*) AS jobs, avg(log_wait) AS log_mean_wait, avg(rep_wait) AS rep_mean_wait,
           median(log_wait) AS log_median_wait, median(rep_wait) AS rep_median_wait
    FROM s
),
span AS (
    SELECT CASE WHEN max(local_s) - min(local_s) >= 8 * 86400 THEN 86400
                WHEN max(local_s) - min(local_s) >= 8 * 3600 THEN 3600 ELSE 60 END AS bin_s
    FROM s
),
bins AS (
    SELECT s.local_s // p.bin_s AS b, count(*) AS jobs, sum(s.log_wait) AS log_wait_s, sum(s.rep_wait) AS rep_wait_s
    FROM s CROSS JOIN span p
    GROUP BY s.local_s // p.bin_s
),
moving AS (
    SELECT sum(log_wait_s) OVER seven / sum(jobs) OVER seven AS log_moving_wait,
           sum(rep_wait_s) OVER seven / sum(jobs) OVER seven AS rep_moving_wait
    FROM bins
    WINDOW seven AS (ORDER BY b RANGE BETWEEN 6 PRECEDING AND CURRENT ROW)
),
m AS (
    SELECT (SELECT bin_s FROM span) AS bin_s, count(*) AS bins,
           count(*) FILTER (WHERE log_moving_wait > 0) AS bins_scored,
           100 * avg(abs(rep_moving_wait - log_moving_wait) / log_moving_wait)
               FILTER (WHERE log_moving_wait > 0) AS moving_wait_mape
    FROM moving
)
SELECT r.trace, coalesce(r.scheduler, 'queue') AS scheduler, r.policy, r.backfill, r.estimate, r.adjust,
       r.load_factor, r.split, w.jobs, w.log_mean_wait, w.rep_mean_wait, w.log_median_wait, w.rep_median_wait,
       m.bin_s, m.bins, m.bins_scored, m.moving_wait_mape,
       p.preempted_jobs, p.preemptions, p.log_preempted_jobs, p.log_preemptions
FROM r CROSS JOIN w CROSS JOIN m
LEFT JOIN run_preemptions p ON p.run_id = r.run_id
WHERE w.jobs > 0;
