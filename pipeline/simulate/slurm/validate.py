"""A replay beside repeated real runs of one workload: the figures of docs/slurm-replay.md, "Validation".

Why repeated runs: real Slurm is not repeatable (its passes run on timers), so one real run is no oracle. The
replay of each run's log is read against the spread of all of them: its mean wait against the runs' range, each
job's start against the runs' earliest-latest start widened by ``slack`` (sched_interval + bf_interval), the
order of starts (Spearman), and the calibration's moving-average MAPE against its own log.
"""

from __future__ import annotations

import warnings

import polars as pl

from ... import sqlfiles


def figures(con, real: list[str], replays: list[str], slack: int) -> dict:
    """Per replay run and overall: mean waits, the share of jobs inside the real runs' window, Spearman's rho
    of the start order against the real runs' mean start, and the moving-average MAPE (run_calibration)."""
    with warnings.catch_warnings():  # (DuckDB: one extra copy of a few hundred rows)
        warnings.simplefilter("ignore", UserWarning)
        rows = pl.from_arrow(con.execute(sqlfiles.load("slurm_validation"), [real, replays]).to_arrow_table())
    runs = rows.filter(pl.col("kind") == "real")
    window = runs.group_by("job_name").agg(pl.col("start_off").min().alias("lo"), pl.col("start_off").max().alias("hi"),
                                           pl.col("start_off").mean().alias("mean_start"), pl.len().alias("n_real"))
    real_means = runs.group_by("trace").agg(pl.col("wait").mean().alias("mean_wait")).sort("trace")
    out = []
    for run_id in replays:
        rep = rows.filter(pl.col("run_id") == run_id).join(window.filter(pl.col("n_real") == len(real)),
                                                           on="job_name")
        inside = ((rep["start_off"] >= rep["lo"] - slack) & (rep["start_off"] <= rep["hi"] + slack)).mean()
        rho = rep.select(pl.corr("start_off", "mean_start", method="spearman")).item()
        cal = con.execute("SELECT moving_wait_mape, log_mean_wait FROM run_calibration WHERE run_id = ?",
                          [run_id]).fetchone()
        out.append({"run_id": run_id, "trace": rep["trace"][0] if rep.height else None, "jobs": rep.height,
                    "mean_wait": rep["wait"].mean(), "inside": inside, "spearman": rho,
                    "mape": cal[0] if cal else None, "log_mean_wait": cal[1] if cal else None})
    means = real_means["mean_wait"].to_list()
    lo, hi, avg = min(means), max(means), sum(means) / len(means)
    for o in out:
        o["mean_ok"] = lo <= o["mean_wait"] <= hi or abs(o["mean_wait"] / avg - 1) <= 0.10
    return {"real_mean_waits": means, "real_mean": avg, "real_range": (lo, hi), "slack": slack, "replays": out}


def _s(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0f} s"


def table(by_workload: dict[str, dict], one_pool: dict[str, dict] | None = None) -> str:
    """The Validation table of docs/slurm-replay.md: one row per workload, the replays' worst and best figures
    (``one_pool``: the same figures of the one-pool EASY replay, for comparison)."""
    lines = ["| workload | real runs' mean wait | replays' mean wait | jobs inside the runs' window | "
             "Spearman (start order) | moving-average MAPE | one-pool EASY: mean wait, inside, Spearman |",
             "|---|---|---|---|---|---|---|"]
    for name, f in by_workload.items():
        reps = f["replays"]
        lo, hi = f["real_range"]

        def span(key, fmt):
            vals = [r[key] for r in reps if r[key] is not None]
            lo_s, hi_s = (fmt(min(vals)), fmt(max(vals))) if vals else ("n/a", "n/a")
            return lo_s if lo_s == hi_s else f"{lo_s}-{hi_s}"
        pool = "n/a"
        if one_pool and name in one_pool:
            p = one_pool[name]["replays"]
            pool = (f"{_s(min(r['mean_wait'] for r in p))}-{_s(max(r['mean_wait'] for r in p))}, "
                    f"{100 * min(r['inside'] for r in p):.0f}-{100 * max(r['inside'] for r in p):.0f}%, "
                    f"{min(r['spearman'] for r in p):.3f}-{max(r['spearman'] for r in p):.3f}")
        lines.append(f"| {name} ({len(f['real_mean_waits'])} runs, {reps[0]['jobs'] if reps else 0} jobs) | "
                     f"{_s(lo)}-{_s(hi)} (mean {_s(f['real_mean'])}) | {span('mean_wait', _s)} | "
                     f"{span('inside', lambda x: f'{100 * x:.0f}%')} (slack {f['slack']} s) | "
                     f"{span('spearman', lambda x: f'{x:.3f}')} | {span('mape', lambda x: f'{x:.1f}%')} | {pool} |")
    return "\n".join(lines)


