-- Views behind the report's trace-overview tables (section 1). Every table the
-- report shows is a view like these, so the same numbers are one `walltime sql` away.

CREATE OR REPLACE VIEW report_trace_overview AS
SELECT t.trace,
       t.jobs,
       t.rejected,
       strftime(t.first_submit AT TIME ZONE t.tz, '%Y-%m-%d') AS first_day,
       strftime(t.last_submit AT TIME ZONE t.tz, '%Y-%m-%d') AS last_day,
       round(date_diff('second', t.first_submit, t.last_submit) / 86400.0, 1) AS span_days,
       t.capacity,
       t.users,
       t.groups,
       s.share_with_request,
       s.share_with_wait,
       s.node_hours
FROM traces t
JOIN (
    SELECT trace,
           round(avg(CASE WHEN req > 0 THEN 1.0 ELSE 0.0 END), 3) AS share_with_request,
           round(avg(CASE WHEN wait IS NOT NULL THEN 1.0 ELSE 0.0 END), 3) AS share_with_wait,
           round(sum(nodes * greatest(run, 0)) / 3600.0, 0) AS node_hours
    FROM jobs GROUP BY trace
) s USING (trace);

-- Offered load per month of submission: node-seconds submitted / capacity-seconds
-- of the calendar month (first and last months are partial, so lower).
CREATE OR REPLACE VIEW report_load_month AS
SELECT j.trace,
       j.month,
       count(*) AS jobs,
       count(DISTINCT j.user_id) AS users,
       round(sum(j.nodes * greatest(j.run, 0)) / 3600.0, 0) AS node_hours,
       round(sum(j.nodes * greatest(j.run, 0))
             / (any_value(t.capacity)
                * date_diff('second', strptime(j.month, '%Y-%m'), strptime(j.month, '%Y-%m') + INTERVAL 1 MONTH)), 3)
           AS offered_load
FROM jobs j JOIN traces t USING (trace)
GROUP BY j.trace, j.month;
