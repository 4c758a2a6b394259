"""Eagle-shaped and F-DATA-shaped job tables at any size (``walltime generate --shape eagle|fdata``).

Why: the largest public logs with requested times (NREL Eagle, 11M jobs;
Fugaku's F-DATA, about 24M) are too big to keep here, and the pipeline must
be measured at their size. These tables have the datasets'
columns and types, so ``walltime ingest --format table --preset eagle|fdata``
reads them as it reads the real files.

What is drawn (docs/generate.md, "Eagle- and F-DATA-shaped tables"):

- a population of users (``1.5 sqrt(jobs)``, 4 .. 3000, Zipf activity) with
  job *templates* (``1 + Poisson(2)`` each, gamma(0.7) popularity), as the
  SWF model (population.py);
- each template is one *row kind* of the shape's bank (partition, QOS,
  request, nodes, processors, GPUs, memory), chosen by systematic sampling
  over the templates' expected job shares, so that the share of jobs per row
  kind (per partition, per request) is the bank's;
- a job's run / request ratio R is the bank's empirical quantile at a
  uniform rank, the rank drawn from a Gaussian copula that ties a template's
  jobs together (correlation ``RHO``): R's distribution over the jobs is the
  bank's, and history-based estimators have something to learn;
- 90% of jobs ask for their template's request, the others for a request
  drawn from the bank; requests are only ever values of the bank;
- jobs come in repeat bursts; a quarter of the templates submit job arrays
  (a burst shares one job id and one submit second, as Eagle's array tasks);
  burst starts follow the SWF model's daily and weekly cycle in the site's
  zone; the span is ``work / (capacity * load)``;
- waits are drawn (Eagle: from the sample's waits; F-DATA: a stated model),
  not scheduled: the table is a log, not a replay.

Eagle's bank is the NREL Eagle sample (eagle_bank.py, written from it by
bench/eagle_bank.py). F-DATA publishes no sample rows here: its bank is a
stated model (FDATA_* below), of Fugaku's 48-core nodes.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from ..errors import WalltimeError
from .arrivals import burst_starts, unit_order_statistics
from .model import Model
from .options import check_end, unix_start_of

SHAPES = ("swf", "eagle", "fdata")
MAX_TABLE_JOBS = 50_000_000  # ~0.25 GB of columns per 1M jobs while generating
FORMATS = {"eagle": (".parquet", ".csv", ".csv.gz"), "fdata": (".parquet", ".csv", ".csv.gz")}

RHO = 0.9            # copula correlation of a template's jobs' ranks (0: independent jobs)
HABIT = 0.90         # jobs that ask for their template's request
ARRAY_SHARE = 0.25   # templates whose bursts are job arrays
BURST_MEAN_HI = 10.0  # mean jobs per burst: 1 + (HI - 1) U^2 per template
GAP_MEDIAN = 120.0   # seconds between the submissions of a burst that is not an array
OVERRUN_MAX = 60     # a job that reaches its request is killed within this many seconds past it
ACCOUNTS_PER_USER = 8 / 15  # the Eagle sample: 15 users, 8 accounts


@dataclass(frozen=True)
class Shape:
    name: str
    capacity: int     # processors (the replay's machine; ingest --capacity)
    tz: str
    start: str
    rows: list        # (partition, qos, req, nodes, procs, gpus, mem, count)
    ratios: np.ndarray  # sorted run / request
    waits: np.ndarray   # sorted waits (s), bootstrapped; None: the F-DATA wait model


# -- banks -----------------------------------------------------------------------

def bank_from_sample(path: str | os.PathLike) -> dict:
    """The Eagle bank from a file in the sample's columns: row kinds with
    counts (sorted by partition, request, size), every R sorted, every wait sorted."""
    df = pl.read_csv(path, try_parse_dates=True, infer_schema_length=None)
    kinds = (df.group_by(["partition", "qos", "wallclock_req", "nodes_req", "processors_req", "gpus_req", "mem_req"])
             .len().sort(["partition", "wallclock_req", "nodes_req", "processors_req", "gpus_req", "mem_req", "qos"]))
    rows = [(p, q, float(r), int(n), int(c), int(g), float(m), int(k)) for p, q, r, n, c, g, m, k in kinds.iter_rows()]
    ratios = sorted(round(float(x), 6) for x in (df["run_time"] / df["wallclock_req"]))
    waits = sorted(int(x) for x in (df["start_time"] - df["submit_time"]).dt.total_seconds())
    return {"rows": df.height, "ROWS": rows, "RATIOS": ratios, "WAITS": waits}


def eagle_shape() -> Shape:
    from . import eagle_bank as b

    return Shape("eagle", EAGLE_CAPACITY, "America/Denver", "2018-11-05", list(b.ROWS),
                 np.asarray(b.RATIOS, dtype=np.float64), np.asarray(b.WAITS, dtype=np.int64))


# Eagle (NREL): 2,618 nodes of 36 cores (NREL's description); the sample's processors_req count cores
EAGLE_CAPACITY = 2618 * 36
# Fugaku: 158,976 nodes of 48 cores (A64FX); F-DATA counts cores (cnum*) and nodes (nnum*)
FDATA_NODE_CORES = 48
FDATA_CAPACITY = 158_976 * FDATA_NODE_CORES
# our model of F-DATA's jobs (no sample rows are published here): nodes asked for, and their shares
FDATA_NODES = {1: 0.60, 2: 0.05, 4: 0.07, 8: 0.05, 12: 0.02, 16: 0.05, 32: 0.035, 48: 0.015, 64: 0.03,
               128: 0.025, 256: 0.02, 384: 0.008, 512: 0.012, 1024: 0.009, 2048: 0.005, 4096: 0.003,
               8192: 0.0015, 12288: 0.0007, 36864: 0.0003}
# the elapse limits asked for (s) and their shares
FDATA_ELPL = {600: 0.08, 1800: 0.12, 3600: 0.25, 7200: 0.12, 10800: 0.08, 21600: 0.08, 43200: 0.07,
              86400: 0.17, 259200: 0.03}
# R = duration / elpl: a mixture of failures at start, jobs at their limit and the rest
FDATA_R = {"at_start": 0.05, "at_limit": 0.06, "beta": (0.8, 2.0)}
FDATA_FAILED_OTHER = 0.06  # of the jobs neither at start nor at the limit, the share that fail
FDATA_WAIT = {"at_once": 0.35, "median_s": 600.0, "sigma": 2.2, "max_s": 14 * 86400}


def fdata_ratios() -> np.ndarray:
    """The F-DATA model's R quantiles (2,001 of them), from a fixed draw: the same for every seed."""
    rng = np.random.default_rng(20240601)
    n = 400_000
    k = rng.random(n)
    a, b = FDATA_R["beta"]
    r = np.where(k < FDATA_R["at_start"], rng.uniform(0.0, 0.005, n),
                 np.where(k < FDATA_R["at_start"] + FDATA_R["at_limit"], 1.0, rng.beta(a, b, n)))
    return np.quantile(r, np.linspace(0.0, 1.0, 2001))


