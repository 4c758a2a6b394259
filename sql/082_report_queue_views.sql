-- What a site expects to see of a simulated queue (evalys-style views): the
-- machine's utilisation and the queue's length over time, and the wait-time
-- distribution, per run. Times are dates in UTC from the trace's UnixStartTime.

-- Per run and day: the share of the machine busy, and the time-averaged number
-- of waiting jobs and of node-hours they request (what the queue holds).
CREATE OR REPLACE VIEW report_run_timeline AS
WITH j AS (  -- absolute Unix seconds, so that days run from midnight UTC
    SELECT s.run_id, r.capacity, s.nodes, s.req,
           t0 + s.submit AS submit, t0 + s.start AS start, t0 + s."end" AS "end"
    FROM sim_jobs s JOIN (SELECT r.run_id, r.capacity, coalesce(t.unix_start_time, 0) AS t0
                          FROM runs r JOIN traces t USING (trace)) r USING (run_id)
),
days AS (
    SELECT run_id, any_value(capacity) AS capacity,
           unnest(range(min(submit) // 86400, max("end") // 86400 + 1)) AS d
    FROM j GROUP BY run_id
),
busy AS (
    SELECT d.run_id, d.d,
           sum(j.nodes * (least(j."end", (d.d + 1) * 86400) - greatest(j.start, d.d * 86400))) AS node_s
    FROM days d JOIN j ON j.run_id = d.run_id AND j.start < (d.d + 1) * 86400 AND j."end" > d.d * 86400
    GROUP BY d.run_id, d.d
),
queue AS (
    SELECT d.run_id, d.d,
           sum(least(j.start, (d.d + 1) * 86400) - greatest(j.submit, d.d * 86400)) AS job_s,
           sum(j.nodes * j.req / 3600.0 * (least(j.start, (d.d + 1) * 86400) - greatest(j.submit, d.d * 86400))) AS nh_s
    FROM days d JOIN j ON j.run_id = d.run_id AND j.submit < (d.d + 1) * 86400 AND j.start > d.d * 86400
    GROUP BY d.run_id, d.d
)
SELECT d.run_id, r.trace,
       make_timestamp(d.d * 86400 * 1000000)            AS day,
       coalesce(b.node_s, 0) / (d.capacity * 86400.0)   AS utilization,
       coalesce(q.job_s, 0) / 86400.0                   AS waiting_jobs,
       coalesce(q.nh_s, 0) / 86400.0                    AS waiting_node_h
FROM days d JOIN runs r USING (run_id)
LEFT JOIN busy b USING (run_id, d)
LEFT JOIN queue q USING (run_id, d);

-- The wait-time distribution of each run: the wait (hours) at every percentile.
CREATE OR REPLACE VIEW report_wait_cdf AS
WITH q AS (
    SELECT run_id, quantile_disc(wait, [x / 100.0 FOR x IN range(0, 101)]) AS waits
    FROM sim_jobs GROUP BY run_id
)
SELECT q.run_id, r.trace, r.policy, r.backfill, r.estimate, r.adjust,
       p.k / 100.0 AS share_le, q.waits[p.k + 1] / 3600.0 AS wait_h
FROM q JOIN runs r USING (run_id), (SELECT unnest(range(0, 101)) AS k) p;

-- Jobs of one run as a Gantt chart needs them (filter by run_id and time).
CREATE OR REPLACE VIEW report_gantt_jobs AS
SELECT j.run_id, r.trace, j.job_id, j.nodes, j.submit, j.start, j."end",
       make_timestamp((coalesce(t.unix_start_time, 0) + j.start) * 1000000) AS start_ts,
       make_timestamp((coalesce(t.unix_start_time, 0) + j."end") * 1000000) AS end_ts
FROM sim_jobs j JOIN runs r USING (run_id) JOIN traces t ON t.trace = r.trace;
