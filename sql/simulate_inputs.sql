-- Per-job inputs of `walltime simulate`, in the event loop's order (submit, job_id).
-- $1 trace. Unknowns become sentinels so the columns arrive as plain int64 arrays:
-- run -1, nodes 0, req 0. A scheme's estimates come from simulate_estimates.sql, matched by job_id
-- (the jobs are read once for every scheme of a run plan).
-- user_id: -1 when unknown (read by --history simulated only). month_idx numbers the months of submission 0.. in calendar order. running: a
-- job still running or suspended when the sacct dump was taken (run NULL: censored); it is replayed
-- holding its CPUs for as long as it had run by the dump (traces.dump_end - its logged start, migration 324),
-- where the trace knows when the dump was taken.
-- submit is the release time: a sacct trace loaded with the rule 'eligible' (traces.release, the default)
-- releases a job at its Eligible (holds, dependencies, --begin, requeues), as its measured wait counts.
-- (a subquery, not a CTE: simulate --partition puts its own WITH jobs AS (...) before this query)
SELECT j.job_id,
       j.submit,
       COALESCE(j.run, CASE WHEN j.running THEN greatest(j.dump_end - (j.submit + j.wait), 0) END, -1) AS run,
       COALESCE(j.nodes, 0)                          AS nodes,
       COALESCE(j.req, 0)                            AS req,
       (dense_rank() OVER (ORDER BY j.month) - 1)::BIGINT AS month_idx,
       COALESCE(j.user_id, -1)                       AS user_id,
       j.running
FROM (SELECT j.* REPLACE (CASE WHEN t.release = 'eligible' THEN coalesce(j.eligible, j.submit)
                             ELSE j.submit END AS submit), t.dump_end,
             coalesce(j.run IS NULL AND j.wait IS NOT NULL
                      AND split_part(j.state, ' ', 1) IN ('RUNNING', 'SUSPENDED', 'REQUEUE_HOLD', 'REQUEUE_FED',
                                                          'RESIZING'), false) AS running
      FROM jobs j JOIN traces t USING (trace)
      WHERE j.trace = $1) j
WHERE j.trace = $1
ORDER BY j.submit, j.job_id;
