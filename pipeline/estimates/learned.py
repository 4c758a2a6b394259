"""The ``learned`` scheme: gradient-boosted trees (LightGBM) trained walk-forward.

Every job j is predicted by a model trained only on jobs in its history
(docs/estimates.md "History": end known, ``end_k <= P`` and ``submit_k < P``)
at the start ``P`` of j's retraining period: periods are ``retrain`` seconds
long from the trace start (``P = floor(submit_j / retrain) * retrain``), and
a period's model sees the last ``window`` jobs (by end, submit, job_id) that
completed by ``P``. Features are computed from the log alone and from each
job's own history (no job submitted at or after it, no job still running at
its submission, changes them): see :data:`FEATURES` and docs/estimates.md.

The label is ``log(1 + run)``. ``loss=quantile``: LightGBM's quantile (pinball)
loss at ``q``. ``loss=eloss``: squared error in log space with underestimates
weighted ``under`` times more (E-Loss idea, Gaussier et al. 2015):
``L = w (p - y)^2``, ``w = under`` when ``p < y``, else 1. The estimate is
``exp(p) - 1`` capped at the request; with fewer than :data:`MIN_TRAIN`
training jobs (the first period), the request.

Why LightGBM and not a hand-written learner: quantile and custom objectives,
native categoricals and a deterministic mode, in a small wheel. The feature
frame is built in Polars (whole-frame window expressions, as
pipeline/estimates/history.py); tests/naive_learned.py states the same
features job by job in plain Python.
"""

from __future__ import annotations

import os

# LightGBM's OpenMP threads spin while they wait by default: on a shared,
# loaded machine two spinning threads made one 8,000-job training 25x slower
# (18 s instead of 0.7 s). Passive waiting, unless the user chose otherwise;
# set before lightgbm (and libgomp) is first loaded.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from .history import by_submit, event_time_end, sort_events  # noqa: E402

# Categorical features: the name column of the log and the id column it falls
# back to when a frame has no names (the SWF id as text is the same thing).
CATEGORICAL = {"user": "user_id", "account": "group_id", "partition": "partition_id",
               "qos": "queue_id", "job_name": "exe_id"}
LAST_K = 3
NUMERIC = ("req", "procs", "nodes", "gpus", "hour", "weekday",
           *(f"last_run_{i}" for i in range(1, LAST_K + 1)),
           *(f"last_ratio_{i}" for i in range(1, LAST_K + 1)),
           "running", "since_last",
           # Gaussier et al. 2015's user features: the mean runtime of the user's history, the job's
           # processors over the user's mean, and the processors of the user's jobs running at submission
           "user_mean_run", "procs_ratio", "running_procs")
FEATURES = (*CATEGORICAL, *NUMERIC)
MIN_TRAIN = 50  # fewer completed jobs than this: no model, the request
BAND = (0.1, 0.9)  # the quantile band of `walltime predict`


def lgb_params(objective, trees: int) -> dict:
    """LightGBM settings shared by the walk-forward and the exported model:
    deterministic on 2 threads, so two runs on the same rows agree exactly."""
    return {"objective": objective, "num_iterations": trees, "learning_rate": 0.1, "num_leaves": 31,
            "min_data_in_leaf": 20, "max_bin": 63, "num_threads": 2, "deterministic": True,
            "force_col_wise": True, "seed": 0, "verbose": -1, "max_cat_to_onehot": 4,
            "cat_smooth": 10.0, "min_data_per_group": 20}


def _names(jobs: pl.DataFrame) -> list[pl.Expr]:
    out = []
    for name, idc in CATEGORICAL.items():
        if name in jobs.columns:
            out.append(pl.col(name).cast(pl.Utf8).alias(f"_n_{name}"))
        elif idc in jobs.columns:
            out.append(pl.col(idc).cast(pl.Utf8).alias(f"_n_{name}"))
        else:
            out.append(pl.lit(None, pl.Utf8).alias(f"_n_{name}"))
    return out


def _col(jobs: pl.DataFrame, name: str) -> pl.Expr:
    return pl.col(name).cast(pl.Float64) if name in jobs.columns else pl.lit(None, pl.Float64)


