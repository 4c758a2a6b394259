"""Where the Slurm-shaped replay departs from the real runs of one lab workload, job by job.

    python bench/slurm_diagnose.py W3 [--twin] [--jobs] [--lab tests/data/slurm-replay]

Each run's dump is ingested (as bench/slurm_validation.py does), replayed (the kernel, ``--twin`` the naive
twin), and read against all the runs of its workload: per replay the share of jobs inside the runs' window
(widened by sched_interval + bf_interval), how many leave it early and late, by user, partition list and kind;
the replay's node choice against its own log's; the 7-minute moving-average MAPE (run_calibration's bins,
recomputed here). ``--jobs`` lists every job outside the window beside its own log.
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

LAB = Path(__file__).resolve().parent.parent / "tests/data/slurm-replay"


def real_runs(lab: Path, workload: str) -> dict[str, dict[str, dict]]:
    """Each run's jobs by name, read from its sacct.txt: submit/eligible/start (epoch s), nodes, priority, user,
    partition, the -p list, state."""
    from datetime import datetime, timezone

    def ts(s):
        return int(datetime.fromisoformat(s).replace(tzinfo=timezone.utc).timestamp())

    out = {}
    for dump in sorted(lab.glob(f"runs/{workload}-r*/sacct.txt")):
        lines = dump.read_text().splitlines()
        head = lines[0].split("|")
        jobs = {}
        for line in lines[1:]:
            row = dict(zip(head, line.split("|")))
            if "." in row["JobID"] or not row["JobName"]:
                continue
            sub = row["SubmitLine"]
            plist = sub.split(" -p ")[1].split()[0] if " -p " in sub else row["Partition"]
            rec = {"user": row["User"], "part": row["Partition"], "plist": plist, "submit": ts(row["Submit"]),
                   "elig": ts(row["Eligible"]), "start": ts(row["Start"]) if row["Start"] != "Unknown" else None,
                   "nodes": row["NodeList"], "prio": int(row["Priority"] or 0), "state": row["State"],
                   "ncpus": int(row["NCPUS"] or 0), "kind": row["JobName"].split("_")[-1]}
            jobs[row["JobName"]] = rec  # (--duplicates: the last attempt wins)
        t0 = min(j["submit"] for j in jobs.values())
        for j in jobs.values():
            j["off"] = j["start"] - t0
            j["sub_off"] = j["submit"] - t0
        out[dump.parent.name] = jobs
    return out


def replays(lab: Path, workload: str, twin, wh_dir: str) -> dict[str, dict[str, dict]]:
    """Each run's replay: per job name its start offset, nodes and wait (from its release)."""
    from pipeline.ingest.load import ingest
    from pipeline.simulate import _inputs, make_config, resolve_capacity, trace_info
    from pipeline.simulate.slurm.validate import lab_options
    from pipeline.warehouse import Warehouse

    wh = Warehouse(wh_dir)
    out = {}
    for dump in sorted(lab.glob(f"runs/{workload}-r*/sacct.txt")):
        name = dump.parent.name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ingest([dump], wh, name=name.lower(), options=lab_options(lab, dump.parent))
        con = wh.reader(attach_results=False)
        try:
            cfg = resolve_capacity(make_config(scheduler="slurm"), trace_info(con, name.lower()))
            inp = _inputs(con, name.lower(), cfg, 0.0, {})[0]
            names = dict(con.execute("SELECT job_id, job_name FROM jobs WHERE trace = ?", [name.lower()]).fetchall())
        finally:
            con.close()
        start, alloc, release, nn = run_one(inp, inp.slurm, twin)
        sl = inp.slurm
        off = np.concatenate([[0], np.cumsum(nn)])
        node_names = sl.cluster.node_names if hasattr(sl.cluster, "node_names") else [f"node{k + 1}" for k in
                                                                                        range(len(sl.cluster.node_units))]
        t0 = int(inp.submit.min())
        jobs = {}
        for i, jid in enumerate(inp.job_id):
            ks = [node_names[k] for k in alloc[off[i]:off[i + 1]]] if len(alloc) == off[-1] else ["?"]
            jobs[names[int(jid)]] = {"off": int(start[i]) - t0, "nodes": ",".join(ks),
                                     "wait": int(start[i]) - int(release[i]), "sub_off": int(inp.submit[i]) - t0}
        out[name] = jobs
    return out


