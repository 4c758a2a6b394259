"""Human table headers, with units, for the report's view columns.

The page shows ``HEADERS[column]`` (and shares as percent); the CSV files and
the views keep the raw column names and full precision. A column missing here
is shown with its underscores as spaces.
"""

from __future__ import annotations

PCT = 100.0  # the column is a share 0-1, shown as percent

# column -> (header, scale)
HEADERS: dict[str, tuple[str, float]] = {
    "trace": ("trace", 1), "month": ("month", 1), "quarter": ("quarter", 1), "jobs": ("jobs", 1),
    "users": ("users", 1), "groups": ("groups", 1), "capacity": ("capacity (the size unit: processors, CPUs or nodes)", 1),
    "first_day": ("first day", 1), "last_day": ("last day", 1), "span_days": ("span (days)", 1),
    "rejected": ("rejected lines", 1), "core_hours": ("CPU-hours used (SWF: processor-hours)", 1),
    "node_hours": ("node-hours used (logs with node counts)", 1), "gpu_hours": ("GPU-hours used", 1),
    "size_hours": ("size-hours used (the replay's unit)", 1),
    "share_with_request": ("with a request (%)", PCT), "share_with_wait": ("with a wait (%)", PCT),
    "offered_load": ("offered load (ratio)", 1),
    # R (run / request)
    "jobs_r": ("jobs with R", 1), "mean_r": ("mean R", 1), "median_r": ("median R", 1), "std_r": ("sd of R", 1),
    "share_r_lt_0_2": ("R < 0.2 (%)", PCT), "share_r_lt_0_5": ("R < 0.5 (%)", PCT),
    "share_r_gt_0_8": ("R > 0.8 (%)", PCT), "share_r_ge_0_99": ("R >= 0.99, killed at the limit (%)", PCT),
    "lo": ("R from", 1), "hi": ("R to", 1), "share": ("share of jobs (%)", PCT), "bin": ("bin", 1),
    "x": ("x", 1), "share_le": ("share <= x (%)", PCT), "avg_std_r": ("mean sd of R within a key", 1),
    "label": ("row", 1), "number": ("jobs", 1), "pct": ("percent (%)", 1), "of": ("percent of", 1),
    "user_id": ("user", 1), "mae_request_h": ("error of the request (h)", 1),
    "mae_predictor_h": ("error of the predictor (h)", 1), "rank_by_request": ("rank", 1),
    # accuracy and shares of estimates
    "stat": ("statistic of R", 1), "key_type": ("key", 1), "scheme": ("scheme", 1), "estimate": ("estimate", 1),
    "single_user": ("user", 1), "single_project": ("project", 1), "double_key": ("user + project", 1),
    "triple_key": ("user + project + request", 1), "original": ("requests", 1),
    "p95": ("p95", 1), "p85": ("p85", 1), "p70": ("p70", 1),
    "acc_mean": ("mean accuracy", 1), "acc_median": ("median accuracy", 1), "acc": ("accuracy", 1),
    "under_rate": ("underestimated (%)", PCT), "scored": ("jobs scored", 1),
    "na": ("NA: request kept (%)", PCT), "oe": ("OE: over (%)", PCT), "ue": ("UE: under < 30 min (%)", PCT),
    "be": ("BE: under >= 30 min (%)", PCT), "above": ("above the request (%)", PCT),
    "acc_no_floor": ("accuracy, no floor", 1), "acc_floor_0_5": ("accuracy, floor 0.5", 1),
    "under_no_floor": ("underestimated, no floor (%)", PCT), "under_floor_0_5": ("underestimated, floor 0.5 (%)", PCT),
    "acc_30d": ("accuracy, 30 days", 1), "acc_90d": ("accuracy, 90 days", 1), "acc_365d": ("accuracy, 365 days", 1),
    "acc_all": ("accuracy, all history", 1), "under_30d": ("underestimated, 30 days (%)", PCT),
    "under_90d": ("underestimated, 90 days (%)", PCT), "under_365d": ("underestimated, 365 days (%)", PCT),
    "under_all": ("underestimated, all history (%)", PCT), "be_30d": ("BE, 30 days (%)", PCT),
    "be_all": ("BE, all history (%)", PCT),
    # scheduling
    "policy": ("queue order", 1), "backfill": ("backfilling", 1), "adjust": ("adjustment", 1),
    "wait": ("wait", 1), "slowdown": ("slowdown (requests = 10)", 1),
    "weighted_wait": ("weighted wait (requests = 100)", 1), "baseline_wait_min": ("requests' mean wait (min)", 1),
    "months": ("months", 1), "wait_gain_pct": ("wait gain (%)", 1), "slowdown_gain_pct": ("slowdown gain (%)", 1),
    "weighted_wait_gain_pct": ("weighted wait gain (%)", 1), "accuracy_gain_pct": ("accuracy gain (%)", 1),
    "load": ("offered load (ratio)", 1), "resp_easy": ("response, EASY (s)", 1),
    "resp_cons": ("response, conservative (s)", 1), "resp_diff_pct": ("response, cons. vs EASY (%)", 1),
    "bsld_easy": ("bounded slowdown, EASY", 1), "bsld_cons": ("bounded slowdown, conservative", 1),
    "bsld_diff_pct": ("bounded slowdown, cons. vs EASY (%)", 1), "metric": ("metric", 1),
    "f1": ("f = 1", 1), "f2": ("f = 2", 1), "f4": ("f = 4", 1), "f11": ("f = 11", 1), "f31": ("f = 31", 1),
    "f101": ("f = 101", 1), "f301": ("f = 301", 1),
    "easy_orig": ("EASY, requests", 1), "easy_x2": ("EASY, requests x 2", 1), "easy_diff_pct": ("EASY, change (%)", 1),
    "cons_orig": ("conservative, requests", 1), "cons_x2": ("conservative, requests x 2", 1),
    "cons_diff_pct": ("conservative, change (%)", 1),
    "walltime": ("walltime used", 1), "backfilled_pct": ("backfilled (%)", 1), "mean_wait_min": ("mean wait (min)", 1),
    "mean_bsld": ("mean bounded slowdown", 1),
    # prediction
    "predictor": ("runtime estimate", 1), "algorithm": ("scheduler", 1), "predicted": ("jobs predicted", 1),
    "run_error_min": ("runtime error (min)", 1), "run_error_pct": ("runtime error (% of mean run)", 1),
    "wait_error_min": ("wait prediction error (min)", 1), "wait_error_pct": ("wait prediction error (% of mean wait)", 1),
    "utilization_pct": ("utilisation (%)", 1),
    # runs and owners
    "kind": ("owner kind", 1), "owner": ("owner", 1), "req_core_h": ("CPU-hours requested (SWF: processor-hours)", 1),
    "unused_core_h": ("CPU-hours unused (SWF: processor-hours)", 1), "unused_share": ("unused of requested (%)", PCT),
    "share_of_unused": ("share of all unused (%)", PCT), "rank": ("rank", 1),
    "mean_wait_h": ("mean wait (h)", 1), "median_wait_h": ("median wait (h)", 1),
    "mean_bounded_slowdown": ("mean bounded slowdown", 1), "utilization": ("utilisation (%)", PCT),
    "backfill_ratio": ("backfilled (%)", PCT), "run_id": ("run", 1),
    "waiting_jobs": ("waiting jobs", 1), "waiting_node_h": ("waiting size-hours (the replay's unit)", 1),
    "busy_share": ("utilisation (%)", PCT), "wait_h": ("wait (h)", 1),
    # the replay beside the log (run_calibration)
    "log_mean_wait": ("mean wait logged (h)", 1 / 3600), "rep_mean_wait": ("mean wait replayed (h)", 1 / 3600),
    "log_median_wait": ("median wait logged (h)", 1 / 3600),
    "rep_median_wait": ("median wait replayed (h)", 1 / 3600),
    "bin_s": ("moving-average bin (s)", 1), "bins": ("bins", 1), "bins_scored": ("bins with a logged wait", 1),
    "moving_wait_mape": ("7-bin moving-average wait, MAPE (%)", 1),
}

# columns that only order rows: not shown on the page (the CSV keeps them)
HIDDEN = {"pos", "apos", "k"}


# a column whose meaning depends on the view
VIEW_HEADERS = {("report_tang_months", "wait"): "mean wait (requests = 100)",
                ("report_ks_wait", "wait"): "wait"}


def header(column: str, view: str = "") -> str:
    if (view, column) in VIEW_HEADERS:
        return VIEW_HEADERS[(view, column)]
    return HEADERS.get(column, (column.replace("_", " "), 1))[0]


def scale(column: str) -> float:
    return HEADERS.get(column, ("", 1))[1]
