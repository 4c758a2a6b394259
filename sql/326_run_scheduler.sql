-- A run says which scheduler replayed it: 'queue' (the papers' one pool of processors, ordered by
-- its policy) or 'slurm' (the site's Slurm modelled from the slurm.conf kept with the trace; policy and
-- backfill then stay at their defaults and mean nothing). NULL in runs stored before: 'queue'.
ALTER TABLE runs ADD COLUMN scheduler VARCHAR;

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
SELECT r.run_id, r.trace, coalesce(r.scheduler, 'queue') AS scheduler, r.policy, r.backfill, r.estimate, r.adjust, r.load_factor, r.split,
       w.jobs, w.log_mean_wait, w.rep_mean_wait, w.log_median_wait, w.rep_median_wait,
       m.bin_s, m.bins, m.bins_scored, m.moving_wait_mape
FROM w JOIN m USING (run_id) JOIN runs r USING (run_id);

-- The report's table (its views are report_*): the calibration of each run.
CREATE OR REPLACE VIEW report_calibration AS SELECT * FROM run_calibration;