def run_one(inp, sl, twin):
    """(start, alloc, release, each job's node count as it ran) of the kernel or the twin (``twin``) on one
    trace's inputs (replay.run's call)."""
    from pipeline.simulate.slurm.replay import ran_shapes
    c, a = sl.cluster, sl.arrays
    w, sch = c.priority, c.scheduler
    limit = np.maximum(inp.est_run, 1).astype(np.int64)
    parent, shares, is_user = sl.assoc
    elig = inp.submit.astype(np.int64)
    if "first_release" in a:
        elig = np.where(a["first_release"] >= 0, np.minimum(a["first_release"], elig), elig)
    args = (c.node_units, c.node_tpu, c.node_mem if c.mem_consumable else np.zeros_like(c.node_mem), c.node_gpus,
            c.part_nodes, c.part_tier, parent, shares, is_user,
            elig, inp.run.astype(np.int64), limit, a["rpart"], a["nn"], a["cpn"], a["mem"],
            a["gpn"], a["excl"], a["assoc"], a["rbase"], a["rjob"], a["juser"],
            float(w.w_age), int(max(w.max_age, 1)), float(w.w_fairshare), int(max(w.calc_period, 1)),
            int(w.half_life), bool(c.fair_tree), int(max(sch.sched_interval, 1)), int(max(sch.queue_depth, 1)),
            int(sch.bf_interval), int(sch.bf_window), int(max(sch.bf_max_job_test, 1)),
            int(max(sch.bf_resolution, 1)), int(sch.kill_wait), int(sch.bf_max_job_user))
    pre = (a["jq"], a["q_pre"], a["q_mode"], a["q_rank"], a["q_level"], int(a["requeue_delay"]))
    more = ({"shapes": [a[k] for k in ("xjob", "xnn", "xcpn", "xmem", "xgpn")]} if len(a.get("xjob", ())) else {})
    if twin:
        import sys
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from naive_slurm import slurm_replay as naive

        jq, q_pre, q_mode, q_rank, q_level, rd = pre
        start, _bf, _prio, alloc, _npre, _cut, release, *shape = naive(
            *[x.tolist() if isinstance(x, np.ndarray) else x for x in args], jq=jq.tolist(), q_pre=q_pre.tolist(),
            q_mode=q_mode.tolist(), q_rank=q_rank.tolist(), q_level=q_level.tolist(), requeue_delay=rd,
            **{k: [x.tolist() for x in v] for k, v in more.items()})
        return (np.array(start), np.array(alloc), np.array(release),
                ran_shapes(a, [np.array(x) for x in shape])["nn"])
    from pipeline.simulate.slurm._kernel import slurm_replay

    start, _bf, _prio, alloc, _npre, _cut, release, *shape = slurm_replay(*args, *pre[:5], np.int64(pre[5]), **more)
    return start, alloc, release, ran_shapes(a, shape)["nn"]


def mape(real: dict[str, dict], rep: dict[str, dict]) -> float:
    """run_calibration's 7-minute moving-average MAPE: 60 s bins of submission (the clock's minutes), each bin's
    moving mean over it and the 6 before."""
    bins: dict[int, list[float]] = {}
    for name, r in real.items():
        if name not in rep:
            continue
        b = (r["submit"]) // 60
        lw = r["start"] - r["elig"]
        x = bins.setdefault(b, [0, 0.0, 0.0])
        x[0] += 1
        x[1] += lw
        x[2] += rep[name]["wait"]
    errs = []
    for b in sorted(bins):
        win = [bins[c] for c in bins if b - 6 <= c <= b]
        n = sum(x[0] for x in win)
        lm, rm = sum(x[1] for x in win) / n, sum(x[2] for x in win) / n
        if lm > 0:
            errs.append(abs(rm - lm) / lm)
    return 100 * sum(errs) / len(errs)


