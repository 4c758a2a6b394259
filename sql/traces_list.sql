-- One row per trace, for `walltime traces`.
SELECT trace, jobs, rejected,
       strftime(first_submit AT TIME ZONE tz, '%Y-%m-%d %H:%M') AS first_submit,
       strftime(last_submit AT TIME ZONE tz, '%Y-%m-%d %H:%M') AS last_submit,
       tz, capacity, users, sha256
FROM traces
ORDER BY trace;
