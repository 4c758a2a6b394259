-- Which Parquet mirror file is the committed one for each (table, key).
-- A writer stages the file under a temporary name carrying `token`, records
-- the token here in its transaction, and renames the file after COMMIT; if it
-- is killed between COMMIT and rename, the next writer finishes the rename.
CREATE TABLE parquet_mirrors (
    mirror      VARCHAR NOT NULL,   -- table the file mirrors, e.g. 'jobs'
    key         VARCHAR NOT NULL,   -- usually the trace name
    token       VARCHAR NOT NULL,   -- 32 hex digits, also in the temporary file name
    rows        BIGINT,
    written_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (mirror, key)
);