def fdata_shape() -> Shape:
    rows = []
    for nodes, pn in FDATA_NODES.items():
        for req, pr in FDATA_ELPL.items():
            rows.append(("", "", float(req), nodes, nodes * FDATA_NODE_CORES, 0, 0.0, pn * pr))
    return Shape("fdata", FDATA_CAPACITY, "Asia/Tokyo", "2021-03-01", rows, fdata_ratios(), None)


def shape_of(name: str) -> Shape:
    if name == "eagle":
        return eagle_shape()
    if name == "fdata":
        return fdata_shape()
    raise WalltimeError(f'--shape: "{name}" is not one of {", ".join(SHAPES)}')


# -- the draw ----------------------------------------------------------------------

def _zipf(rng: np.random.Generator, n: int, s: float) -> np.ndarray:
    w = rng.permutation(1.0 / np.arange(1, n + 1) ** s)
    return w / w.sum()


def draw(shape: Shape, jobs: int, seed: int, capacity: int, load: float, start: str | dt.datetime,
         tz: str) -> tuple[dict, int]:
    """The jobs as NumPy columns (sorted by submit; times are Unix seconds) and the trace's start."""
    m = Model()
    unix_start = unix_start_of(start, tz)
    pop_rng, job_rng, time_rng = (np.random.default_rng(s) for s in np.random.SeedSequence([seed, 43]).spawn(3))

    # population: users, accounts, templates
    n_users = int(np.clip(round(m.users_per_sqrt_job * np.sqrt(jobs)), 4, 3000))
    n_accounts = max(1, int(round(n_users * ACCOUNTS_PER_USER)))
    user_w = _zipf(pop_rng, n_users, m.user_zipf)
    main_account = pop_rng.choice(n_accounts, n_users, p=_zipf(pop_rng, n_accounts, 0.8))
    per_user = np.minimum(1 + pop_rng.poisson(m.templates_mean - 1.0, n_users), m.templates_max)
    t_user = np.repeat(np.arange(n_users), per_user)
    nt = t_user.shape[0]
    tw = pop_rng.gamma(0.7, 1.0, nt) + 1e-9
    starts = np.concatenate(([0], np.cumsum(per_user)[:-1]))
    tw = tw / np.repeat(np.add.reduceat(tw, starts), per_user) * user_w[t_user]  # expected job share, sums to 1
    t_account = np.where(pop_rng.random(nt) < m.own_project_share, main_account[t_user],
                         pop_rng.integers(0, n_accounts, nt))
    # the template's row kind: systematic sampling over the templates' job shares, in random order
    kind_w = np.array([r[7] for r in shape.rows], dtype=np.float64)
    kind_cum = np.cumsum(kind_w) / kind_w.sum()
    order = pop_rng.permutation(nt)
    mid = np.cumsum(tw[order]) - tw[order] / 2
    t_kind = np.empty(nt, dtype=np.int64)
    t_kind[order] = np.minimum(np.searchsorted(kind_cum, mid, side="right"), len(shape.rows) - 1)
    t_z = pop_rng.normal(0.0, 1.0, nt)
    t_array = pop_rng.random(nt) < ARRAY_SHARE
    t_burst = 1.0 + (BURST_MEAN_HI - 1.0) * pop_rng.random(nt) ** 2
    t_gap_ln = np.log(GAP_MEDIAN) + pop_rng.normal(0.0, 1.0, nt)

    # bursts: a template with probability share / mean burst, so its expected jobs are its share
    p = tw / t_burst
    p /= p.sum()
    b_tmpl, b_size, total = [], [], 0
    while total < jobs:
        count = int((jobs - total) / float(np.sum(p * t_burst)) * 1.1) + 16
        tm = job_rng.choice(nt, count, p=p)
        sz = job_rng.geometric(1.0 / t_burst[tm])
        b_tmpl.append(tm)
        b_size.append(sz)
        total += int(sz.sum())
    b_tmpl, b_size = np.concatenate(b_tmpl), np.concatenate(b_size)
    ends = np.cumsum(b_size)
    keep = int(np.searchsorted(ends, jobs, side="left")) + 1
    b_tmpl, b_size = b_tmpl[:keep], b_size[:keep].copy()
    b_size[-1] -= int(ends[keep - 1]) - jobs
    burst = np.repeat(np.arange(keep, dtype=np.int64), b_size)
    tmpl = b_tmpl[burst]
    del ends

    # sizes, requests, R, runs
    kinds = len(shape.rows)
    k_req = np.array([r[2] for r in shape.rows], dtype=np.float64)
    kind = t_kind[tmpl]
    other = job_rng.random(jobs) >= HABIT
    kind_req = np.where(other, np.minimum(np.searchsorted(kind_cum, job_rng.random(jobs), side="right"), kinds - 1), kind)
    req = k_req[kind_req]
    x = RHO * t_z[tmpl] + np.sqrt(1.0 - RHO * RHO) * job_rng.normal(0.0, 1.0, jobs)
    rank = np.empty(jobs, dtype=np.float64)
    rank[np.argsort(x, kind="stable")] = (np.arange(jobs) + 0.5) / jobs
    del x
    q = shape.ratios
    r = np.interp(rank * (q.shape[0] - 1), np.arange(q.shape[0], dtype=np.float64), q)
    del rank
    run = np.maximum(np.rint(r * req), 1.0)
    limit = r >= 1.0
    run = np.where(limit, req + np.minimum(np.rint((r - 1.0) * req), OVERRUN_MAX), run)

    # waits
    if shape.waits is not None:
        wait = shape.waits[job_rng.integers(0, shape.waits.shape[0], jobs)]
    else:
        w = FDATA_WAIT
        wait = np.where(job_rng.random(jobs) < w["at_once"], job_rng.integers(0, 6, jobs),
                        np.minimum(np.rint(w["median_s"] * np.exp(w["sigma"] * job_rng.normal(0.0, 1.0, jobs))),
                                   w["max_s"]).astype(np.int64))

    # the span from the load, then the submit times
    k_procs = np.array([r[4] for r in shape.rows], dtype=np.float64)
    work = float(np.sum(k_procs[kind] * run))
    span = max(work / (capacity * load), 1.0)
    check_end(unix_start, int(span) + int(req.max()) + int(wait.max()) + OVERRUN_MAX + 86400)
    b_start = burst_starts(unit_order_statistics(time_rng, keep), span, unix_start, tz, m)
    first = np.concatenate(([0], np.cumsum(b_size)[:-1]))
    b_array = t_array[b_tmpl]
    gap = np.exp(t_gap_ln[tmpl] + time_rng.normal(0.0, 1.0, jobs))
    gap[first] = 0.0
    gap[b_array[burst]] = 0.0
    offs = np.cumsum(gap)
    offs -= np.repeat(offs[first], b_size)
    submit = unix_start + np.floor(b_start[burst] + offs).astype(np.int64)
    del gap, offs
    order = np.lexsort((np.arange(jobs), burst, submit))
    cols = {"submit": submit[order], "burst": burst[order], "tmpl": tmpl[order], "kind": kind[order],
            "req": req[order], "run": run[order], "limit": limit[order], "wait": wait[order],
            "array": b_array[burst][order]}
    cols["user"] = t_user[cols["tmpl"]]
    cols["account"] = t_account[cols["tmpl"]]
    new = np.ones(jobs, dtype=bool)
    new[1:] = ~(cols["array"][1:] & (cols["burst"][1:] == cols["burst"][:-1]))
    cols["job_id"] = np.cumsum(new)
    return cols, unix_start


