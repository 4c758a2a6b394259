"""Slurm's time strings as Polars expressions: durations and zone-less stamps.

Why expressions: a sacct dump has millions of lines; every conversion here is
one vectorised pass (no Python per line), and each returns NULL for a string
it cannot read so that the caller can name the bad line.
"""

from __future__ import annotations

import polars as pl

# [D-][HH:]MM[:SS] as printed by Slurm (Timelimit, Elapsed).
_DURATION = r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$"
NO_LIMIT = ("UNLIMITED", "Partition_Limit", "INFINITE")
MISSING_TIME = ("", "None", "Unknown")
TIME_FORMATS = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M")


def duration_seconds(col: pl.Expr) -> pl.Expr:
    """Seconds of a Slurm duration: ``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH``,
    ``D-HH:MM``, ``D-HH:MM:SS`` (plain numbers are minutes, as in sbatch
    --time). NULL when the string is not one of these."""
    s = col.str.strip_chars()
    parts = s.str.extract_groups(_DURATION)
    d = parts.struct.field("1").cast(pl.Int64)
    a = parts.struct.field("2").cast(pl.Int64)
    b = parts.struct.field("3").cast(pl.Int64)
    c = parts.struct.field("4").cast(pl.Int64)
    no_day = (
        pl.when(c.is_not_null()).then(a * 3600 + b * 60 + c)
        .when(b.is_not_null()).then(a * 60 + b)
        .otherwise(a * 60)
    )
    with_day = d * 86400 + a * 3600 + b.fill_null(0) * 60 + c.fill_null(0)
    return pl.when(d.is_not_null()).then(with_day).otherwise(no_day)


def naive_time(col: pl.Expr) -> pl.Expr:
    """A zone-less timestamp in any of :data:`TIME_FORMATS` (NULL otherwise)."""
    s = col.str.strip_chars()
    return pl.coalesce([s.str.to_datetime(f, strict=False, time_unit="us") for f in TIME_FORMATS])


def local_epoch(col: pl.Expr, tz: str, ambiguous: str) -> pl.Expr:
    """Unix seconds of naive local times in ``tz``. ``ambiguous``: 'earliest'
    or 'latest' for the repeated hour of a DST change; a time in the skipped
    hour is NULL."""
    return col.dt.replace_time_zone(tz, ambiguous=ambiguous, non_existent="null").dt.epoch("s")


def ordered_epochs(cols: list[pl.Expr], tz: str) -> list[pl.Expr]:
    """Unix seconds of successive event times (submit, start, end) of one job.

    Why: in the hour repeated when DST ends, a local time names two instants.
    The first event takes the earlier one; each later event takes the earlier
    one unless that would put it before the previous event, then the later
    one. So a job submitted at 01:50 (summer time) that starts at 01:10
    (winter time) waits 20 minutes, not minus 40."""
    out = []
    prev = None
    for c in cols:
        early, late = local_epoch(c, tz, "earliest"), local_epoch(c, tz, "latest")
        cur = early if prev is None else pl.when(early < prev).then(late).otherwise(early)
        out.append(cur)
        prev = pl.coalesce([cur, prev]) if prev is not None else cur
    return out


# SLURM_TIME_FORMAT: sacct prints times with this strftime form; "%s" is Unix seconds (an instant, no zone).
EPOCH = "%s"
# the forms tried when a dump's times are neither ISO nor Unix seconds and no --time-format is given; one is
# used only when it alone reads every time (or all that do read them agree): 01/02 is 1 Feb or 2 Jan
DETECT = ("%d/%m/%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%d.%m.%Y %H:%M:%S", "%Y/%m/%d %H:%M:%S",
          "%d/%m/%y %H:%M:%S", "%m/%d/%y %H:%M:%S", "%d-%m-%Y %H:%M:%S")
SAMPLE = 20_000  # values a form must read before it is tried on all of them
_EPOCH_TEXT = r"^\d{1,11}$"
_DIRECTIVES = set("aAbBdDeFhHIjmMpRSTyYzZ")  # those of strftime(3) that name a date or time of day


def check_time_format(fmt: str) -> str:
    """``--time-format``: ``%s`` or a strftime form with at least a year, month and day directive."""
    if fmt == EPOCH:
        return fmt
    import re

    directives = re.findall(r"%(.)", fmt.replace("%%", ""))
    bad = [d for d in directives if d not in _DIRECTIVES]
    if bad or not {"Y", "y", "F", "D"} & set(directives) or not directives:
        why = f"%{bad[0]} is not a strftime directive" if bad else "no year (%Y, %y, %F or %D) in it"
        raise ValueError(f"{why}; expected %s (Unix seconds) or a strftime form such as '%d/%m/%Y %H:%M:%S'")
    return fmt


def parse_times(col: pl.Expr, fmt: str | None) -> pl.Expr:
    """Times as written with ``fmt``: naive datetimes (local), or for ``%s``
    and forms with a zone (``%z``) UTC datetimes of the instant. NULL where a
    value does not fit. ``fmt`` None: the ISO forms (:data:`TIME_FORMATS`)."""
    s = col.str.strip_chars()
    if fmt is None:
        return naive_time(col)
    if fmt == EPOCH:
        secs = pl.when(s.str.contains(_EPOCH_TEXT)).then(s).cast(pl.Int64, strict=False)
        return pl.from_epoch(secs, time_unit="s").cast(pl.Datetime("us"))
    out = s.str.to_datetime(fmt, strict=False, time_unit="us")
    if "%z" in fmt or "%Z" in fmt:  # an instant: as a UTC datetime without a zone
        out = out.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
    return out


def is_instant(fmt: str | None) -> bool:
    """The form names an instant (Unix seconds, or a zone offset), not a local time."""
    return fmt is not None and (fmt == EPOCH or "%z" in fmt or "%Z" in fmt)


def _most(s: pl.Series) -> str | None:
    """The form (``%s`` first, then :data:`DETECT`'s) that reads more than half of the times when none
    reads them all: the times it cannot read are then bad values on their own lines (a bad time on line
    17 of a ``%s`` dump is named there, not as a dump in no known form from line 2). None if no form does."""
    best, most = None, s.len() // 2
    epochs = int(s.str.contains(_EPOCH_TEXT).sum())
    if epochs > most:
        return EPOCH
    for fmt in DETECT:
        got = s.len() - s.str.to_datetime(fmt, strict=False, time_unit="us").null_count()
        if got > most:
            best, most = fmt, got
    return best


def detect_format(values: pl.Series) -> tuple[str | None, list[tuple[str, int]]]:
    """The time form of ``values`` (the non-empty texts of a dump's times
    that the ISO reader left): ``%s`` when all are digits, else the one form
    of :data:`DETECT` that reads them all; when none reads them all, the
    one that reads more than half (:func:`_most`). Returns (form, every form that
    reads them all and disagrees with it, with the index of a value they read
    differently); (None, []) when none does."""
    if values.len() == 0:
        return None, []
    s = values.str.strip_chars()
    if s.str.contains(_EPOCH_TEXT).all():
        return EPOCH, []
    fits = []
    head = s.head(SAMPLE)
    for fmt in DETECT:
        if head.str.to_datetime(fmt, strict=False, time_unit="us").null_count():
            continue
        got = s.str.to_datetime(fmt, strict=False, time_unit="us")
        if got.null_count() == 0:
            fits.append((fmt, got))
    if not fits:
        return _most(s), []
    first, got0 = fits[0]
    return first, [(f, int((g != got0).arg_max())) for f, g in fits[1:] if not g.equals(got0)]
