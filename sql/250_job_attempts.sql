-- `sacct --duplicates` dumps. Every attempt of a requeued job is a
-- row of its own: the earlier ones (REQUEUED, PREEMPTED, NODE_FAIL, ...) ran
-- and were cut short, the last one is the job (in `jobs`). The earlier ones
-- are kept here with their times and sizes, so the core-hours they used are
-- known and the job's first submission (attempt 1) is not lost: a requeued
-- job's Submit is the time of its last requeue. Written by the ingest with
-- the trace's jobs; forgotten on `ingest --replace` (trace_forget_results.sql).
CREATE TABLE job_attempts (
    trace        VARCHAR NOT NULL,
    job_id       BIGINT NOT NULL,   -- the job in `jobs` (its last attempt)
    slurm_id     VARCHAR,           -- JobID as printed
    attempt      INTEGER NOT NULL,  -- 1 = the first submission; the job itself is the attempt after the last one here
    state        VARCHAR,           -- State verbatim: REQUEUED, PREEMPTED, NODE_FAIL, ...
    exit_code    VARCHAR,
    submit_ts    TIMESTAMPTZ,       -- Submit of this attempt (attempt 1: the job's first submission)
    eligible_ts  TIMESTAMPTZ,
    start_ts     TIMESTAMPTZ,
    end_ts       TIMESTAMPTZ,
    run          BIGINT,            -- seconds, End - Start (as jobs.run)
    cpus         BIGINT,            -- NCPUS (else AllocCPUS, AllocTRES cpu=)
    nodes        BIGINT,            -- NNodes (else AllocTRES node=)
    gpus         BIGINT,            -- gres/gpu of AllocTRES (else ReqTRES)
    line         BIGINT NOT NULL    -- physical line in the source file
);
ALTER TABLE traces ADD COLUMN earlier_attempts BIGINT;  -- rows in job_attempts (NULL: not a sacct trace, or loaded before 250)
