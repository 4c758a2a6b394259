-- `walltime estimate`: per-job runtime estimates under a scheme, and how
-- accurate each scheme is (Tang et al. 2013 Eq. 3 and the NA/OE/UE/BE classes).
-- `scheme` is always the canonical spec string (pipeline/schemes.py).

-- One row per job of the trace per stored scheme. est NULL: no estimate (the
-- job has no request under a request-based scheme, or no runtime under
-- actual/uniform/model); the simulator then uses its own request rule.
CREATE TABLE estimates (
    trace    VARCHAR NOT NULL,
    scheme   VARCHAR NOT NULL,
    job_id   BIGINT NOT NULL,
    est      DOUBLE,               -- seconds
    hist     BIGINT                -- history jobs the estimate used (NULL: scheme has no history)
);

-- Accuracy of every stored scheme (one row per trace and scheme). Scored jobs:
-- known runtime and known estimate. Shares are of scored jobs and sum to 1:
-- na + oe + ue + be + above.
CREATE TABLE estimate_accuracy (
    trace               VARCHAR NOT NULL,
    scheme              VARCHAR NOT NULL,
    trace_sha256        VARCHAR NOT NULL,  -- content the estimates were computed from
    jobs                BIGINT NOT NULL,   -- jobs in the trace
    scored              BIGINT NOT NULL,
    acc_mean            DOUBLE,            -- Tang Eq. 3: min(run, est) / max(run, est)
    acc_median          DOUBLE,
    acc_mean_not_under  DOUBLE,            -- mean accuracy over jobs with est >= run
    under_rate          DOUBLE,            -- est < run (any class)
    na                  DOUBLE,            -- est = requested
    oe                  DOUBLE,            -- run <= est < requested
    ue                  DOUBLE,            -- est < run by less than 30 min (est != requested)
    be                  DOUBLE,            -- est < run by 30 min or more (est != requested)
    above               DOUBLE,            -- est >= run and above the request (or no request)
    seconds             DOUBLE,            -- time to compute the estimates
    computed_at         TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (trace, scheme)
);

-- `--grid tang`: the same accuracy columns for every Tang scheme of the grid
-- (4 keys x 6 windows x 9 statistics, at the default floor and at floor 0);
-- per-job estimates of grid schemes are not stored.
CREATE TABLE estimate_grid (
    trace               VARCHAR NOT NULL,
    grid                VARCHAR NOT NULL,  -- 'tang'
    scheme              VARCHAR NOT NULL,
    key_type            VARCHAR NOT NULL,
    win                 VARCHAR NOT NULL,  -- 30d .. 365d, all
    stat                VARCHAR NOT NULL,
    floor               DOUBLE NOT NULL,
    min_jobs            BIGINT NOT NULL,
    trace_sha256        VARCHAR NOT NULL,
    jobs                BIGINT NOT NULL,
    scored              BIGINT NOT NULL,
    acc_mean            DOUBLE,
    acc_median          DOUBLE,
    acc_mean_not_under  DOUBLE,
    under_rate          DOUBLE,
    na                  DOUBLE,
    oe                  DOUBLE,
    ue                  DOUBLE,
    be                  DOUBLE,
    above               DOUBLE,
    computed_at         TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (trace, grid, scheme)
);
