-- Core schema: traces, their header lines, jobs and rejected lines.
-- Times are integer seconds; -1 ("unknown" in SWF) is stored as NULL.

CREATE TABLE traces (
    trace             VARCHAR PRIMARY KEY,
    source            VARCHAR,      -- path the trace was ingested from
    format            VARCHAR,      -- 'swf'
    sha256            VARCHAR NOT NULL,  -- of the decompressed bytes
    bytes             BIGINT,       -- decompressed size
    lines             BIGINT,       -- physical lines in the file
    jobs              BIGINT NOT NULL,
    rejected          BIGINT NOT NULL,
    extended_tokens   BOOLEAN,      -- lines carried more than 18 tokens (extended SWF)
    version           VARCHAR,      -- header "Version"
    computer          VARCHAR,      -- header "Computer"
    installation      VARCHAR,      -- header "Installation"
    max_jobs          BIGINT,
    max_records       BIGINT,
    max_nodes         BIGINT,
    max_procs         BIGINT,
    unix_start_time   BIGINT,       -- NULL: submit times are used as Unix times
    time_zone         BIGINT,       -- header "TimeZone" (seconds, legacy)
    time_zone_string  VARCHAR,      -- header "TimeZoneString"
    tz                VARCHAR NOT NULL,  -- zone used for months (TimeZoneString or UTC)
    capacity          BIGINT,       -- MaxProcs, else MaxNodes; NULL if neither
    first_submit      TIMESTAMPTZ,
    last_submit       TIMESTAMPTZ,
    users             BIGINT,
    groups            BIGINT,
    header_raw        VARCHAR,      -- every ';' line, verbatim
    ingested_at       TIMESTAMPTZ NOT NULL
);

-- Every "; Key: Value" header line (continuation lines have key NULL).
CREATE TABLE trace_header (
    trace  VARCHAR NOT NULL,
    line   BIGINT NOT NULL,
    key    VARCHAR,
    value  VARCHAR
);

-- The 18 SWF fields (names follow the SWF definition) plus derived columns.
CREATE TABLE jobs (
    trace         VARCHAR NOT NULL,
    job_id        BIGINT NOT NULL,   -- field 1
    submit        BIGINT NOT NULL,   -- field 2, seconds from the trace start
    wait          BIGINT,            -- field 3
    run           BIGINT,            -- field 4
    procs         BIGINT,            -- field 5, allocated processors
    avg_cpu       DOUBLE,            -- field 6
    used_mem      DOUBLE,            -- field 7
    req_procs     BIGINT,            -- field 8
    req           BIGINT,            -- field 9, requested (wall) time
    req_mem       DOUBLE,            -- field 10
    status        INTEGER,           -- field 11
    user_id       BIGINT,            -- field 12
    group_id      BIGINT,            -- field 13
    exe_id        BIGINT,            -- field 14
    queue_id      BIGINT,            -- field 15
    partition_id  BIGINT,            -- field 16
    prev_job_id   BIGINT,            -- field 17
    think_time    BIGINT,            -- field 18
    line          BIGINT NOT NULL,   -- physical line in the source file
    nodes         BIGINT,            -- procs when > 0, else req_procs when > 0
    submit_ts     TIMESTAMPTZ,       -- UnixStartTime + submit (UTC instant)
    "end"         BIGINT,            -- submit + wait + run where both are known
    month         VARCHAR            -- YYYY-MM of submission in the trace's zone
);

CREATE TABLE rejects (
    trace   VARCHAR NOT NULL,
    line    BIGINT NOT NULL,
    reason  VARCHAR NOT NULL,
    raw     VARCHAR
);