def bins(real: dict[str, dict], rep: dict[str, dict]) -> str:
    """Per 60 s bin of submission: its jobs, the logged/replayed mean wait, and the moving (7-bin) means."""
    per: dict[int, list] = {}
    for name, r in real.items():
        if name in rep:
            x = per.setdefault(r["submit"] // 60, [0, 0, 0])
            x[0] += 1
            x[1] += r["start"] - r["elig"]
            x[2] += rep[name]["wait"]
    out = []
    for b in sorted(per):
        win = [per[c] for c in per if b - 6 <= c <= b]
        k = sum(x[0] for x in win)
        out.append(f"{per[b][0]} jobs {per[b][1] / per[b][0]:.0f}/{per[b][2] / per[b][0]:.0f} s, moving "
                   f"{sum(x[1] for x in win) / k:.0f}/{sum(x[2] for x in win) / k:.0f} s")
    return " | ".join(out)


def spearman(a, b) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


def report(workload: str, real: dict, rep: dict, slack: int, list_jobs: bool, show_bins: bool = False) -> dict:
    names = sorted(set.intersection(*[set(r) for r in real.values()]))
    lo = {n: min(real[r][n]["off"] for r in real) for n in names}
    hi = {n: max(real[r][n]["off"] for r in real) for n in names}
    mean = {n: sum(real[r][n]["off"] for r in real) / len(real) for n in names}
    summary = []
    for run, jobs in rep.items():
        own = real[run]
        early, late = [], []
        for n in names:
            s = jobs[n]["off"]
            if s < lo[n] - slack:
                early.append(n)
            elif s > hi[n] + slack:
                late.append(n)
        inside = 1 - (len(early) + len(late)) / len(names)
        rho = spearman([jobs[n]["off"] for n in names], [mean[n] for n in names])
        same_nodes = sum(jobs[n]["nodes"] == own[n]["nodes"] for n in names) / len(names)
        mw = np.mean([jobs[n]["wait"] for n in names])
        lw = np.mean([own[n]["start"] - own[n]["elig"] for n in names])
        m = mape(own, jobs)
        summary.append((run, inside, rho, m, mw, lw, len(early), len(late), same_nodes))
        print(f"{run}: inside {100 * inside:.0f}% (early {len(early)}, late {len(late)}), Spearman {rho:.3f}, "
              f"MAPE {m:.1f}%, mean wait {mw:.0f} s (its log {lw:.0f} s), same nodes as its log {100 * same_nodes:.0f}%")
        if show_bins:
            print(f"    bins (logged/replayed): {bins(own, jobs)}")
        q = [0.5, 0.75, 0.9, 0.95, 1.0]
        print(f"    start offsets at {q}: log {[int(np.quantile([own[n]['off'] for n in names], x)) for x in q]}, "
              f"replay {[int(np.quantile([jobs[n]['off'] for n in names], x)) for x in q]}")
        out = early + late
        for label, key in (("user", "user"), ("partition list", "plist"), ("kind", "kind")):
            c_out = Counter(own[n][key] for n in out)
            c_all = Counter(own[n][key] for n in names)
            print(f"    outside by {label}: " + ", ".join(f"{k} {c_out.get(k, 0)}/{v}" for k, v in sorted(c_all.items())))
        if list_jobs:
            for n in sorted(out, key=lambda n: own[n]["sub_off"]):
                r = own[n]
                print(f"    {n:16s} {r['user']} {r['plist']:12s} sub {r['sub_off']:4d} window {lo[n]:4d}-{hi[n]:4d} "
                      f"log {r['off']:4d} {r['nodes']:12s} replay {jobs[n]['off']:4d} {jobs[n]['nodes']:12s} "
                      f"{'EARLY' if n in early else 'LATE'} {jobs[n]['off'] - (lo[n] if n in early else hi[n]):+d}")
    return {"summary": summary}


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("workload", nargs="+")
    ap.add_argument("--lab", default=str(LAB))
    ap.add_argument("--twin", action="store_true")
    ap.add_argument("--jobs", action="store_true")
    ap.add_argument("--bins", action="store_true", help="the moving-average MAPE's bins")
    args = ap.parse_args()
    lab = Path(args.lab)
    for w in args.workload:
        with tempfile.TemporaryDirectory() as d:
            real = real_runs(lab, w)
            rep = replays(lab, w, args.twin, d)
        print(f"== {w}")
        report(w, real, rep, 7, args.jobs, args.bins)