# -- the tables ---------------------------------------------------------------------

def _local(unix: np.ndarray, tz: str) -> pl.Series:
    """Unix seconds -> naive local datetimes in ``tz`` (Eagle's times: Mountain time without a zone)."""
    return (pl.from_epoch(pl.Series(unix), time_unit="s").dt.replace_time_zone("UTC")
            .dt.convert_time_zone(tz).dt.replace_time_zone(None))


def _with_offset(unix: np.ndarray, tz: str) -> pl.Series:
    """Unix seconds -> F-DATA's time text: local time and its UTC offset as PostgreSQL prints a
    timestamptz ("2021-04-01 10:28:01+09"; "+05:30" where the offset is not whole hours)."""
    s = (pl.from_epoch(pl.Series(unix), time_unit="s").dt.replace_time_zone("UTC")
         .dt.convert_time_zone(tz).dt.strftime("%Y-%m-%d %H:%M:%S%:z"))
    return s.str.replace(r":00$", "")


def _names(prefix: str, idx: np.ndarray, width: int) -> pl.Series:
    """``prefix`` + the zero-padded number, gathered from the distinct values (fast at 24M rows)."""
    top = int(idx.max()) + 1 if idx.shape[0] else 1
    values = pl.Series([f"{prefix}{i:0{width}d}" for i in range(top)], dtype=pl.String)
    return values.gather(pl.Series(idx, dtype=pl.UInt32))


