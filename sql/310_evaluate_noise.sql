-- `walltime evaluate`'s replay noise: every chosen configuration
-- (and the baseline, EASY with the users' requests) replayed again over the
-- whole trace with every arrival moved later by 0..shift_s whole seconds,
-- the same delays for every configuration of a draw (pipeline/evaluate/
-- replays.py: a function of the draw and the job id). What a reduction of
-- AVEbsld is worth when nothing meaningful changes. Grain: trace, family,
-- scheduler, draw, period ('scored': the jobs after the logged first third;
-- 'whole': all).
CREATE TABLE evaluate_noise (
    trace      VARCHAR NOT NULL,
    family     VARCHAR NOT NULL,
    scheduler  VARCHAR NOT NULL,
    draw       INTEGER NOT NULL,   -- the random generator's seed, 1..draws
    shift_s    INTEGER NOT NULL,   -- largest delay of an arrival, seconds
    period     VARCHAR NOT NULL,
    jobs       BIGINT NOT NULL,
    avebsld    DOUBLE NOT NULL,
    PRIMARY KEY (trace, family, scheduler, draw, period)
);

-- Each draw's reduction of AVEbsld against the baseline in the same draw and
-- period (percent, positive = better), as evaluate_reductions.
CREATE VIEW evaluate_noise_reductions AS
SELECT n.*,
       b.avebsld AS base_avebsld,
       100.0 * (b.avebsld - n.avebsld) / b.avebsld AS reduction_pct
FROM evaluate_noise n
JOIN evaluate_noise b
  ON b.trace = n.trace AND b.draw = n.draw AND b.period = n.period AND b.family = 'request' AND b.scheduler = 'EASY';