# Users' jobs per pass of the history features (each user's history is independent of the others'):
# the event frames of one pass, not of the whole log, are held at once (at 11M jobs the
# whole-log frames made learned's peak, 11.1 GB)
GROUP_JOBS = 1 << 18
# the features :func:`_history` computes per user, in order (each a column of the matrix)
_HISTORY = (*(f"last_run_{i}" for i in range(1, LAST_K + 1)), *(f"last_ratio_{i}" for i in range(1, LAST_K + 1)),
            "running", "since_last", "user_mean_run", "procs_ratio", "running_procs")


def features(jobs: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, list[str]]]:
    """(frame, vocab): one row per job of ``jobs`` in input order with job_id,
    submit, run, req, end and every feature of :data:`FEATURES` (categoricals
    as codes 0, 1, ... in order of first appearance by (submit, job_id); the
    names of each code in ``vocab``)."""
    frame, x, vocab = features_matrix(jobs)
    cols = [pl.Series(f, x[:, i], nan_to_null=True) for i, f in enumerate(FEATURES)]
    del x
    frame = frame.with_columns(cols)
    del cols
    return frame.select("job_id", "submit", "run", "req_s", "end", *CATEGORICAL, "req", *NUMERIC[1:]), vocab


def features_matrix(jobs: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray, dict[str, list[str]]]:
    """(frame, x, vocab): ``frame`` job_id, submit, run, req_s (the request), end of every job in input
    order; ``x`` the :data:`FEATURES` of those jobs as :func:`matrix` makes them from :func:`features`'
    frame (float64, NaN = missing, column-major); ``vocab`` as :func:`features`.

    Built without the whole-log frame of features: the history features per group of users
    (:data:`GROUP_JOBS` jobs a pass), each pass's results written into ``x`` by row."""
    n = jobs.height
    x = np.full((n, len(FEATURES)), np.nan, order="F")
    col = {f: i for i, f in enumerate(FEATURES)}
    t = "submit_epoch" if "submit_epoch" in jobs.columns else None
    clock = (pl.coalesce(pl.col(t), pl.col("submit")) if t else pl.col("submit"))
    tz = local_zone(jobs)
    if tz is None:  # no zone: UTC
        hour, weekday = (clock // 3600) % 24, (clock // 86400 + 3) % 7  # Monday = 0 (1970-01-01: Thursday)
    else:  # the trace's own zone (traces.tz): the users' working day
        local = pl.from_epoch(clock, time_unit="s").dt.replace_time_zone("UTC").dt.convert_time_zone(tz)
        hour, weekday = local.dt.hour(), local.dt.weekday() - 1
    for name, e in (("req", _col(jobs, "req")), ("procs", _col(jobs, "procs")), ("nodes", _col(jobs, "nodes")),
                    ("gpus", _col(jobs, "gpus")), ("hour", hour.cast(pl.Float64)),
                    ("weekday", weekday.cast(pl.Float64))):
        x[:, col[name]] = _floats(jobs.select(e).to_series())
    # categorical codes in order of first appearance by (submit, job_id): a name's first position in
    # that order (the rank of its earliest job), without sorting the log's columns
    pos = np.empty(n, np.int64)
    pos[jobs.select(pl.arg_sort_by("submit", "job_id")).to_series().to_numpy()] = np.arange(n)
    pos = pl.Series("_pos", pos)
    vocab = {}
    for name, e in zip(CATEGORICAL, _names(jobs)):
        names = jobs.select(e.alias("_n")).to_series()
        first = (pl.DataFrame([names, pos]).drop_nulls("_n").group_by("_n").agg(pl.col("_pos").min())
                 .sort("_pos")["_n"].to_list())
        vocab[name] = first
        codes = names.replace_strict(first, list(range(len(first))), default=None, return_dtype=pl.Float64)
        del names
        x[:, col[name]] = _floats(codes)
        if name == "user":
            user = codes.cast(pl.Int32)  # the user by its code (a bijection with the name, nulls alike)
        del codes
    del pos
    # users in groups of about GROUP_JOBS jobs (a user's jobs all in one group, users by code), each
    # group's rows gathered when its pass runs: a whole-log frame of these columns, held beside x and
    # joined to the groups, was the features' peak (24M jobs: about 1.3 GB, twice during the join)
    ucode = user.fill_null(-1).to_numpy()
    del user
    group_of_user = np.append(np.cumsum(np.bincount(ucode[ucode >= 0])) // GROUP_JOBS, -1)  # [-1]: no user
    of_group = indices_by_value(group_of_user[ucode])
    cols = jobs.select("job_id", "submit", "run", "req", "end", _col(jobs, "procs").alias("procs")
                       if "procs" not in jobs.columns else "procs")  # (columns referenced, not copied)
    hist = [col[f] for f in _HISTORY]
    for g in sorted(k for k in of_group if k >= 0):
        rows = of_group.pop(g)  # ascending: the log's order within the group
        part = cols[rows].select(pl.Series("_row", rows, pl.UInt32), pl.Series("_u", ucode[rows], pl.Int32),
                                 "job_id", "submit", "run", "req", "end", pl.col("procs").cast(pl.Float64))
        del rows
        out = _history(part)
        del part
        rows = out["_row"].to_numpy()
        for f, c in zip(_HISTORY, hist):
            x[rows, c] = _floats(out[f])
        del out, rows
    return jobs.select("job_id", "submit", "run", pl.col("req").alias("req_s"), "end"), x, vocab


def _floats(s: pl.Series) -> np.ndarray:
    """A column as float64 with NaN for null (as :func:`matrix`)."""
    return s.cast(pl.Float64).fill_null(np.nan).to_numpy()


def _history(known: pl.DataFrame) -> pl.DataFrame:
    """The :data:`_HISTORY` features of the jobs of ``known`` (``_row``, the user code ``_u``, job_id, submit,
    run, req, end, procs: the jobs of a set of users, their whole logs), from the users' own histories;
    one row per job (``_row``), any order. The events of every user in one frame sorted by one packed key
    (history.sort_events); each job's values read from it by position (no joins)."""
    done = pl.col("end").is_not_null() & pl.col("run").is_not_null()
    # last k history jobs of the user (order: end, submit, job_id), as history.last_n
    ends = known.filter(done).select(
        pl.col("_u").cast(pl.Int64), event_time_end().alias("t"), pl.lit(0, pl.Int8).alias("kind"),
        pl.col("submit").alias("s"), pl.col("job_id").alias("src"), pl.col("run").cast(pl.Float64).alias("v_run"),
        (pl.col("run") / pl.col("req")).cast(pl.Float64).alias("v_ratio"), pl.col("end").alias("v_end"),
        pl.col("procs").alias("v_procs"), pl.lit(None, pl.UInt32).alias("_row"))
    ends = by_submit(ends)  # ends at equal times by (submit, job_id), kept below
    subs = known.select(
        pl.col("_u").cast(pl.Int64), (pl.col("submit") * 2).alias("t"), pl.lit(1, pl.Int8).alias("kind"),
        pl.col("submit").alias("s"), pl.lit(None, pl.Int64).alias("src"), pl.lit(None, pl.Float64).alias("v_run"),
        pl.lit(None, pl.Float64).alias("v_ratio"), pl.lit(None, pl.Int64).alias("v_end"),
        pl.col("procs").alias("v_procs"), "_row")  # a submission's v_procs: its own size (procs_ratio)
    ev = sort_events(pl.concat([ends, subs]).drop("src"), "_u")
    del ends, subs
    end_ev = pl.col("kind") == 0
    # running sums over the user's history (integers held exactly in float64: order does not matter)
    ev = ev.with_columns(end_ev.cast(pl.Int64).cum_sum().over("_u").alias("seen"),
                         (end_ev.cast(pl.Int64).cum_sum() - 1).alias("_last"),  # the latest end event, any user
                         pl.col("v_run").fill_null(0.0).cum_sum().over("_u").alias("_sum_run"),
                         pl.when(end_ev).then(pl.col("v_procs")).fill_null(0.0).cum_sum().over("_u")
                         .alias("_sum_procs"),
                         (end_ev & pl.col("v_procs").is_not_null()).cast(pl.Int64).cum_sum().over("_u")
                         .alias("_n_procs"))
    # each end event's last k (itself and the user's k - 1 before it): the shift within the user
    same = [pl.col("_u").shift(i) == pl.col("_u") for i in range(LAST_K)]
    lasts = ev.filter(end_ev).select(
        pl.col("v_end").alias("last_end"),
        *(pl.when(same[i]).then(pl.col("v_run").shift(i)).alias(f"last_run_{i + 1}") for i in range(LAST_K)),
        *(pl.when(same[i]).then(pl.col("v_ratio").shift(i)).alias(f"last_ratio_{i + 1}") for i in range(LAST_K)))
    subs = ev.filter(~end_ev)
    del ev
    at = pl.when(pl.col("seen") > 0).then(pl.col("_last"))  # the user's latest end event, if any
    out = subs.select(
        "_row", pl.col("s").alias("submit"), pl.col("v_procs").alias("procs"),
        pl.when(pl.col("seen") > 0).then(pl.col("_sum_run") / pl.col("seen")).alias("user_mean_run"),
        pl.when(pl.col("_sum_procs") > 0).then(pl.col("_sum_procs") / pl.col("_n_procs")).alias("_mean_procs"),
        *(pl.lit(lasts[c]).gather(at).alias(c) for c in lasts.columns))
    del subs, lasts
    # the user's jobs running at the submission: started (2*start, +1 when it
    # started the instant it was submitted) and not ended, submitted before
    start = pl.col("end") - pl.col("run")
    procs = pl.col("procs").fill_null(0.0)  # a running job of unknown size adds none
    started = known.filter(done).select(
        pl.col("_u").cast(pl.Int64), (start * 2 + (start == pl.col("submit")).cast(pl.Int64)).alias("t"),
        pl.lit(0, pl.Int8).alias("kind"), pl.lit(1, pl.Int64).alias("d"), procs.alias("dp"),
        pl.lit(None, pl.UInt32).alias("_row"))
    ended = known.filter(done).select(
        pl.col("_u").cast(pl.Int64), event_time_end().alias("t"), pl.lit(0, pl.Int8).alias("kind"),
        pl.lit(-1, pl.Int64).alias("d"), (-procs).alias("dp"), pl.lit(None, pl.UInt32).alias("_row"))
    asked = known.select(pl.col("_u").cast(pl.Int64), (pl.col("submit") * 2).alias("t"), pl.lit(1, pl.Int8).alias("kind"),
                         pl.lit(0, pl.Int64).alias("d"), pl.lit(0.0).alias("dp"), "_row")
    run_ev = sort_events(pl.concat([started, ended, asked]), "_u")
    del started, ended, asked
    running = run_ev.with_columns(pl.col("d").cum_sum().over("_u").alias("running"),
                                  pl.col("dp").cum_sum().over("_u").alias("running_procs")).filter(
        pl.col("kind") == 1).select("_row", pl.col("running").cast(pl.Float64), "running_procs")
    del run_ev
    # the submissions in the same order in both frames (both stable sorts of known's rows by user and
    # submit): side by side, no join (a join only if not)
    same_rows = running.height == out.height and (running["_row"] == out["_row"]).all()
    out = (out.hstack(running.drop("_row").get_columns()) if same_rows
           else out.join(running, on="_row", how="left"))
    out = out.with_columns(
        (pl.col("submit") - pl.col("last_end")).cast(pl.Float64).alias("since_last"),
        (pl.col("procs") / pl.col("_mean_procs")).alias("procs_ratio"))
    return out.select("_row", *_HISTORY)


def local_zone(jobs: pl.DataFrame) -> str | None:
    """The trace's time zone (column ``tz``, sql/estimates_jobs.sql: traces.tz) when Polars knows it, else None."""
    if "tz" not in jobs.columns:
        return None
    zones = jobs["tz"].drop_nulls()
    if zones.is_empty():
        return None
    tz = str(zones[0])
    try:
        pl.Series([0]).cast(pl.Datetime("us", "UTC")).dt.convert_time_zone(tz)
    except Exception:  # noqa: BLE001 -- a zone name chrono-tz lacks: UTC, as before
        return None
    return tz


def matrix(frame: pl.DataFrame) -> np.ndarray:
    """The feature columns as one float64 matrix (NaN = missing), FEATURES order, column-major (as
    Polars' ``to_numpy`` makes it), filled a column at a time (not through a second frame)."""
    x = np.empty((frame.height, len(FEATURES)), order="F")
    for i, f in enumerate(FEATURES):
        x[:, i] = _floats(frame[f])
    return x


def eloss(under: float):
    """LightGBM custom objective: w (p - y)^2, w = under where p < y."""
    def objective(preds, data):
        y = data.get_label()
        w = np.where(preds < y, under, 1.0)
        return 2.0 * w * (preds - y), 2.0 * w
    return objective


def train(x: np.ndarray, run: np.ndarray, loss: str, q: float, under: float, trees: int, threads: int = 2):
    """One booster on the rows ``x`` with runtimes ``run`` (seconds); returns
    (booster, init) where a prediction is ``booster.predict(x) + init`` in log space.
    ``threads``: LightGBM's OpenMP threads for this one model (deterministic
    mode: the same trees for any count; tests/test_learned.py checks 1 against 2)."""
    import lightgbm as lgb
    y = np.log1p(np.asarray(run, dtype=np.float64))
    cats = list(range(len(CATEGORICAL)))
    if loss == "quantile":
        params, init = lgb_params("quantile", trees) | {"alpha": q}, 0.0
    else:
        init = float(np.median(y))
        params = lgb_params(eloss(under), trees)
    params["num_threads"] = threads
    data = lgb.Dataset(x, label=y, init_score=np.full(len(y), init) if init else None,
                       categorical_feature=cats, feature_name=list(FEATURES), free_raw_data=True,
                       params={"max_bin": 63, "verbose": -1, "min_data_in_leaf": 20,
                               "max_cat_to_onehot": 4, "min_data_per_group": 20, "num_threads": threads})
    return lgb.train(params, data), init


def workers() -> int:
    """Models trained at once (one OpenMP thread each): the cores, at most 2
    (the machine this is tuned on), or $WALLTIME_LEARNED_WORKERS."""
    env = os.environ.get("WALLTIME_LEARNED_WORKERS", "")
    return max(1, int(env)) if env.isdigit() else max(1, min(2, os.cpu_count() or 1))


def train_many(tasks: list) -> list:
    """``[(x, run, loss, q, under, trees), ...]`` (:func:`train`'s arguments)
    -> their (booster, init), in order, trained :func:`workers` at a time, one
    thread each.

    Why whole models side by side instead of LightGBM's own 2 threads per
    model: LightGBM splits each tree's histogram and split search into many
    short OpenMP regions that end in a barrier; on a shared 2-core machine one
    descheduled thread stalls them all (a 20,000-job model took 0.8 s wall on
    2 threads, 0.6 s on 1). Independent models need no barrier, and LightGBM's
    C calls release the GIL (ctypes), so Python threads suffice."""
    return _side_by_side(lambda t, threads: train(*t, threads=threads), tasks)


def _side_by_side(fn, items: list) -> list:
    """``[fn(item, threads), ...]`` in order, :func:`workers` at a time with one
    thread each (one call on all of them when there is one worker)."""
    n = workers()
    if n == 1 or len(items) < 2:
        return [fn(it, n) for it in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n) as ex:
        return list(ex.map(lambda it: fn(it, 1), items))


def train_rows(x: np.ndarray, run: np.ndarray, rows_of: list, loss: str, q: float, under: float,
               trees: int) -> list:
    """One model per index array of ``rows_of`` (rows of ``x`` / ``run``), as
    :func:`train_many` trains them; each model's rows are copied out only when
    it is trained (daily retraining: hundreds of 20,000-row copies otherwise)."""
    return _side_by_side(lambda r, threads: train(x[r], run[r], loss, q, under, trees, threads=threads), rows_of)


def training_rows(frame: pl.DataFrame) -> np.ndarray:
    """Indices (into ``frame``) of the jobs a model may learn from (end and
    run known), sorted by (end, submit, job_id): the order "last" follows."""
    done = frame.with_row_index("_i").filter(pl.col("end").is_not_null() & pl.col("run").is_not_null())
    return done.sort("end", "submit", "job_id")["_i"].to_numpy()


def indices_by_value(period: np.ndarray) -> dict:
    """period -> indices of its jobs (one sort instead of a scan per period)."""
    idx = np.argsort(period, kind="stable")
    keys, starts = np.unique(period[idx], return_index=True)
    return {int(k): idx[a:b] for k, a, b in zip(keys, starts, [*starts[1:], len(idx)])}


def fit(jobs: pl.DataFrame, q: float, loss: str, under: float, retrain: int, window: int, trees: int) -> tuple:
    """The walk-forward models: (frame, x, models, model_of, hist) with
    ``frame`` and ``x`` as :func:`features_matrix` makes them (job_id, submit,
    run, req_s, end; the features), ``models`` [(booster, init)], ``model_of``
    each job's model (index into models, -1: its period has none) and ``hist``
    its model's training jobs (frame order). The loop's learned scheme
    (``--history simulated``, pipeline/simulate/_learned.py) evaluates the
    same models."""
    frame, x, _ = features_matrix(jobs)
    key = (q, loss, under, retrain, window, trees, int(jobs.hash_rows().sum()), jobs.height, tuple(jobs.columns))
    if key not in _TRAINED:
        _TRAINED[key] = _train_walk_forward(frame, x, q, loss, under, retrain, window, trees)
        while len(_TRAINED) > 12:
            _TRAINED.pop(next(iter(_TRAINED)))
    models, model_of, hist = _TRAINED[key]
    return frame, x, models, model_of.copy(), hist.copy()


# Trained walk-forward models by (settings, jobs): the estimates stage and a replay that evaluates
# the same trees inside the loop (simulate/_learned.py) train them once per process. Daily
# retraining makes hundreds of models per trace; this halves `walltime evaluate`'s training.
_TRAINED: dict = {}


def _train_walk_forward(frame, x, q, loss, under, retrain, window, trees) -> tuple:
    """fit's models: (models, model_of, hist)."""
    submit = frame["submit"].to_numpy()
    run = frame["run"].to_numpy(allow_copy=True).astype(np.float64)
    order = training_rows(frame)
    ends = frame["end"].to_numpy()[order] if len(order) else np.zeros(0, dtype=np.int64)
    subs = submit[order]
    model_of = np.full(len(frame), -1, dtype=np.int64)
    hist = np.zeros(len(frame), dtype=np.int64)
    period = np.where(submit >= 0, submit // retrain, -1)
    # the schedule first (which rows each period's model learns from; a period
    # where nothing new completed reuses the previous model), then the models
    plan, last_key, rows_of = [], None, []
    for b in np.unique(period):
        if b <= 0:
            continue
        p = int(b) * retrain
        upto = int(np.searchsorted(ends, p, side="right"))
        rows = order[:upto][subs[:upto] < p][-window:].copy()  # (a view would keep the whole selection alive)
        if len(rows) < MIN_TRAIN:
            continue
        key = (len(rows), int(rows[-1]))
        if key != last_key:
            rows_of.append(rows)
            last_key = key
        plan.append((b, len(rows_of) - 1, len(rows)))
    del order, ends, subs
    mine_of = indices_by_value(period)
    del period
    for b, m, n in plan:
        mine = mine_of[b]
        model_of[mine] = m
        hist[mine] = n
    del mine_of  # (the schedule's arrays freed before the models train beside the matrix)
    models = train_rows(x, run, rows_of, loss, q, under, trees)
    return models, model_of, hist


def walk_forward(jobs: pl.DataFrame, q: float, loss: str, under: float, retrain: int, window: int,
                 trees: int) -> pl.DataFrame:
    """job_id, est, hist (training jobs of the model used) for every job, input order."""
    frame, x, models, model_of, hist = fit(jobs, q, loss, under, retrain, window, trees)
    pred = np.full(len(frame), np.nan)
    # each model's jobs (one sort, not a scan per model), predicted as train_many trains: models side by
    # side, one thread each (a row's prediction does not depend on the threads or the other rows)
    items = [(m, rows) for m, rows in indices_by_value(model_of).items() if m >= 0]

    def one(item, threads):
        m, rows = item
        booster, init = models[m]
        return booster.predict(x[rows], num_threads=threads) + init

    for (_, rows), p in zip(items, _side_by_side(one, items)):
        pred[rows] = p
    est = np.expm1(np.maximum(pred, 0.0))
    return frame.select("job_id", "req_s").with_columns(
        pl.Series("est", est).fill_nan(None), pl.Series("hist", hist)).select(
        "job_id",
        pl.when(pl.col("est").is_null()).then(pl.col("req_s").cast(pl.Float64))
        .when(pl.col("req_s").is_null()).then(pl.col("est"))
        .otherwise(pl.min_horizontal(pl.col("est"), pl.col("req_s").cast(pl.Float64))).alias("est"),
        "hist")


def learned_frame(jobs: pl.DataFrame, s) -> pl.DataFrame:
    return walk_forward(jobs, s["q"], s["loss"], s["under"], s["retrain"], s["window"], s["trees"])
