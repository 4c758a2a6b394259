-- What the report shows for each trace, as views, so that the report's compute
-- phase (pipeline/report/compute.py) and the tables that read the results agree
-- on one list: which fields a trace has, which estimate scheme plays which role,
-- and which simulations each section needs.

-- Fields that decide which sections make sense for a trace.
CREATE OR REPLACE VIEW report_trace_fields AS
SELECT j.trace,
       count(*)                                   AS jobs,
       count(*) FILTER (WHERE j.run >= 0)         AS jobs_ran,
       count(*) FILTER (WHERE j.req > 0) > 0      AS has_request,
       count(j.group_id) > 0                      AS has_group,
       count(j.user_id) > 0                       AS has_user,
       count(*) FILTER (WHERE j.wait >= 0) > 0    AS has_wait,
       count(j.exe_id) > 0                        AS has_exe,
       -- Tang's triple key needs group (project) ids; without them the user key
       -- is the finest history key with the request left out.
       CASE WHEN count(j.group_id) > 0 THEN 'user_project_req' ELSE 'user' END AS tang_key,
       max(j.nodes)                               AS max_nodes,
       any_value(t.capacity)                      AS capacity
FROM jobs j JOIN traces t USING (trace)
GROUP BY j.trace;

-- Estimate scheme (canonical spec string) of every role the report uses.
CREATE OR REPLACE VIEW report_schemes AS
SELECT f.trace, r.role, r.label, r.pos,
       replace(r.spec, '{key}', f.tang_key) AS estimate,
       r.needs_request
FROM report_trace_fields f,
     (VALUES
        ('original',    'user estimate (request)',  1, 'request', true),
        ('actual',      'exact runtime',            2, 'actual', false),
        ('p95',         'p95',                      3, 'tang:floor=0.5,key={key},min=10,stat=p95,window=30d', true),
        ('p85',         'p85',                      4, 'tang:floor=0.5,key={key},min=10,stat=p85,window=30d', true),
        ('p70',         'p70',                      5, 'tang:floor=0.5,key={key},min=10,stat=p70,window=30d', true),
        ('klusacek',    'Klusacek last 5',          6, 'klusacek:last=5', true),
        ('feitelson',   'mean + 1.5 sd (M&F 4.4)',  7, 'feitelson:horizon=7d,sd=1.5', false),
        ('ave2',        'ave2 (last two)',          8, 'ave2', false),
        ('double',      'request x 2',              9, 'factor:f=2', true),
        ('f1',          'f = 1',                   11, 'uniform:f=1,seed=0', false),
        ('f2',          'f = 2',                   12, 'uniform:f=2,seed=0', false),
        ('f4',          'f = 4',                   13, 'uniform:f=4,seed=0', false),
        ('f11',         'f = 11',                  14, 'uniform:f=11,seed=0', false),
        ('f31',         'f = 31',                  15, 'uniform:f=31,seed=0', false),
        ('f101',        'f = 101',                 16, 'uniform:f=101,seed=0', false),
        ('f301',        'f = 301',                 17, 'uniform:f=301,seed=0', false)
     ) r(role, label, pos, spec, needs_request)
WHERE f.has_request OR NOT r.needs_request;

-- Every simulation the report needs: experiment (section part), the scheme's
-- role, and the simulate options. split 'month' = --split month.
CREATE OR REPLACE VIEW report_plan AS
SELECT s.trace, p.experiment, p.section, s.role, s.label, s.pos, s.estimate,
       p.policy, p.backfill, p.adjust, p.overrun, p.split, p.predict_wait
