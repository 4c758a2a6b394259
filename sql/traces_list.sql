-- One row per trace, for `walltime traces`. partitions: name (size) for
-- sacct/table traces sized by --capacity/--slurm-conf, else the names seen.
SELECT trace, jobs, rejected,
       strftime(first_submit AT TIME ZONE tz, '%Y-%m-%d %H:%M') AS first_submit,
       strftime(last_submit AT TIME ZONE tz, '%Y-%m-%d %H:%M') AS last_submit,
       tz, capacity, users,
       (SELECT string_agg(p || coalesce(' (' || s.capacity || ')', ''), ', ' ORDER BY p)
        FROM (SELECT DISTINCT j."partition" AS p FROM jobs j WHERE j.trace = t.trace AND j."partition" IS NOT NULL) d
        LEFT JOIN trace_partitions s ON s.trace = t.trace AND s."partition" = d.p) AS partitions,
       sha256
FROM traces t
ORDER BY trace;