def eagle_frame(shape: Shape, cols: dict, tz: str) -> pl.DataFrame:
    """The Eagle dataset's 18 columns (the sample's names and types)."""
    k = shape.rows
    kind = pl.Series(cols["kind"], dtype=pl.UInt32)

    def by_kind(i: int, dtype) -> pl.Series:
        return pl.Series([r[i] for r in k], dtype=dtype).gather(kind)

    submit = cols["submit"]
    start = submit + cols["wait"]
    end = start + cols["run"].astype(np.int64)
    return pl.DataFrame({
        "job_id": pl.Series(cols["job_id"], dtype=pl.Int64),
        "user": _names("user", cols["user"] + 1, 4),
        "account": _names("account", cols["account"] + 1, 4),
        "partition": by_kind(0, pl.String), "qos": by_kind(1, pl.String),
        "wallclock_req": pl.Series(cols["req"], dtype=pl.Float64),
        "nodes_req": by_kind(3, pl.Int64), "processors_req": by_kind(4, pl.Int64),
        "gpus_req": by_kind(5, pl.Int64), "mem_req": by_kind(6, pl.Float64),
        "submit_time": _local(submit, tz), "start_time": _local(start, tz), "end_time": _local(end, tz),
        "run_time": pl.Series(cols["run"], dtype=pl.Float64),
        "state": pl.Series(np.where(cols["limit"], "TIMEOUT", "COMPLETED"), dtype=pl.String),
        "name": _names("name", cols["tmpl"] + 1, 8),
        "work_dir": _names("work_dir", cols["tmpl"] + 1, 8),
        "submit_line": _names("submit_line", cols["user"] + 1, 8),
    })