def run_lab(wh, lab) -> tuple[dict[str, dict], dict[str, dict]]:
    """The replay lab's validation from its folder (tests/data/slurm-replay): every ``runs/<W>-r<N>/sacct.txt``
    ingested with the lab's slurm.conf, gres.conf and association dump, replayed by the Slurm model and by the
    one-pool EASY replay, and read against the other runs of its workload. Returns the figures of both, by
    workload."""
    from pathlib import Path

    from ...ingest.load import ingest
    from .. import make_config, simulate

    lab = Path(lab)
    by_workload: dict[str, list[str]] = {}
    with_qos: set[str] = set()
    for dump in sorted(lab.glob("runs/*/sacct.txt")):
        name = dump.parent.name  # W1-r2
        opts = lab_options(lab, dump.parent)
        ingest([dump], wh, name=name.lower(), options=opts)
        if opts.qos:
            with_qos.add(name.split("-")[0])
        by_workload.setdefault(name.split("-")[0], []).append(name.lower())
    cluster = read_lab_cluster(lab)
    slack = cluster.scheduler.sched_interval + cluster.scheduler.bf_interval
    out = ({}, {})
    preempt = {}
    for w, traces in by_workload.items():
        if w in with_qos:
            preempt[w] = preemptions(wh, traces)
        for k, cfg in enumerate((make_config(scheduler="slurm"), make_config(backfill="easy"))):
            runs = [simulate(wh, t, cfg).run_id for t in traces]
            con = wh.reader()
            try:
                out[k][w] = figures(con, traces, runs, slack)
            finally:
                con.close()
        if w in preempt:
            out[0][w]["preemption"] = preempt[w]
    return out


def preemptions(wh, traces: list[str]) -> dict:
    """The jobs each real run preempted (a PREEMPTED attempt, job_attempts, or a PREEMPTED end) and the jobs
    each one's Slurm replay preempted, by name; how many of them a replay shares with its own log, and how
    many two real runs share (the oracle's own spread)."""
    import itertools

    from . import replay
    from .. import _inputs, make_config, resolve_capacity, trace_info

    real, rep, times = {}, {}, {}
    con = wh.reader(attach_results=False)
    try:
        for t in traces:
            real[t] = {n for (n,) in con.execute(
                "SELECT j.job_name FROM job_attempts a JOIN jobs j USING (trace, job_id) WHERE a.trace = ? AND "
                "starts_with(a.state, 'PREEMPTED') UNION SELECT job_name FROM jobs WHERE trace = ? AND "
                "starts_with(state, 'PREEMPTED')", [t, t]).fetchall()}
            cfg = resolve_capacity(make_config(scheduler="slurm"), trace_info(con, t))
            inp = _inputs(con, t, cfg, 0.0, {})[0]
            out = replay.run(inp, inp.slurm)
            names = dict(con.execute("SELECT job_id, job_name FROM jobs WHERE trace = ?", [t]).fetchall())
            rep[t] = {names[int(j)] for j, c in zip(inp.job_id, out["preemptions"]) if c}
            times[t] = int(out["preemptions"].sum())
    finally:
        con.close()
    pairs = [len(real[a] & real[b]) for a, b in itertools.combinations(traces, 2)]
    return {"real": [len(real[t]) for t in traces], "replay": [len(rep[t]) for t in traces],
            "replay_times": [times[t] for t in traces], "shared": [len(real[t] & rep[t]) for t in traces],
            "real_pairs": pairs}


def preemption_lines(by_workload: dict[str, dict]) -> str:
    """One generated line per workload with QOS preemption: the jobs preempted, real and replayed."""
    def span(v):
        return f"{min(v)}" if min(v) == max(v) else f"{min(v)}-{max(v)}"
    lines = []
    for name, f in by_workload.items():
        p = f.get("preemption")
        if p:
            lines.append(f"- {name}, QOS preemption: each real run preempted {span(p['real'])} jobs, each replay "
                         f"{span(p['replay'])} ({span(p['replay_times'])} preemptions); a replay and its own log "
                         f"name {span(p['shared'])} of the same jobs, two real runs {span(p['real_pairs'])}")
    return "\n".join(lines)


def lab_options(lab, run):
    """How the lab's run folder is ingested: its configuration (a run with its QOS dump, ``qos.txt``, ran with
    QOS preemption: slurm-preempt.conf; the others slurm.conf), gres.conf and the association dump."""
    from ...ingest.formats import IngestOptions

    qos = run / "qos.txt"
    conf = "slurm-preempt.conf" if qos.exists() else "slurm.conf"
    return IngestOptions(format="sacct", tz="UTC", slurm_conf=str(lab / conf), gres_conf=str(lab / "gres.conf"),
                         assoc=str(lab / "assoc.txt"), qos=str(qos) if qos.exists() else None)


def read_lab_cluster(lab):
    from ...ingest.slurm_cluster import read_cluster

    return read_cluster(lab / "slurm.conf", lab / "gres.conf", lab / "assoc.txt")


AIMS = (("mean_ok", "mean wait within the real runs' range or 10% of their mean", lambda r: r["mean_ok"]),
        ("inside", "at least 90% of jobs inside the runs' window", lambda r: r["inside"] >= 0.90),
        ("spearman", "Spearman's rho of the start order at least 0.95", lambda r: r["spearman"] >= 0.95),
        ("mape", "moving-average MAPE at most 7%", lambda r: r["mape"] is not None and r["mape"] <= 7.0))


def aims(by_workload: dict[str, dict]) -> str:
    """The validation aims (AIMS), per workload: how many of its replays meet each (generated from the figures)."""
    lines = []
    for _, words, ok in AIMS:
        parts = []
        for name, f in by_workload.items():
            met = sum(bool(ok(r)) for r in f["replays"])
            parts.append(f"{name} {met} of {len(f['replays'])}")
        lines.append(f"- {words}: {', '.join(parts)} replays")
    return "\n".join(lines)
