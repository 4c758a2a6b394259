-- The learned model a site deploys (`walltime export-model`,
-- `walltime predict`). Its files live in <warehouse>/models/<trace>/ (the
-- directory named here); the row and the files go on `ingest --replace`
-- (sql/trace_forget_results.sql, pipeline/derived.py drop_model_files).
CREATE TABLE learned_models (
    trace         VARCHAR PRIMARY KEY,
    scheme        VARCHAR NOT NULL,   -- canonical learned:... spec
    dir           VARCHAR NOT NULL,   -- relative to the warehouse directory
    trace_sha256  VARCHAR NOT NULL,
    jobs          BIGINT NOT NULL,    -- training jobs
    trained_at    TIMESTAMPTZ NOT NULL
);
