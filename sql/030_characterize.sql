-- `walltime characterize`: accuracy of the users' requested times, per trace.
-- R = least(run, req) / req over jobs with req > 0 and run >= 0 (Tang et al. 2013 Sec. 3).
-- Every table is keyed by trace; re-running characterize replaces that trace's rows.

-- One row per trace: the R distribution's moments and shares (Tang Sec. 3.2).
CREATE TABLE characterize_summary (
    trace          VARCHAR PRIMARY KEY,
    jobs           BIGINT NOT NULL,   -- all jobs of the trace
    jobs_ran       BIGINT NOT NULL,   -- jobs with a run time (run >= 0)
    jobs_r         BIGINT NOT NULL,   -- jobs with an R (req > 0 and run >= 0)
    mean_r         DOUBLE,
    std_r          DOUBLE,            -- sample standard deviation (n - 1)
    share_lt_0_2   DOUBLE,            -- R < 0.2
    share_lt_0_5   DOUBLE,            -- R < 0.5
    share_gt_0_8   DOUBLE,            -- R > 0.8
    share_ge_0_99  DOUBLE,            -- R >= 0.99 ("killed at the limit")
    computed_at    TIMESTAMPTZ NOT NULL
);

-- 20 bins of width 0.05; bin 19 is [0.95, 1] (R is capped at 1).
CREATE TABLE characterize_hist (
    trace  VARCHAR NOT NULL,
    bin    INTEGER NOT NULL,
    lo     DOUBLE NOT NULL,
    hi     DOUBLE NOT NULL,
    jobs   BIGINT NOT NULL,
    share  DOUBLE NOT NULL,
    PRIMARY KEY (trace, bin)
);

-- Empirical CDF at x = 0.00, 0.01, ..., 1.00: share of jobs with R <= x.
CREATE TABLE characterize_cdf (
    trace     VARCHAR NOT NULL,
    x         DOUBLE NOT NULL,
    share_le  DOUBLE NOT NULL,
    PRIMARY KEY (trace, x)
);

-- Mean R per quarter of submission, in the trace's time zone (Tang Fig. 2).
CREATE TABLE characterize_quarters (
    trace    VARCHAR NOT NULL,
    quarter  VARCHAR NOT NULL,   -- 'YYYY-Qn'
    jobs     BIGINT NOT NULL,
    mean_r   DOUBLE NOT NULL,
    std_r    DOUBLE,
    PRIMARY KEY (trace, quarter)
);

-- The rows of Mu'alem & Feitelson 2001 Table 2 (see docs/characterize.md).
-- number is NULL when the trace lacks the fields the row needs.
CREATE TABLE characterize_mualem (
    trace   VARCHAR NOT NULL,
    pos     INTEGER NOT NULL,    -- row order as in the paper
    row     VARCHAR NOT NULL,    -- identifier, e.g. peak_100
    label   VARCHAR NOT NULL,    -- the paper's row label, e.g. '100% peak'
    number  BIGINT,
    pct     DOUBLE,              -- percent of `of`
    of      VARCHAR NOT NULL,    -- 'total' or '100% peak'
    PRIMARY KEY (trace, row)
);

-- Tang Table 2: per key type, groups with >= 10 jobs and the mean of their std(R).
-- groups/avg_std_r are NULL when the trace lacks the key's fields.
CREATE TABLE characterize_keys (
    trace      VARCHAR NOT NULL,
    pos        INTEGER NOT NULL,
    key_type   VARCHAR NOT NULL,  -- all, project, user, user_project, user_project_req
    groups     BIGINT,
    jobs       BIGINT,            -- jobs inside those groups
    avg_std_r  DOUBLE,
    PRIMARY KEY (trace, key_type)
);

-- What could not be computed for a trace, and why.
CREATE TABLE characterize_notes (
    trace      VARCHAR NOT NULL,
    pos        INTEGER NOT NULL,
    statistic  VARCHAR NOT NULL,
    reason     VARCHAR NOT NULL
);
