-- Node-aware runs (walltime simulate --nodes-aware; Klusacek & Soysal 2018 Section 4.2).
-- A node-aware run has its usual rows in runs / sim_jobs / run_metrics, plus:
--   node_runs: one row per run (node size, nodes of the machine, pinning interval);
--   sim_nodes: one row per job (its node set as ranges, T_node, planned-set changes).
-- Both are written in the same transaction as the run and deleted with it.

CREATE TABLE node_runs (
    run_id          VARCHAR PRIMARY KEY,
    node_size       BIGINT NOT NULL,    -- processors per node (--node-size)
    machine_nodes   BIGINT NOT NULL,    -- capacity // node_size, numbered 0 .. machine_nodes - 1
    pin_interval    BIGINT              -- seconds (--pin-interval); NULL: no pinning
);

CREATE TABLE sim_nodes (
    run_id          VARCHAR NOT NULL,
    job_id          BIGINT NOT NULL,
    node_count      BIGINT NOT NULL,    -- ceil(processors / node_size)
    node_ranges     VARCHAR NOT NULL,   -- the nodes it ran on, e.g. '0-15,32,40-47'
    t_node          BIGINT NOT NULL,    -- start - last instant its planned node set changed (s)
    t_node_strict   BIGINT NOT NULL,    -- start - last instant its planned (start, node set) changed (s)
    plan_changes    BIGINT NOT NULL,    -- passes at which its planned node set changed while it waited
    pinned_at       BIGINT              -- instant it was pinned to its nodes; NULL if never
);
