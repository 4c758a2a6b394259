-- `walltime evaluate --walk-forward`: the field's walk-forward benchmark (Menear et al. 2023) on a
-- trace: a learned model trained every step_days on the jobs that ended in the window_days before, predicting
-- the step's submissions; beside it ave2 and the users' requests on the same jobs (pipeline/evaluate/
-- walk_forward.py). Grain: trace, window, step, estimator; a new run replaces the row.
CREATE TABLE evaluate_walk_forward (
    trace        VARCHAR NOT NULL,
    window_days  DOUBLE NOT NULL,
    step_days    DOUBLE NOT NULL,
    estimator    VARCHAR NOT NULL,   -- learned, ave2, request
    models       INTEGER NOT NULL,   -- learned models trained (steps with enough history)
    predictions  BIGINT NOT NULL,    -- jobs scored: predicted by the learned model, with a run and a request
    r2           DOUBLE,             -- of the runtime (NULL: one runtime only)
    rmse_h       DOUBLE,             -- hours
    mae_h        DOUBLE,             -- hours
    accuracy     DOUBLE,             -- mean of min(run, estimate) / max(run, estimate)
    under        DOUBLE,             -- share of jobs with estimate < run
    computed_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (trace, window_days, step_days, estimator)
);
