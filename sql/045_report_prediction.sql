-- Report section 5 (wait-time prediction, Smith, Taylor & Foster 1999 Tables 4-15
-- layout) over the planned runs with predicted starts. Algorithms: FCFS and LWF
-- without backfilling, "Backfill" = FCFS + EASY.

CREATE OR REPLACE VIEW report_smith_runs AS
SELECT p.trace, p.pos, p.label AS predictor, p.run_id, p.capacity,
       CASE WHEN p.policy = 'lwf' THEN 2 WHEN p.backfill = 'easy' THEN 3 ELSE 1 END AS apos,
       CASE WHEN p.policy = 'lwf' THEN 'LWF' WHEN p.backfill = 'easy' THEN 'Backfill' ELSE 'FCFS' END AS algorithm
FROM report_plan_runs p WHERE p.experiment = 'smith' AND p.run_id IS NOT NULL;

-- Tables 4-9: run-time prediction error (the estimate the scheduler used vs the
-- run time) and wait-time prediction error (predicted start at submission vs
-- the start), in minutes and as percent of the mean run time / mean wait.
CREATE OR REPLACE VIEW report_smith_prediction AS
SELECT r.trace, r.predictor, r.algorithm, r.pos, r.apos,
       round(avg(abs(s.est_wait - s.run)) / 60, 2) AS run_error_min,
       round(100 * avg(abs(s.est_wait - s.run)) / nullif(avg(s.run), 0), 0) AS run_error_pct,
       round(any_value(m.prediction_error) / 60, 2) AS wait_error_min,
       round(any_value(m.prediction_error_pct), 0) AS wait_error_pct,
       any_value(m.predicted) AS predicted
FROM report_smith_runs r
JOIN sim_jobs s ON s.run_id = r.run_id
JOIN run_metrics m ON m.run_id = r.run_id AND m.month = 'all'
GROUP BY r.trace, r.predictor, r.algorithm, r.pos, r.apos;

-- Tables 10-15: scheduling performance with each predictor as the scheduler's runtime.
CREATE OR REPLACE VIEW report_smith_scheduling AS
SELECT r.trace, r.predictor, r.algorithm, r.pos, r.apos,
       round(100 * m.utilization, 2) AS utilization_pct,
       round(m.mean_wait / 60, 2) AS mean_wait_min
FROM report_smith_runs r JOIN run_metrics m ON m.run_id = r.run_id AND m.month = 'all';
