-- Used by the report through report_run_timeline_bins (225): the same sums with a bin chosen from the span.
-- report_run_timeline (082) joined every day of a run with every job of the run
-- and kept the pairs that overlap: days x jobs comparisons per run (CEA-Curie:
-- ~300 days x 313k jobs, twice, for each of the summary's four runs). Here each
-- job is expanded into the days its run (start..end) or its wait (submit..start)
-- touches, which are the same pairs less those contributing 0: the same sums.
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
    SELECT run_id, d, sum(nodes * (least("end", (d + 1) * 86400) - greatest(start, d * 86400))) AS node_s
    FROM (SELECT run_id, nodes, start, "end", unnest(range(start // 86400, ("end" - 1) // 86400 + 1)) AS d
          FROM j WHERE "end" > start)
    GROUP BY run_id, d
),
queue AS (
    SELECT run_id, d,
           sum(least(start, (d + 1) * 86400) - greatest(submit, d * 86400)) AS job_s,
           sum(nodes * req / 3600.0 * (least(start, (d + 1) * 86400) - greatest(submit, d * 86400))) AS nh_s
    FROM (SELECT run_id, nodes, req, submit, start, unnest(range(submit // 86400, (start - 1) // 86400 + 1)) AS d
          FROM j WHERE start > submit)
    GROUP BY run_id, d
)
SELECT d.run_id, r.trace,
       make_timestamp(d.d * 86400 * 1000000)            AS day,
       coalesce(b.node_s, 0) / (d.capacity * 86400.0)   AS utilization,
       coalesce(q.job_s, 0) / 86400.0                   AS waiting_jobs,
       coalesce(q.nh_s, 0) / 86400.0                    AS waiting_node_h
FROM days d JOIN runs r USING (run_id)
LEFT JOIN busy b USING (run_id, d)
LEFT JOIN queue q USING (run_id, d);
