-- The report names users, accounts and partitions where the log has
-- them (sacct), instead of numeric ids.

-- Klusacek & Soysal Figs. 3-4 per user, now with the user's name.
CREATE OR REPLACE VIEW report_user_error AS
SELECT j.trace,
       row_number() OVER (PARTITION BY j.trace ORDER BY avg(abs(j.req - j.run)) DESC, j.user_id) AS rank_by_request,
       j.user_id, any_value(j."user") AS "user", count(*) AS jobs,
       round(avg(abs(j.req - j.run)) / 3600.0, 3) AS mae_request_h,
       round(avg(abs(e.est - j.run)) / 3600.0, 3) AS mae_predictor_h
FROM jobs j JOIN estimates e ON e.trace = j.trace AND e.job_id = j.job_id
WHERE e.scheme = 'klusacek:last=5' AND e.est IS NOT NULL AND j.run >= 0 AND j.req > 0
  AND j.user_id IS NOT NULL
GROUP BY j.trace, j.user_id;

-- Jobs, users, accounts and R per partition, with the partition's size when
-- known (ingest --capacity PARTITION=N or --slurm-conf).
CREATE OR REPLACE VIEW report_partitions AS
SELECT j.trace, j."partition",
       count(*)                                   AS jobs,
       count(DISTINCT j."user")                   AS users,
       count(DISTINCT j.account)                  AS accounts,
       round(avg(least(j.run, j.req) / j.req::DOUBLE) FILTER (j.req > 0 AND j.run >= 0), 3) AS mean_r,
       any_value(p.capacity)                      AS capacity
FROM jobs j
LEFT JOIN trace_partitions p ON p.trace = j.trace AND p."partition" = j."partition"
WHERE j."partition" IS NOT NULL
GROUP BY j.trace, j."partition";

-- The accounts (Tang's projects) with the most jobs, with their users.
CREATE OR REPLACE VIEW report_accounts AS
SELECT trace, row_number() OVER (PARTITION BY trace ORDER BY count(*) DESC, account) AS rank,
       account, count(*) AS jobs, count(DISTINCT "user") AS users,
       string_agg(DISTINCT "user", ', ' ORDER BY "user") AS user_names,
       round(avg(least(run, req) / req::DOUBLE) FILTER (req > 0 AND run >= 0), 3) AS mean_r
FROM jobs
WHERE account IS NOT NULL
GROUP BY trace, account;
