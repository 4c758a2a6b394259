-- Mu'alem & Feitelson Figs. 4 and 7 on this project's workload model (a
-- stand-in for Feitelson's 1996 model: pipeline/reproduce/mualem_models.py):
-- one row per generated workload (variant F, Fs, Fl or Fsl; offered load;
-- seed) and backfilling scheme, FCFS with exact runtimes as estimates. The
-- runs are not stored as sim_jobs: a generated workload is not a trace of the
-- warehouse, and the figure needs only these means. `setup` hashes what a row
-- depends on (the variants' Model fields, jobs per workload, the machine, the
-- simulate stage's code version), so a change of any re-runs the points.

CREATE TABLE mualem_model_runs (
    setup                 VARCHAR NOT NULL,
    variant               VARCHAR NOT NULL,  -- F, Fs, Fl, Fsl
    load                  DOUBLE NOT NULL,   -- offered load the interarrival times were scaled to
    seed                  INTEGER NOT NULL,  -- walltime generate's seed
    backfill              VARCHAR NOT NULL,  -- easy or conservative
    jobs                  BIGINT NOT NULL,
    mean_response         DOUBLE NOT NULL,   -- s: mean of wait + run
    mean_bounded_slowdown DOUBLE NOT NULL,   -- mean of max(1, (wait + run) / max(run, 10))
    backfilled            BIGINT NOT NULL,   -- jobs started by the backfill scan
    seconds               DOUBLE NOT NULL,   -- the event loop's wall time
    created_at            TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (setup, variant, load, seed, backfill)
);
