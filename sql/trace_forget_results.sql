-- Everything computed from trace $1's content, removed when the content is
-- replaced (`walltime ingest --replace`), in the ingest's own transaction, so
-- no reader ever pairs new jobs with old results. A run's per-job
-- files (parquet/sim_jobs, parquet/sim_nodes) become invisible with their
-- `runs` row and are deleted after COMMIT; the estimates mirror is staged away.
-- Template sets searched on the trace go too, with the estimates made with them.
DELETE FROM estimates WHERE trace = $1;
DELETE FROM estimate_accuracy WHERE trace = $1;
DELETE FROM estimate_grid WHERE trace = $1;
DELETE FROM estimates WHERE scheme IN (SELECT 'smith:set=' || name FROM template_sets WHERE trace = $1);
DELETE FROM estimate_accuracy WHERE scheme IN (SELECT 'smith:set=' || name FROM template_sets WHERE trace = $1);
DELETE FROM template_sets WHERE trace = $1;
DELETE FROM characterize_summary WHERE trace = $1;
DELETE FROM characterize_hist WHERE trace = $1;
DELETE FROM characterize_cdf WHERE trace = $1;
DELETE FROM characterize_quarters WHERE trace = $1;
DELETE FROM characterize_mualem WHERE trace = $1;
DELETE FROM characterize_keys WHERE trace = $1;
DELETE FROM characterize_notes WHERE trace = $1;
DELETE FROM job_attempts WHERE trace = $1;
DELETE FROM run_metrics WHERE run_id IN (SELECT run_id FROM runs WHERE trace = $1);
DELETE FROM node_runs WHERE run_id IN (SELECT run_id FROM runs WHERE trace = $1);
DELETE FROM sim_jobs_legacy WHERE run_id IN (SELECT run_id FROM runs WHERE trace = $1);
DELETE FROM sim_nodes_legacy WHERE run_id IN (SELECT run_id FROM runs WHERE trace = $1);
DELETE FROM runs WHERE trace = $1;
DELETE FROM learned_models WHERE trace = $1;
DELETE FROM evaluate_tuning WHERE trace = $1;
DELETE FROM evaluate_tuning_replays WHERE trace = $1;
DELETE FROM evaluate_scores WHERE trace = $1;
DELETE FROM evaluate_noise WHERE trace = $1;
