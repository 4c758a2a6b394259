-- The best estimator and the users' requests scored on the same jobs: every job
-- both give an estimate for, with a true runtime (run known, not cut short:
-- sql/321_cut_short_runs.sql). Accuracy as pipeline/estimates/accuracy.py:
-- min(run, est) / max(run, est), 1 when equal. $1 = trace, $2 = the best's scheme.
WITH s AS (
    SELECT j.run::DOUBLE AS run, b.est AS best, r.est AS req
    FROM jobs j
    JOIN estimates b ON b.trace = j.trace AND b.job_id = j.job_id AND b.scheme = $2
    JOIN estimates r ON r.trace = j.trace AND r.job_id = j.job_id AND r.scheme = 'request'
    WHERE j.trace = $1 AND j.run >= 0 AND b.est IS NOT NULL AND r.est IS NOT NULL
      AND NOT cut_short(j.state, j.wait, j.run)
)
SELECT count(*)                                                                          AS jobs,
       avg(CASE WHEN best = run THEN 1.0 ELSE least(best, run) / greatest(best, run) END) AS best_acc,
       avg(CASE WHEN req = run THEN 1.0 ELSE least(req, run) / greatest(req, run) END)    AS request_acc,
       avg((best < run)::INTEGER)                                                        AS best_under,
       avg((req < run)::INTEGER)                                                         AS request_under
FROM s;
