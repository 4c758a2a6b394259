"""The ranges a job's values must lie in, for every format: one definition.

Why: the later stages add, subtract and multiply times and sizes in 64 bits
(months, ends, processor-seconds, summary sums); a value beyond these ranges
overflows there, or is nonsense (a negative wait, NaN seconds). The SWF
tokenizer checks its fields against these numbers (swf.py, _swf_jit.py); the
sacct and table readers check their jobs with :func:`job_checks`, vectorised
Polars expressions over the readers' shared internal columns (``_submit``,
``_start``, ``_end``, ``_eligible`` (sacct) as epoch seconds, ``_elapsed``, ``_req`` seconds,
``_procs``, ``_req_procs``), each giving the one-line reason that names the
field. docs/ingest.md "Ranges" states the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # Polars is imported where the checks are built: the numbers serve light modules too
    import polars as pl

MAX_SPAN = 200 * 365 * 86400 + 49 * 86400  # 200 years of seconds (with leap days)
INT32 = 2**31 - 1  # sizes and ids
MAX_AREA = 2**53  # seconds x processors of one job: the stages sum and multiply these in 64 bits
# a number read as a float that is NaN, infinite or far out of range becomes this integer: out of
# every range, yet small enough that sums of a few of them stay inside 64 bits
BEYOND = 10 * MAX_SPAN

TIME_WHY = f"expected seconds within 200 years (at most {MAX_SPAN:,})"
DURATION_WHY = f"expected seconds from 0 to {MAX_SPAN:,} (200 years)"
EPOCH_WHY = "expected a time within 200 years of 1970"
LIMIT_WHY = f"expected a time limit from 0 to {MAX_SPAN:,} seconds (200 years)"
SIZE_WHY = f"expected a whole number from 0 to {INT32:,}"
AREA_WHY = f"times the job's processors that exceeds {MAX_AREA:,} processor-seconds; expected a smaller value"


def whole(x: pl.Expr) -> pl.Expr:
    """A float column as Int64 seconds or counts, rounded; NaN, infinities and
    magnitudes beyond :data:`BEYOND` become BEYOND (so that the range checks
    name them) instead of failing the cast."""
    import polars as pl

    return pl.when(x.is_nan() | (x.abs() > BEYOND)).then(pl.lit(BEYOND)).otherwise(x.round(0)).cast(pl.Int64)


def outside(x: pl.Expr, lo: int, hi: int) -> pl.Expr:
    """Known and outside [lo, hi] (a NULL is a value the log does not give: not out of range)."""
    return (~x.is_between(lo, hi)).fill_null(False)


def job_checks(label: Callable[[str], pl.Expr], has: Callable[[str], bool]) -> list[tuple[pl.Expr, pl.Expr]]:
    """(bad, reason) pairs over the internal columns, first problem first.
    ``label(key)`` is the start of a reason naming the source of ``key``
    (submit, start, end, eligible, run, req, procs, req_procs) and quoting its text, e.g.
    ``field 9 (Submit) is "9999-01-01T00:00:00"``; ``has(key)``: the log gives
    that value (else nothing names it and its checks are skipped)."""
    import polars as pl

    def when(key, bad, why):
        return [(bad, label(key) + pl.lit(why))] if has(key) else []

    submit, start, end = pl.col("_submit"), pl.col("_start"), pl.col("_end")
    width = pl.max_horizontal(pl.col("_procs").abs(), pl.col("_req_procs").abs()).cast(pl.Float64)
    run = pl.coalesce([end - start, pl.col("_elapsed")]) if has("end") else pl.col("_elapsed")
    return [
        *when("submit", outside(submit, -MAX_SPAN, MAX_SPAN), f", {EPOCH_WHY}"),
        *when("start", outside(start, -MAX_SPAN, MAX_SPAN), f", {EPOCH_WHY}"),
        *when("end", outside(end, -MAX_SPAN, MAX_SPAN), f", {EPOCH_WHY}"),
        *when("eligible", outside(pl.col("_eligible"), -MAX_SPAN, MAX_SPAN), f", {EPOCH_WHY}"),
        *when("start", (start < submit).fill_null(False), ", before the submit time; expected a start at or after it"),
        *when("end", (end < start).fill_null(False), ", before the start time; expected an end at or after it"),
        *when("run", outside(pl.col("_elapsed"), 0, MAX_SPAN), f", {DURATION_WHY}"),
        *when("req", outside(pl.col("_req"), 0, MAX_SPAN), f", {LIMIT_WHY}"),
        *when("procs", outside(pl.col("_procs"), 0, INT32), f", {SIZE_WHY}"),
        *when("req_procs", outside(pl.col("_req_procs"), 0, INT32), f", {SIZE_WHY}"),
        *when("run" if not has("end") else "end", (run.cast(pl.Float64).abs() * width > MAX_AREA).fill_null(False),
              f": its run time {AREA_WHY}"),
        *when("req", (pl.col("_req").cast(pl.Float64).abs() * width > MAX_AREA).fill_null(False), f": {AREA_WHY}"),
    ]