FROM report_schemes s
JOIN (VALUES
    -- Tang et al. Figs. 14-17: WFP and FCFS, EASY, regular and selective, per month
    ('tang', 'scheduling', 'original', 'wfp',  'easy', 'regular',   'request', 'month', false),
    ('tang', 'scheduling', 'p95',      'wfp',  'easy', 'regular',   'request', 'month', false),
    ('tang', 'scheduling', 'p85',      'wfp',  'easy', 'regular',   'request', 'month', false),
    ('tang', 'scheduling', 'p70',      'wfp',  'easy', 'regular',   'request', 'month', false),
    ('tang', 'scheduling', 'p95',      'wfp',  'easy', 'selective', 'request', 'month', false),
    ('tang', 'scheduling', 'p85',      'wfp',  'easy', 'selective', 'request', 'month', false),
    ('tang', 'scheduling', 'p70',      'wfp',  'easy', 'selective', 'request', 'month', false),
    ('tang', 'scheduling', 'original', 'fcfs', 'easy', 'regular',   'request', 'month', false),
    ('tang', 'scheduling', 'p95',      'fcfs', 'easy', 'regular',   'request', 'month', false),
    ('tang', 'scheduling', 'p85',      'fcfs', 'easy', 'regular',   'request', 'month', false),
    ('tang', 'scheduling', 'p70',      'fcfs', 'easy', 'regular',   'request', 'month', false),
    ('tang', 'scheduling', 'p95',      'fcfs', 'easy', 'selective', 'request', 'month', false),
    ('tang', 'scheduling', 'p85',      'fcfs', 'easy', 'selective', 'request', 'month', false),
    ('tang', 'scheduling', 'p70',      'fcfs', 'easy', 'selective', 'request', 'month', false),
    -- Mu'alem & Feitelson Tables 1, 3, 4: FCFS, EASY and conservative, per month
    ('mualem', 'scheduling', 'original', 'fcfs', 'easy',         'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'original', 'fcfs', 'conservative', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'double',   'fcfs', 'easy',         'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'double',   'fcfs', 'conservative', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f1',   'fcfs', 'easy', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f2',   'fcfs', 'easy', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f4',   'fcfs', 'easy', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f11',  'fcfs', 'easy', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f31',  'fcfs', 'easy', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f101', 'fcfs', 'easy', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f301', 'fcfs', 'easy', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f1',   'fcfs', 'conservative', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f2',   'fcfs', 'conservative', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f4',   'fcfs', 'conservative', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f11',  'fcfs', 'conservative', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f31',  'fcfs', 'conservative', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f101', 'fcfs', 'conservative', 'regular', 'request', 'month', false),
    ('mualem', 'scheduling', 'f301', 'fcfs', 'conservative', 'regular', 'request', 'month', false),
    -- Klusacek & Soysal Figs. 5-7: FCFS + conservative, whole trace, doubling on overrun
    ('klusacek', 'scheduling', 'actual',   'fcfs', 'conservative', 'regular', 'double', NULL, false),
    ('klusacek', 'scheduling', 'original', 'fcfs', 'conservative', 'regular', 'double', NULL, false),
    ('klusacek', 'scheduling', 'klusacek', 'fcfs', 'conservative', 'regular', 'double', NULL, false),
    -- Smith, Taylor & Foster Tables 4-15: FCFS, LWF, backfill (FCFS + EASY), predicted start.
    -- FCFS with exact runtimes is left out as in their Table 4: its prediction is exact
    -- by construction (later arrivals cannot pass), and FCFS without backfilling is the
    -- costliest run to predict on a loaded trace.
    ('smith', 'prediction', 'actual',    'lwf',  'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'actual',    'fcfs', 'easy', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'original',  'fcfs', 'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'original',  'lwf',  'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'original',  'fcfs', 'easy', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'p85',       'fcfs', 'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'p85',       'lwf',  'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'p85',       'fcfs', 'easy', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'klusacek',  'fcfs', 'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'klusacek',  'lwf',  'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'klusacek',  'fcfs', 'easy', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'feitelson', 'fcfs', 'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'feitelson', 'lwf',  'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'feitelson', 'fcfs', 'easy', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'ave2',      'fcfs', 'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'ave2',      'lwf',  'none', 'regular', 'request', NULL, true),
    ('smith', 'prediction', 'ave2',      'fcfs', 'easy', 'regular', 'request', NULL, true)
) p(experiment, section, role, policy, backfill, adjust, overrun, split, predict_wait)
  ON p.role = s.role;

-- The stored run of each planned simulation: the newest run with those options
-- (any capacity: the report runs at the trace's capacity unless told otherwise,
-- e.g. CTC at 512 nodes; the capacity column says which).
CREATE OR REPLACE VIEW report_plan_runs AS
SELECT p.*, r.run_id, r.capacity, r.jobs_simulated
FROM report_plan p
LEFT JOIN (
    SELECT * FROM runs
    WHERE load_factor = 1.0
    QUALIFY row_number() OVER (
        PARTITION BY trace, policy, backfill, estimate, adjust, overrun, split, predict_wait
        ORDER BY created_at DESC) = 1
) r ON r.trace = p.trace AND r.estimate = p.estimate AND r.policy = p.policy
   AND r.backfill = p.backfill AND r.adjust = p.adjust AND r.overrun = p.overrun
   AND r.split IS NOT DISTINCT FROM p.split AND r.predict_wait = p.predict_wait;
