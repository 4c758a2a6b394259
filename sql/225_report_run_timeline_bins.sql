-- report_run_timeline_bins: report_run_timeline (140) with the time bin chosen
-- from the run's span instead of a fixed day, so that a short trace still has a
-- curve (a 12-minute sacct dump was one daily point: an empty plot with an axis
-- from 2025 to 2029). The bin is the shortest of 1, 5, 15 min, 1, 3, 6 h and
-- 1 day that cuts the span (first submit to last end) into at most 500 bins;
-- traces of more than 500 days keep days. Same sums as 140, per bin.
-- Grain: one row per (run, bin); `bin_s` is the bin's length in seconds, `t` its start (UTC).
CREATE OR REPLACE VIEW report_run_timeline_bins AS
WITH j0 AS (  -- absolute Unix seconds, so that bins start at whole minutes / hours / midnight UTC
    SELECT s.run_id, r.capacity, s.nodes, s.req,
           t0 + s.submit AS submit, t0 + s.start AS start, t0 + s."end" AS "end"
    FROM sim_jobs s JOIN (SELECT r.run_id, r.capacity, coalesce(t.unix_start_time, 0) AS t0
                          FROM runs r JOIN traces t USING (trace)) r USING (run_id)
),
width AS (
    SELECT run_id, coalesce(min(b) FILTER (WHERE span / b <= 500), 86400) AS bin_s
    FROM (SELECT run_id, max("end") - min(submit) AS span FROM j0 GROUP BY run_id),
         (SELECT unnest([60, 300, 900, 3600, 10800, 21600, 86400]) AS b)
    GROUP BY run_id
),
j AS (SELECT * FROM j0 JOIN width USING (run_id)),
bins AS (
    SELECT run_id, any_value(capacity) AS capacity, any_value(bin_s) AS bin_s,
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
       make_timestamp(d.d * d.bin_s * 1000000)            AS t,
       coalesce(b.node_s, 0) / (d.capacity * d.bin_s * 1.0) AS utilization,
       coalesce(q.job_s, 0) / (d.bin_s * 1.0)               AS waiting_jobs,
       coalesce(q.nh_s, 0) / (d.bin_s * 1.0)                AS waiting_node_h
FROM bins d JOIN runs r USING (run_id)
LEFT JOIN busy b USING (run_id, d)
LEFT JOIN queue q USING (run_id, d);
