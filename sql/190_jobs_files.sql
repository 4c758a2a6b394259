-- A trace's jobs move out of the DuckDB file (issues 10, 11): the DuckDB
-- insert cost 1.7-2.1 CPU-s per million rows, more than parsing them. Each
-- trace's jobs are now Parquet files, parquet/jobs/<trace>/<token>-<k>.parquet,
-- written under their final names BEFORE the catalogue row below commits
-- (a file no committed row names is invisible, and the next writer deletes
-- it). `jobs` becomes a view over the committed files, rewritten in the
-- same transaction as the catalogue (pipeline/jobs_files.py); the old table
-- keeps its rows under a new name until the first writer moves them out to
-- files, and stays as the (empty) holder of the column types.
ALTER TABLE jobs RENAME TO jobs_legacy;

CREATE TABLE jobs_files (
    trace       VARCHAR PRIMARY KEY,
    token       VARCHAR NOT NULL,   -- 32 hex digits, the files' name
    parts       INTEGER NOT NULL,   -- files <token>-0.parquet ... <token>-(parts-1).parquet, in row order
    rows        BIGINT NOT NULL,
    root        VARCHAR NOT NULL,   -- warehouse directory the view's absolute paths were written for
    written_at  TIMESTAMPTZ NOT NULL
);

CREATE VIEW jobs AS SELECT * FROM jobs_legacy;

-- jobs are no longer mirrored: their files are the only copy
DELETE FROM parquet_mirrors WHERE mirror = 'jobs';