def fdata_frame(shape: Shape, cols: dict, tz: str, seed: int) -> pl.DataFrame:
    """The F-DATA columns the preset reads, with their published types (the 13 of
    docs/ingest.md's concatenation example; the other 32 are not written)."""
    kind = pl.Series(cols["kind"], dtype=pl.UInt32)
    nodes = pl.Series([r[3] for r in shape.rows], dtype=pl.Int64).gather(kind)
    procs = pl.Series([r[4] for r in shape.rows], dtype=pl.Int64).gather(kind)
    n = cols["submit"].shape[0]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 43, 2]))
    # Fugaku allocates whole nodes: a quarter of one-node jobs ask for fewer cores than they get
    fewer = (nodes.to_numpy() == 1) & (rng.random(n) < 0.25)
    cnumr = np.where(fewer, np.array([1, 4, 12, 24])[rng.integers(0, 4, n)], procs.to_numpy())
    failed = cols["limit"] | (cols["run"] <= 0.005 * cols["req"] + 1) | (rng.random(n) < FDATA_FAILED_OTHER)
    submit = cols["submit"]
    start = submit + cols["wait"]
    end = start + cols["run"].astype(np.int64)
    return pl.DataFrame({
        "jid": _names("jid_", cols["job_id"], 0),
        "usr": _names("usr_", cols["user"], 0),
        "jnam": _names("jnam_", cols["tmpl"], 0),
        "cnumr": pl.Series(cnumr, dtype=pl.Int64), "cnumat": procs,
        "nnumr": nodes, "nnuma": nodes,
        "adt": _with_offset(submit, tz), "sdt": _with_offset(start, tz), "edt": _with_offset(end, tz),
        "elpl": pl.Series(cols["req"], dtype=pl.Float64),
        "duration": pl.Series(cols["run"], dtype=pl.Float64),
        "exit state": pl.Series(np.where(failed, "failed", "completed"), dtype=pl.String),
    })


def _file_hash(path: Path) -> str:
    """BLAKE3 of the file's bytes, as ingest's content hash is computed ("blake3:" + hex; of a .gz
    file, the compressed bytes: ingest hashes what it decompresses)."""
    from ..ingest.reader import content_digest

    with open(path, "rb") as fh:
        import mmap

        if os.fstat(fh.fileno()).st_size == 0:
            return content_digest(b"")
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return content_digest(mm)


