"""The sacct scan's compiled readers equal the Polars readers they stand in
for (ISO time stamps: strptime; JobID: the regex), and the scan and split cut
into slices (one per core, in threads) equal one pass, on the lab dumps."""

from __future__ import annotations

import os
import re
from datetime import datetime

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.ingest import sacct_scan as sc
from pipeline.ingest.sacct import _Lines

TRACES = os.environ.get("WALLTIME_TRACES", "")
JOBID = r"^(\d+)(?:_(\d+|\[[^\]]*\]))?(?:\+(\d+))?$"


def _b(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), np.uint8)


_iso = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)).map(
    lambda d: d.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0"))
_odd = st.text(alphabet="0123456789-T: NoneUkw", max_size=21)
_near = _iso.flatmap(lambda s: st.integers(0, 18).flatmap(
    lambda i: st.sampled_from("0123456789-T:x ").map(lambda c: s[:i] + c + s[i + 1:])))


@settings(max_examples=400, deadline=None)
@given(st.one_of(_iso, _odd, _near, st.sampled_from(["", "None", "Unknown", "2026-02-29T00:00:00",
                                                      "2024-02-29T23:59:59", "2026-13-01T00:00:00"])))
def test_time_reader_equals_strptime(text):
    us, status = sc._read_time(_b(text), 0, len(text.encode()))
    want = pl.Series([text]).str.to_datetime("%Y-%m-%dT%H:%M:%S", strict=False, time_unit="us").cast(pl.Int64)[0]
    if status == sc.T_MISSING:
        assert text in ("", "None", "Unknown")
    elif status == sc.T_READ:
        assert want is not None
        assert us == want
    else:  # left to Polars (always safe); the canonical form with a real date is never left
        assert want is None or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", text)


_ids = st.one_of(
    st.builds(lambda b, t, h: f"{b}{t}{h}", st.integers(0, 10**12),
              st.one_of(st.just(""), st.integers(0, 10**6).map(lambda t: f"_{t}"),
                        st.text(alphabet="0123456789-,%", max_size=8).map(lambda r: f"_[{r}]")),
              st.one_of(st.just(""), st.integers(0, 99).map(lambda h: f"+{h}"))),
    st.text(alphabet="0123456789_[]+x", max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(_ids)
def test_jobid_reader_equals_the_regex(text):
    base, task, het, flags = sc._read_jobid(_b(text), 0, len(text))
    g = pl.Series([text]).str.extract_groups(JOBID).struct.unnest().row(0)
    if g[0] is None:
        assert not flags & sc.ID_OK
        return
    assert flags & sc.ID_OK and base == int(g[0])
    assert bool(flags & sc.ID_TASK) == (g[1] is not None)
    if g[1] is not None and g[1].isdigit():
        assert flags & sc.ID_TASK_NUM and task == int(g[1])
    else:
        assert not flags & sc.ID_TASK_NUM
    assert bool(flags & sc.ID_HET) == (g[2] is not None)
    if g[2] is not None:
        assert het == int(g[2])


@pytest.mark.skipif(not TRACES, reason="needs $WALLTIME_TRACES")
@pytest.mark.parametrize("name", ["slurm-lab-sacct.txt", "slurm-lab-sacct-X.txt", "slurm-lab-sacct-default.txt"])
@pytest.mark.parametrize("threads", [2, 3, 8])
def test_slices_equal_one_pass(name, threads):
    data = open(os.path.join(TRACES, name), "rb").read()
    buf = np.frombuffer(data, np.uint8)
    cols = data[:data.find(b"\n")].decode().split("|")
    jobid = cols.index("JobID")
    one = sc.scan(buf, jobid, threads=1)
    many = sc.scan(buf, jobid, threads=threads, chunk_min=1)
    for a, b in zip(one, many):
        assert np.array_equal(a, b)
    starts, ends, fields, step = one
    rows = np.flatnonzero((fields == len(cols)) & ~step)[1:].astype(np.int64)
    slot = np.arange(len(cols), dtype=np.int64)
    kind = np.array([10 + ["Submit", "Start", "End"].index(c) if c in ("Submit", "Start", "End")
                     else sc.JOBID if c == "JobID" else sc.PLAIN for c in cols], np.int64)
    kind_t = kind.copy()
    kind_t[kind >= 10] = 10 + np.arange(int((kind >= 10).sum()))
    bases = np.array([0], np.int64)
    one = sc.split(buf, starts, ends, rows, slot, bases, kind_t, threads=1)
    many = sc.split(buf, starts, ends, rows, slot, bases, kind_t, threads=threads, rows_min=1)
    for a, b in zip(one, many):
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
    assert _Lines(data).count == len(starts)


_mem = st.one_of(
    st.builds(lambda n, f, u, p: f"{n}{f}{u}{p}", st.integers(0, 10**9), st.sampled_from(["", ".5", ".", ".25", "0"]),
              st.sampled_from(["", "K", "M", "G", "T", "k"]), st.sampled_from(["", "c", "n"])),
    st.text(alphabet="0123456789.KMGTcn x", max_size=10),
)


@settings(max_examples=400, deadline=None)
@given(_mem)
def test_reqmem_reader_equals_the_polars_rule(text):
    from pipeline.ingest.sacct import _mem_kb

    kb, status = sc._read_mem(_b(text), 0, len(text), sc._POW10)
    df = pl.DataFrame({"ReqMem": [text or None], "n": [2]}, schema={"ReqMem": pl.String, "n": pl.Int64})
    want = df.select(_mem_kb(["ReqMem"], pl.lit(1, pl.Int64))).item()  # per CPU or / 1: KB as written
    if status == sc.M_OTHER:
        return  # left to the Polars rule itself
    if status == sc.M_EMPTY:
        assert text == "" and want is None
        return
    assert want is not None and kb == want, (kb, want)
    assert (status == sc.M_PER_CPU) == text.endswith("c")
    per_cpu = df.select(_mem_kb(["ReqMem"], pl.col("n"))).item()
    assert per_cpu == (kb if text.endswith("c") else kb / 2)


_tres_text = st.lists(st.one_of(
    st.integers(0, 10**18 - 1).map(lambda g: f"gres/gpu={g}"),
    st.sampled_from(["cpu=4", "mem=8G", "node=1", "billing=4", "gres/gpu=", "gres/gpu=x", "gres/gpu:a100=2",
                     "xgres/gpu=3", "gres/gpu=7abc"])), max_size=5).map(",".join)


@settings(max_examples=300, deadline=None)
@given(_tres_text)
def test_gpu_reader_equals_the_regex(text):
    from pipeline.ingest.sacct import _tres

    g, found = sc._read_gpus(_b(text), 0, len(text))
    want = pl.DataFrame({"AllocTRES": [text]}).select(_tres(["AllocTRES"], "AllocTRES", "gres/gpu")).item()
    assert (g if found else None) == want


_counts = st.one_of(st.integers(0, 10**19).map(str), st.sampled_from(["", "UNLIMITED", "Partition_Limit", "INFINITE",
                                                                      "-5", "+7", " 12", "1e3", "007", "unlimited"]),
                    st.text(alphabet="0123456789 +-.eUNLIMTD", max_size=20))


@settings(max_examples=400, deadline=None)
@given(_counts)
def test_count_reader_equals_the_polars_cast(text):
    """A count the scan reads is the value Polars' cast gives; what it does not read is left to that cast."""
    value, status = sc._read_int(_b(text), 0, len(text))
    want = pl.Series([text or None], dtype=pl.String).cast(pl.Int64, strict=False).item()
    if status == sc.N_OTHER:
        return
    if status == sc.N_EMPTY:
        assert text == ""
    elif status == sc.N_NO_LIMIT:
        assert text in ("UNLIMITED", "Partition_Limit", "INFINITE")
    else:
        assert want is not None and value == want, (text, value, want)


_states = st.one_of(st.sampled_from([*sc.STATES, "CANCELLED by 1001", "COMPLETED+", "completed", "", " RUNNING",
                                     "NODE_FAIL extra", "PENDING_X"]),
                    st.text(alphabet="ABCDEFGILMNOPRSTU_ ybc01", max_size=20))


@settings(max_examples=400, deadline=None)
@given(_states)
def test_state_reader_equals_the_regex(text):
    """The scan's State code names the state the regex ``^([A-Z_]+)`` finds, or -1 when that is no known state."""
    code = sc._read_state(_b(text), 0, len(text))
    m = re.match(r"^([A-Z_]+)", text)
    want = m.group(1) if m and m.group(1) in sc.STATUS else None
    assert (sc.STATES[code] if code >= 0 else None) == want
