-- A derived trace, one row per trace whose jobs are another trace's jobs transformed
-- (pipeline/simulate/derived_traces.py): a window of months, queues left out, requests replaced,
-- interarrivals scaled, the jobs a machine can run. It is stored like any trace (a `traces` row, its
-- own jobs files), so estimates, template sets and runs of it are stored and reused as any trace's;
-- this row says what it was made from.
--   trace          the derived trace's name (its `traces` row)
--   source         the trace it was derived from
--   source_sha256  the source's content (traces.sha256) when it was derived: a source replaced since
--                  (`ingest --replace`) makes it stale, and the next derivation replaces its content and
--                  forgets what was stored for it, as `ingest --replace` does
--   recipe         the transformation, canonical JSON (derived_traces.Recipe.canonical)
CREATE TABLE derived_traces (
    trace         VARCHAR PRIMARY KEY,
    source        VARCHAR NOT NULL,
    source_sha256 VARCHAR NOT NULL,
    recipe        VARCHAR NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
