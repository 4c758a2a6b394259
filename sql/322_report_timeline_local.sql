-- report_run_timeline_bins (225) on the trace's own clock: the
-- queue-over-time figures were in UTC while every other date of the page and of
-- `summary` is in the trace's zone (traces.tz). Bins are cut on local time
-- (Unix seconds + the zone's offset at the trace's first submission, so a day
-- bin starts at local midnight; across a DST change it starts an hour off until
-- the change back), and `t` is each bin's start as a local wall-clock time
-- (DST included). Same sums per bin as 225; `tz` names the zone.
CREATE OR REPLACE VIEW report_run_timeline_bins AS
WITH r AS (  -- per run: its trace's start and the bin, from the span of the trace's submits
    -- (from `traces`, not from the run's jobs: an aggregate over sim_jobs here kept DuckDB
    -- from pushing `run_id = x` into the scans, 4x the time of 140)
    SELECT r.run_id, r.capacity, coalesce(t.unix_start_time, 0) AS t0, t.tz,
           -- the zone's offset from UTC at the trace's first submission (s)
           coalesce(epoch(timezone(t.tz, t.first_submit)) - epoch(t.first_submit), 0)::BIGINT AS off,
           CASE WHEN span <= 500 * 60 THEN 60 WHEN span <= 500 * 300 THEN 300
                WHEN span <= 500 * 900 THEN 900 WHEN span <= 500 * 3600 THEN 3600
                WHEN span <= 500 * 10800 THEN 10800 WHEN span <= 500 * 21600 THEN 21600
                ELSE 86400 END AS bin_s
    FROM runs r JOIN (SELECT *, coalesce(epoch(last_submit) - epoch(first_submit), 1e12) AS span FROM traces) t
         USING (trace)
),
j AS (  -- Unix seconds + the zone's offset, so that bins start at whole minutes / hours / local midnight
    SELECT s.run_id, r.capacity, r.bin_s, r.tz, r.off, s.nodes, s.req,
           t0 + off + s.submit AS submit, t0 + off + s.start AS start, t0 + off + s."end" AS "end"
    FROM sim_jobs s JOIN r USING (run_id)
),
bins AS (
    SELECT run_id, any_value(capacity) AS capacity, any_value(bin_s) AS bin_s, any_value(tz) AS tz,
           any_value(off) AS off,
           unnest(range(min(submit) // any_value(bin_s), max("end") // any_value(bin_s) + 1)) AS d
    FROM j GROUP BY run_id
),
busy AS (
    SELECT run_id, d, sum(nodes * (least("end", (d + 1) * bin_s) - greatest(start, d * bin_s))) AS node_s
    FROM (SELECT run_id, bin_s, nodes, start, "end", unnest(range(start // bin_s, ("end" - 1) // bin_s + 1)) AS d
          FROM j WHERE "end" > start)
    GROUP BY run_id, d
),
queue AS (
    SELECT run_id, d,
           sum(least(start, (d + 1) * bin_s) - greatest(submit, d * bin_s)) AS job_s,
           sum(nodes * req / 3600.0 * (least(start, (d + 1) * bin_s) - greatest(submit, d * bin_s))) AS nh_s
    FROM (SELECT run_id, bin_s, nodes, req, submit, start,
                 unnest(range(submit // bin_s, (start - 1) // bin_s + 1)) AS d
          FROM j WHERE start > submit)
    GROUP BY run_id, d
)
SELECT d.run_id, r.trace, d.bin_s,
       -- the bin's start on the trace's own clock (DST included), as every other date of the page
       timezone(d.tz, to_timestamp(d.d * d.bin_s - d.off))  AS t,
       d.tz,
       coalesce(b.node_s, 0) / (d.capacity * d.bin_s * 1.0) AS utilization,
       coalesce(q.job_s, 0) / (d.bin_s * 1.0)               AS waiting_jobs,
       coalesce(q.nh_s, 0) / (d.bin_s * 1.0)                AS waiting_node_h
FROM bins d JOIN runs r USING (run_id)
LEFT JOIN busy b USING (run_id, d)
LEFT JOIN queue q USING (run_id, d);
