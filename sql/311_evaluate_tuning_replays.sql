-- `walltime evaluate` chooses on the first third replayed at two loads (301)
-- and, at each load, again in noise draws with every arrival moved up to
-- shift_s seconds later (`walltime evaluate --draws`, --shift; replays.shifted).
-- One row per candidate replay; evaluate_tuning.score is the mean over a
-- candidate's rows of its AVEbsld over the baseline's (EASY with the users'
-- requests) in the same load and draw. Grain: trace, family, scheduler,
-- scheme, overrun, load, draw (0: as logged, shift_s 0).
CREATE TABLE evaluate_tuning_replays (
    trace      VARCHAR NOT NULL,
    family     VARCHAR NOT NULL,
    scheduler  VARCHAR NOT NULL,
    scheme     VARCHAR NOT NULL,
    overrun    VARCHAR NOT NULL,
    load       DOUBLE NOT NULL,    -- arrivals this many times as frequent (interarrival times / load)
    draw       INTEGER NOT NULL,   -- noise seed 1..draws; 0 = arrivals as logged
    shift_s    INTEGER NOT NULL,   -- largest delay of an arrival, seconds (0 for draw 0)
    jobs       BIGINT NOT NULL,
    avebsld    DOUBLE NOT NULL,
    PRIMARY KEY (trace, family, scheduler, scheme, overrun, load, draw)
);
