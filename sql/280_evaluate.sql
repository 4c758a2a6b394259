-- `walltime evaluate`: estimators x schedulers scored
-- walk-forward. Each scheme family's configuration is chosen by AVEbsld on the
-- first third of the trace's simulated jobs (loop order: submit, job_id),
-- replayed alone; the chosen one is replayed over the whole trace (a stored
-- run) and scored on the remaining two thirds and on the whole trace.

-- One row per candidate configuration tried on the first third (grain: trace,
-- family, scheduler, scheme).
CREATE TABLE evaluate_tuning (
    trace        VARCHAR NOT NULL,
    family       VARCHAR NOT NULL,   -- request, ave2, klusacek, tang, smith, learned, actual
    scheduler    VARCHAR NOT NULL,   -- EASY or EASY++ (both with Tsafrir's correction on overrun)
    scheme       VARCHAR NOT NULL,   -- canonical scheme spec of the candidate
    jobs         BIGINT NOT NULL,    -- jobs of the first third (the tuning replay's jobs)
    avebsld      DOUBLE NOT NULL,    -- mean bounded slowdown, max(1, (wait + run) / max(run, 10))
    chosen       BOOLEAN NOT NULL,   -- the family's lowest avebsld (ties: the first in the grid)
    PRIMARY KEY (trace, family, scheduler, scheme)
);

-- One row per chosen configuration and period (grain: trace, family, scheduler, period).
CREATE TABLE evaluate_scores (
    trace        VARCHAR NOT NULL,
    family       VARCHAR NOT NULL,
    scheduler    VARCHAR NOT NULL,
    period       VARCHAR NOT NULL,   -- 'scored' (jobs after the first tune_jobs) or 'whole'
    scheme       VARCHAR NOT NULL,   -- the chosen canonical scheme
    run_id       VARCHAR NOT NULL,   -- the whole-trace replay (runs, sim_jobs, run_metrics)
    tune_jobs    BIGINT NOT NULL,    -- jobs of the first third, left out of 'scored'
    jobs         BIGINT NOT NULL,    -- jobs of the period
    avebsld      DOUBLE NOT NULL,
    mean_wait    DOUBLE NOT NULL,    -- seconds
    under_rate   DOUBLE NOT NULL,    -- share of the period's jobs with est_wait < run (0..1)
    PRIMARY KEY (trace, family, scheduler, period)
);

-- The reduction of AVEbsld against EASY with the users' requests over the
-- same period (percent; positive = better), as Gaussier et al. 2015 report it.
CREATE VIEW evaluate_reductions AS
SELECT s.*,
       b.avebsld AS base_avebsld,
       100.0 * (b.avebsld - s.avebsld) / b.avebsld AS reduction_pct
FROM evaluate_scores s
JOIN evaluate_scores b
  ON b.trace = s.trace AND b.period = s.period AND b.family = 'request' AND b.scheduler = 'EASY';