def check_table_options(shape: str, out: Path, jobs: int, seed: int, capacity: int, load: float) -> None:
    from .options import check_options

    if shape not in SHAPES or shape == "swf":
        raise WalltimeError(f'--shape: "{shape}" is not one of {", ".join(SHAPES)}')
    if not isinstance(jobs, (int, np.integer)) or not 0 < jobs <= MAX_TABLE_JOBS:
        raise WalltimeError(f"--jobs: must be a positive number of jobs, at most {MAX_TABLE_JOBS:,}, got {jobs}")
    check_options(1, seed, capacity, load)
    if not out.name.endswith(FORMATS[shape]):
        raise WalltimeError(f"--out {out}: --shape {shape} writes {', '.join(FORMATS[shape])}; "
                            f"name the file so, e.g. {shape}.parquet")


def generate_table_file(out: str | os.PathLike, shape: str, jobs: int, seed: int = 0, capacity: int | None = None,
                        load: float = 0.7, start: str | dt.datetime | None = None, tz: str | None = None) -> dict:
    """Generate and write an Eagle- or F-DATA-shaped table; return the summary ``--json`` prints.
    Raises WalltimeError (one line) for a bad option, before any work."""
    from ..checks import write_file
    from .swf_out import temp_beside

    out = Path(out)
    sh = shape_of(shape) if shape in SHAPES and shape != "swf" else None
    cap = capacity if capacity is not None else (sh.capacity if sh else 1)
    check_table_options(shape, out, jobs, seed, cap, load)
    tz = tz or sh.tz
    start = start or sh.start
    unix_start_of(start, tz)
    temp_beside(out).unlink()  # fail on an unwritable --out before the work
    t0 = time.perf_counter()
    cols, unix_start = draw(sh, jobs, seed, cap, load, start, tz)
    df = eagle_frame(sh, cols, tz) if shape == "eagle" else fdata_frame(sh, cols, tz, seed)
    t1 = time.perf_counter()

    def put(fh) -> None:
        if out.name.endswith(".parquet"):
            df.write_parquet(fh, compression="zstd", statistics=False, row_group_size=1 << 20)
        elif out.name.endswith(".gz"):
            import gzip

            with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=6) as gz:
                df.write_csv(gz, datetime_format="%Y-%m-%d %H:%M:%S")
        else:
            df.write_csv(fh, datetime_format="%Y-%m-%d %H:%M:%S")

    try:
        size = write_file(out, put, "--out")
    except OSError as e:
        raise WalltimeError(f"--out: cannot write {out}: {e.strerror or e}") from None
    t2 = time.perf_counter()
    procs = np.array([r[4] for r in sh.rows], dtype=np.float64)[cols["kind"]]
    span = int(cols["submit"][-1] - cols["submit"][0])
    offered = float(np.sum(procs * cols["run"])) / (cap * max(span, 1))
    r = cols["run"] / cols["req"]
    doc = {
        "path": str(out), "shape": shape, "jobs": jobs, "seed": seed, "capacity": cap, "load": load,
        "timezone": tz, "first_submit": dt.datetime.fromtimestamp(int(cols["submit"][0]), dt.timezone.utc).isoformat(),
        "span_s": span, "span_days": round(span / 86400, 3), "offered_load": round(offered, 6),
        "users": int(np.unique(cols["user"]).shape[0]),
        "accounts": int(np.unique(cols["account"]).shape[0]) if shape == "eagle" else None,
        "job_ids": int(cols["job_id"][-1]),
        "share_r_below_half": round(float(np.mean(r < 0.5)), 4),
        "at_limit": int(cols["limit"].sum()),
        "bytes": size,
        "file_hash": _file_hash(out),
        "timings": {"generate_s": round(t1 - t0, 3), "write_s": round(t2 - t1, 3)},
        "notes": [],
    }
    return doc
