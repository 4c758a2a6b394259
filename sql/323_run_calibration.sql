-- The replay beside the log: a
-- replay with the users' own requests should reproduce the log's queue before
-- its what-ifs mean anything, so every run can be read against the waits the
-- log recorded, for the same jobs (those with a logged wait and a replayed one).
--
-- The moving average is FastSim's measure (Wilkinson et al. 2023: the
-- two-week moving-average wait): the mean wait of the jobs submitted in the
-- last 7 bins, at every bin with jobs, logged and replayed; its MAPE is the
-- mean of |replayed - logged| / logged over the bins whose logged average is
-- above 0. The bin follows the trace's span (the replay's submissions): a day
-- for 8 days or more (a 7-day moving average), an hour for 8 hours or more,
-- else a minute; bins are cut on the trace's own clock (the zone's offset at
-- its first submission, as report_run_timeline_bins). Both waits count from the
-- same release time (traces.release: Eligible by default for Slurm logs).

-- Per run and bin: jobs, logged and replayed wait sums, and the moving averages.
CREATE OR REPLACE VIEW run_calibration_bins AS
WITH s AS (
    SELECT s.run_id, r.trace, j.wait AS log_wait, s.wait AS rep_wait,
           coalesce(t.unix_start_time, 0) + s.submit
               + coalesce(epoch(timezone(t.tz, t.first_submit)) - epoch(t.first_submit), 0)::BIGINT AS local_s
    FROM sim_jobs s
    JOIN runs r USING (run_id)
    JOIN traces t ON t.trace = r.trace
    JOIN jobs j ON j.trace = r.trace AND j.job_id = s.job_id
    WHERE j.wait >= 0 AND s.wait IS NOT NULL
),
spans AS (
    SELECT run_id, CASE WHEN max(local_s) - min(local_s) >= 8 * 86400 THEN 86400
                        WHEN max(local_s) - min(local_s) >= 8 * 3600 THEN 3600 ELSE 60 END AS bin_s
    FROM s GROUP BY run_id
),
bins AS (
    SELECT s.run_id, any_value(s.trace) AS trace, any_value(p.bin_s) AS bin_s, s.local_s // p.bin_s AS b,
           count(*) AS jobs, sum(s.log_wait) AS log_wait_s, sum(s.rep_wait) AS rep_wait_s
    FROM s JOIN spans p USING (run_id)
    GROUP BY s.run_id, s.local_s // p.bin_s
)
SELECT run_id, trace, bin_s, b,
       make_timestamp(b * bin_s * 1000000)                                      AS t,
       jobs, log_wait_s / jobs                                                  AS log_mean_wait,
       rep_wait_s / jobs                                                        AS rep_mean_wait,
       sum(log_wait_s) OVER w / sum(jobs) OVER w                                AS log_moving_wait,
       sum(rep_wait_s) OVER w / sum(jobs) OVER w                                AS rep_moving_wait
FROM bins
WINDOW w AS (PARTITION BY run_id ORDER BY b RANGE BETWEEN 6 PRECEDING AND CURRENT ROW);

-- Per run: the same jobs' waits, logged and replayed (seconds), and the MAPE
-- (%) of the 7-bin moving-average wait (NULL where no bin has a logged wait).
CREATE OR REPLACE VIEW run_calibration AS
WITH j AS (
    SELECT s.run_id, j.wait AS log_wait, s.wait AS rep_wait
    FROM sim_jobs s JOIN runs r USING (run_id) JOIN jobs j ON j.trace = r.trace AND j.job_id = s.job_id
    WHERE j.wait >= 0 AND s.wait IS NOT NULL
),
w AS (
    SELECT run_id, count(*) AS jobs, avg(log_wait) AS log_mean_wait, avg(rep_wait) AS rep_mean_wait,
           median(log_wait) AS log_median_wait, median(rep_wait) AS rep_median_wait
    FROM j GROUP BY run_id
),
m AS (
    SELECT run_id, any_value(bin_s) AS bin_s, count(*) AS bins,
           count(*) FILTER (log_moving_wait > 0) AS bins_scored,
           100 * avg(abs(rep_moving_wait - log_moving_wait) / log_moving_wait) FILTER (log_moving_wait > 0)
               AS moving_wait_mape
    FROM run_calibration_bins GROUP BY run_id
)
SELECT r.run_id, r.trace, r.policy, r.backfill, r.estimate, r.adjust, r.load_factor, r.split,
       w.jobs, w.log_mean_wait, w.rep_mean_wait, w.log_median_wait, w.rep_median_wait,
       m.bin_s, m.bins, m.bins_scored, m.moving_wait_mape
FROM w JOIN m USING (run_id) JOIN runs r USING (run_id);

-- The report's table (its views are report_*): the calibration of each run.
CREATE OR REPLACE VIEW report_calibration AS SELECT * FROM run_calibration;
