-- Before this migration, `ingest --replace` kept the old content's results: the
-- estimates, grids, characterization, runs and template sets of a trace whose
-- jobs had been replaced stayed readable beside the new jobs. Remove those
-- rows once (from now on the ingest removes them: sql/trace_forget_results.sql).
-- Stale: estimates and grids whose trace_sha256 is not the trace's; the rest,
-- computed before the trace was last ingested. Run files and estimates mirrors
-- of removed rows are dropped by the next writer (prepare_writer, heal_mirrors).
DELETE FROM estimates e WHERE EXISTS (
    SELECT 1 FROM estimate_accuracy a JOIN traces t ON t.trace = a.trace
    WHERE a.trace = e.trace AND a.scheme = e.scheme AND a.trace_sha256 <> t.sha256);
DELETE FROM estimate_accuracy a WHERE EXISTS (
    SELECT 1 FROM traces t WHERE t.trace = a.trace AND a.trace_sha256 <> t.sha256);
DELETE FROM estimate_grid g WHERE EXISTS (
    SELECT 1 FROM traces t WHERE t.trace = g.trace AND g.trace_sha256 <> t.sha256);
CREATE TEMP TABLE stale_sets AS
    SELECT s.name FROM template_sets s JOIN traces t USING (trace) WHERE s.created_at < t.ingested_at;
DELETE FROM estimates WHERE scheme IN (SELECT 'smith:set=' || name FROM stale_sets);
DELETE FROM estimate_accuracy WHERE scheme IN (SELECT 'smith:set=' || name FROM stale_sets);
DELETE FROM template_sets WHERE name IN (SELECT name FROM stale_sets);
DROP TABLE stale_sets;
CREATE TEMP TABLE stale_characterize AS
    SELECT c.trace FROM characterize_summary c JOIN traces t USING (trace) WHERE c.computed_at < t.ingested_at;
DELETE FROM characterize_summary WHERE trace IN (SELECT trace FROM stale_characterize);
DELETE FROM characterize_hist WHERE trace IN (SELECT trace FROM stale_characterize);
DELETE FROM characterize_cdf WHERE trace IN (SELECT trace FROM stale_characterize);
DELETE FROM characterize_quarters WHERE trace IN (SELECT trace FROM stale_characterize);
DELETE FROM characterize_mualem WHERE trace IN (SELECT trace FROM stale_characterize);
DELETE FROM characterize_keys WHERE trace IN (SELECT trace FROM stale_characterize);
DELETE FROM characterize_notes WHERE trace IN (SELECT trace FROM stale_characterize);
DROP TABLE stale_characterize;
CREATE TEMP TABLE stale_runs AS
    SELECT r.run_id FROM runs r JOIN traces t USING (trace) WHERE r.created_at < t.ingested_at;
DELETE FROM run_metrics WHERE run_id IN (SELECT run_id FROM stale_runs);
DELETE FROM node_runs WHERE run_id IN (SELECT run_id FROM stale_runs);
DELETE FROM sim_jobs_legacy WHERE run_id IN (SELECT run_id FROM stale_runs);
DELETE FROM sim_nodes_legacy WHERE run_id IN (SELECT run_id FROM stale_runs);
DELETE FROM runs WHERE run_id IN (SELECT run_id FROM stale_runs);
DROP TABLE stale_runs;
