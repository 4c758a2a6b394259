-- `walltime evaluate`: the correction on overrun is tuned too.
-- A candidate is (scheme, overrun): the estimator families' schemes are tried
-- with Tsafrir's correction ('tsafrir') and with the request on the first
-- overrun ('request', pyss's "reqtime" corrector), both on the first third;
-- Gaussier et al. 2015 chose their corrector among theirs the same way (with
-- hindsight). Rows stored before this migration were all 'tsafrir'.
-- (The view evaluate_reductions reads evaluate_scores with s.*: it shows the
-- new column as it is, and needs no change.)

CREATE TABLE evaluate_tuning_290 (
    trace        VARCHAR NOT NULL,
    family       VARCHAR NOT NULL,   -- request, ave2, klusacek, tang, smith, learned, actual
    scheduler    VARCHAR NOT NULL,   -- EASY or EASY++
    scheme       VARCHAR NOT NULL,   -- canonical scheme spec of the candidate
    overrun      VARCHAR NOT NULL,   -- the candidate's correction on overrun: tsafrir or request
    jobs         BIGINT NOT NULL,    -- jobs of the first third (the tuning replay's jobs)
    avebsld      DOUBLE NOT NULL,    -- mean bounded slowdown, max(1, (wait + run) / max(run, 10))
    chosen       BOOLEAN NOT NULL,   -- the family's lowest avebsld (ties: the first in the grid)
    PRIMARY KEY (trace, family, scheduler, scheme, overrun)
);
INSERT INTO evaluate_tuning_290
SELECT trace, family, scheduler, scheme, 'tsafrir', jobs, avebsld, chosen FROM evaluate_tuning;
DROP TABLE evaluate_tuning;
ALTER TABLE evaluate_tuning_290 RENAME TO evaluate_tuning;

-- the chosen configuration's correction on overrun
ALTER TABLE evaluate_scores ADD COLUMN overrun VARCHAR DEFAULT 'tsafrir';

