-- Smith, Taylor & Foster template sets (paper 004, Section 2.1) found by
-- `walltime search-templates` and used by the `smith:set=NAME` scheme.
-- templates: JSON list of template texts, e.g. ["(u,n=4,abs)", "(q,h=32,rel)"].
CREATE TABLE template_sets (
    name         VARCHAR PRIMARY KEY,
    templates    VARCHAR NOT NULL,
    trace        VARCHAR,            -- trace searched on
    train_error  DOUBLE,             -- mean absolute run-time prediction error (s) on the training part
    train_until  TIMESTAMPTZ,        -- training part: jobs submitted before this instant (NULL: all)
    generations  BIGINT,
    population   BIGINT,
    seed         BIGINT,
    created_at   TIMESTAMPTZ NOT NULL
);
