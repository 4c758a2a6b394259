-- Simulation runs (walltime simulate): one row per run, one row per simulated
-- job, and the metrics per run ('all') and per month of submission.
-- run_id is a content hash of the inputs handed to the event loop, the
-- canonical configuration and the code version: the same inputs and options
-- give the same run_id, and a second `simulate` reuses the stored run.

CREATE TABLE runs (
    run_id              VARCHAR PRIMARY KEY,
    trace               VARCHAR NOT NULL,
    config              VARCHAR NOT NULL,   -- canonical JSON of every option (keys sorted)
    code_version        VARCHAR NOT NULL,   -- walltime version + hash of the simulate sources
    input_sha256        VARCHAR NOT NULL,   -- hash of the arrays given to the event loop
    policy              VARCHAR NOT NULL,
    backfill            VARCHAR NOT NULL,
    estimate            VARCHAR NOT NULL,   -- canonical scheme string
    adjust              VARCHAR NOT NULL,
    overrun             VARCHAR NOT NULL,
    split               VARCHAR,            -- 'month' or NULL
    load_factor         DOUBLE NOT NULL,
    capacity            BIGINT NOT NULL,
    drop_oversized      BOOLEAN NOT NULL,
    predict_wait        BOOLEAN NOT NULL,
    jobs_in_trace       BIGINT NOT NULL,
    jobs_simulated      BIGINT NOT NULL,
    left_out_no_run     BIGINT NOT NULL,    -- run < 0 or unknown
    left_out_no_size    BIGINT NOT NULL,    -- nodes unknown or <= 0
    dropped_oversized   BIGINT NOT NULL,    -- nodes > capacity with --drop-oversized
    no_request          BIGINT NOT NULL,    -- req <= 0 or unknown: req = max(run, 1)
    no_estimate         BIGINT NOT NULL,    -- estimate missing or negative: est = req
    segments            BIGINT NOT NULL,    -- independent simulations (months with --split month)
    load_s              DOUBLE,
    simulate_s          DOUBLE,
    write_s             DOUBLE,
    created_at          TIMESTAMPTZ NOT NULL
);

CREATE TABLE sim_jobs (
    run_id           VARCHAR NOT NULL,
    job_id           BIGINT NOT NULL,
    month            VARCHAR NOT NULL,   -- YYYY-MM of the original submission (trace zone)
    submit           BIGINT NOT NULL,    -- after --load-factor
    run              BIGINT NOT NULL,
    nodes            BIGINT NOT NULL,
    req              BIGINT NOT NULL,    -- after the no-request rule
    est_wait         BIGINT NOT NULL,    -- integer seconds the scheduler used while waiting
    est_run          BIGINT NOT NULL,    -- ... and once running
    start            BIGINT NOT NULL,
    "end"            BIGINT NOT NULL,
    wait             BIGINT NOT NULL,
    backfilled       BOOLEAN NOT NULL,
    predicted_start  BIGINT,             -- NULL where not predicted
    score            DOUBLE NOT NULL,    -- queue-order score at start (Tang Eq. 4 weight)
    first_bound      BIGINT              -- EASY shadow when first head / first reservation; NULL if none
);

CREATE TABLE run_metrics (
    run_id              VARCHAR NOT NULL,
    month               VARCHAR NOT NULL,   -- 'all', or YYYY-MM of submission
    jobs                BIGINT NOT NULL,
    mean_wait           DOUBLE,
    median_wait         DOUBLE,
    max_wait            BIGINT,
    mean_response       DOUBLE,
    mean_slowdown       DOUBLE,
    mean_bounded_slowdown DOUBLE,
    weighted_wait       DOUBLE,             -- Tang Eq. 4
    utilization         DOUBLE,
    makespan            BIGINT,             -- last end - first submit
    backfill_ratio      DOUBLE,
    backfilled          BIGINT,
    predicted           BIGINT,             -- jobs with a predicted start
    prediction_error    DOUBLE,             -- mean |predicted_start - start| (s)
    prediction_error_pct DOUBLE,            -- that, as percent of the mean wait of those jobs
    peak_nodes          BIGINT,             -- most nodes in use at once (per simulated segment)
    PRIMARY KEY (run_id, month)
);
