-- `walltime export-model`: the trace's model row, replaced ($1 trace, $2 scheme,
-- $3 directory relative to the warehouse, $4 trace sha256, $5 training jobs, $6 time).
DELETE FROM learned_models WHERE trace = $1;
INSERT INTO learned_models VALUES ($1, $2, $3, $4, $5, $6);
