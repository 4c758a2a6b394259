"""The node range a job asked for (issue 42, sql/333_req_nodes.sql): jobs.min_nodes and jobs.max_nodes.

Slurm 22.05 lets a job that gave no `-N` spread its CPUs over nodes (cons_tres `_eval_nodes`), and keeps a job
that gave `-N` inside that range; the Slurm-shaped replay reads both columns (sql/slurm_replay_jobs.sql). Shown
here on real dumps of the 22.05 labs, against what each job's submission asked for, read from the labs' own
plans (tests/data/slurm-replay/workload.py; the sbatch lines of tests/data/slurm/*.sh and its README), not
from the reader:
- the replay lab's text dumps (W1-W4, W4 with --duplicates): `-n K` 1 and no maximum, `-N1 --exclusive` 1 and
  1, `-N2 --ntasks-per-node=2` 2 and 2, whatever node count the job then ran on;
- the first lab's JSON, YAML and text dumps of the same jobs: the same minimum from each (`-w node2` sets 1,
  `-N4` 4); the maximum from the text dump's SubmitLine only (22.05's JSON has no submit line);
- options inside `--wrap` are the wrapped command's; a node count sbatch would refuse is NULL, not an error;
- SWF and table logs say neither (NULL);
- a warehouse made before migration 333 still opens and reads; the next writer gives its rows NULL;
- whether the dump had submit lines at all (traces.submit_lines, migration 334): a text dump with or without
  the SubmitLine column (the lab's real dump, and a copy with the column dropped from its header and rows),
  JSON/YAML (no submit line in 22.05); the replay gives node ranges by it, and by the old guess only where it
  is unknown (a trace loaded before 334).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import duckdb
import pytest

from conftest import trace_path
from ingest_support import swf_head
from pipeline import sqlfiles
from pipeline.ingest import ingest
from pipeline.ingest.formats import IngestOptions
from pipeline.warehouse import Warehouse

DATA = Path(__file__).parent / "data"
LAB = DATA / "slurm-replay"
FIRST = DATA / "slurm"


def _plan_module():
    spec = importlib.util.spec_from_file_location("replay_workload", LAB / "workload.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def asked(argv: list[str]) -> tuple[int, int | None]:
    """(minimum, maximum) node count of an sbatch argument list, as 22.05's sbatch sets them (opt.c
    _opt_verify): `-N a-b` / `-Nk` / `--nodes=k`; else a `-w` list's node count as the minimum; else 1 and no
    maximum. Stops at `--wrap` (the rest is the wrapped command) and at `:` (a het job's next component)."""
    lo, hi, listed = None, None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--wrap", ":") or a.startswith("--wrap="):
            break
        value = None
        if a in ("-N", "--nodes", "-w", "--nodelist"):
            value, i = argv[i + 1], i + 1
        elif a.startswith("--nodes=") or a.startswith("--nodelist="):
            value = a.split("=", 1)[1]
        elif a.startswith("-N") or a.startswith("-w"):
            value = a[2:]
        if value is not None and a.startswith(("-N", "--nodes")):
            first, _, last = value.partition("-")
            lo, hi = int(first), int(last or first)
        elif value is not None:
            assert "[" not in value  # (the labs' lists name single nodes)
            listed = len(value.split(","))
        i += 1
    if lo is None:
        return (listed or 1), None
    return max(lo, listed or 0), hi


def query(wh: Path, sql: str, *params) -> list[tuple]:
    con = Warehouse(wh).reader()
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def jobs(wh: Path, trace: str, cols: str = "job_name, min_nodes, max_nodes") -> list[tuple]:
    return query(wh, f"SELECT {cols} FROM jobs WHERE trace = ? ORDER BY job_id", trace)


def load(wh: Path, path: Path, name: str, **opts) -> None:
    ingest([path], Warehouse(wh), name=name, options=IngestOptions(**{"format": "sacct", "tz": "UTC", **opts}))


# --- the replay lab: one run of each workload, against workload.py's plan -------------------------------------


@pytest.mark.parametrize("run", ["W1-r1", "W2-r1", "W3-r1", "W4-r1"])
def test_replay_lab_jobs_keep_the_node_range_their_plan_asked_for(tmp_path, run):
    workload = _plan_module()
    plan = {j["name"]: asked(j["opts"]) for j in workload.plan(run.split("-")[0])}
    wh = tmp_path / "wh"
    load(wh, LAB / "runs" / run / "sacct.txt", "lab")
    got = jobs(wh, "lab", "job_name, min_nodes, max_nodes, node_count")
    assert {name: (lo, hi) for name, lo, hi, _ in got} == plan
    assert len(got) == len(plan)
    # the range is what was asked, not what the job ran on: `-n 4` jobs that Slurm spread over two nodes
    # (the journal's point 3) keep 1 and no maximum
    spread = [name for name, lo, hi, held in got if held == 2 and hi is None]
    assert spread and all(lo == 1 for name, lo, hi, held in got if name in spread)
    if run == "W2-r1":
        assert sum(1 for _, lo, hi, _ in got if (lo, hi) == (2, 2)) == 20  # -N2 --ntasks-per-node=2
    if run in ("W1-r1", "W2-r1"):
        assert any(hi == 1 for _, _, hi, _ in got)  # -N1 --exclusive


def test_the_replay_reads_the_range(tmp_path):
    """sql/slurm_replay_jobs.sql gives min_nodes and max_nodes as the jobs table holds them."""
    wh = tmp_path / "wh"
    load(wh, LAB / "runs" / "W2-r1" / "sacct.txt", "w2")
    con = Warehouse(wh).reader()
    try:
        rel = con.execute(sqlfiles.load("slurm_replay_jobs"), ["w2"])
        names = [d[0] for d in rel.description]
        got = sorted((r[names.index("job_id")], r[names.index("min_nodes")], r[names.index("max_nodes")])
                     for r in rel.fetchall())
    finally:
        con.close()
    want = jobs(wh, "w2", "job_id, min_nodes, max_nodes")
    assert got == want and {(lo, hi) for _, lo, hi in got} == {(1, None), (1, 1), (2, 2)}


# --- the first lab: JSON, YAML and text dumps of the same jobs ------------------------------------------------


def first_lab_plan() -> dict[str, tuple[int, int | None]]:
    """Each job name's (minimum, maximum) from the sbatch lines that submitted it: lab-workload.sh,
    lab-attempts.sh, and the README's commands for jobs submitted by hand."""
    lines = []
    for script in ("lab-workload.sh", "lab-attempts.sh"):
        for line in (FIRST / script).read_text().splitlines():
            if "$S " in line or "$T " in line:
                lines.append(line.split("#")[0] if " #" in line else line)
    lines += re.findall(r"`(sbatch [^`]*-J [^`]*)`", (FIRST / "README.md").read_text())
    plan = {}
    for line in lines:
        argv = shlex.split(re.sub(r"^.*?\$[ST] ", "", line.replace("$(", "").rstrip(")")))
        if "-J" in argv:
            name = argv[argv.index("-J") + 1]
            plan.setdefault(name, asked(argv))
    return plan


def test_json_yaml_and_text_dumps_keep_the_same_minimum_and_only_the_text_a_maximum(tmp_path):
    plan = first_lab_plan()
    assert plan["pend_wide"] == (4, 4) and plan["victim"] == (1, None) and plan["unlim_main"] == (1, None)
    wh = tmp_path / "wh"
    load(wh, FIRST / "json-lab-sacct.json", "j")
    load(wh, FIRST / "json-lab-sacct.yaml", "y")
    load(wh, FIRST / "json-lab-sacct-us.txt", "t", delimiter="US")
    text = jobs(wh, "t")
    assert len(text) == 41 and {n for n, _, _ in text} <= set(plan)
    assert [(n, lo, hi) for n, lo, hi in text] == [(n, *plan[n]) for n, _, _ in text]
    for trace in ("j", "y"):  # 22.05's JSON/YAML: the same minimum (tres.requested node), no submit line
        assert jobs(wh, trace) == [(n, plan[n][0], None) for n, _, _ in text]
    assert query(wh, "SELECT trace, submit_lines FROM traces ORDER BY trace") == [("j", False), ("t", True),
                                                                                 ("y", False)]
    # jobs 32 and 33 asked for `-n4 -w node1` and ran on two nodes: -w sets no maximum (sql/slurm_replay_jobs.sql)
    held = dict((s, (lo, hi, n)) for s, lo, hi, n in jobs(wh, "t", "slurm_id, min_nodes, max_nodes, node_count"))
    assert held["32"] == held["33"] == (1, None, 2)


# --- the submit line: --wrap, and values sbatch would refuse --------------------------------------------------


def _with_submit_lines(src: Path, dst: Path, edit) -> Path:
    """``dst``: the real dump ``src`` with each job line's SubmitLine (its last field) replaced by
    ``edit(line, job_name)`` (step lines and the header as they are)."""
    rows = src.read_text().splitlines(keepends=True)
    cols = rows[0].rstrip("\n").split("|")
    name_at = cols.index("JobName")
    out = [rows[0]]
    for row in rows[1:]:
        f = row.rstrip("\n").split("|")
        if "." not in f[0]:
            f[-1] = edit(f[-1], f[name_at])
        out.append("|".join(f) + "\n")
    dst.write_text("".join(out))
    return dst


def test_a_node_count_inside_wrap_is_the_wrapped_commands(tmp_path):
    """W2-r1 with every wrapped command run by `srun -N 3` (`--wrap CMD`, as sacct prints the line, and
    `--wrap="CMD"`): the jobs keep the range of their own options."""
    workload = _plan_module()
    plan = {j["name"]: asked(j["opts"]) for j in workload.plan("W2")}
    k = iter(range(10**6))

    def wrapped(line: str, _name: str) -> str:
        head, _, cmd = line.partition(" --wrap ")
        return f"{head} --wrap srun -N 3 {cmd}" if next(k) % 2 else f'{head} --wrap="srun --nodes=3 {cmd}"'

    dump = _with_submit_lines(LAB / "runs" / "W2-r1" / "sacct.txt", tmp_path / "sacct.txt", wrapped)
    assert dump.read_text().count("srun -N 3") > 50
    wh = tmp_path / "wh"
    load(wh, dump, "w")
    assert {n: (lo, hi) for n, lo, hi in jobs(wh, "w")} == plan


@pytest.mark.parametrize("value", ["abc", "3-1", "2-", "0", "99999999999", "1.5", ""])
def test_a_node_count_sbatch_would_refuse_is_null_not_an_error(tmp_path, value):
    """`-N VALUE` that sbatch's verify_node_count (or its min <= max check) refuses, or a maximum of 0 (Slurm's
    "none"): max_nodes NULL, the rest of the job read as usual."""
    def bad(line: str, _name: str) -> str:
        return line.replace(" -n ", f" -N {value} -n ", 1) if " -n " in line else line

    dump = _with_submit_lines(LAB / "runs" / "W1-r1" / "sacct.txt", tmp_path / "sacct.txt", bad)
    wh = tmp_path / "wh"
    load(wh, dump, "w")
    got = jobs(wh, "w")
    assert len(got) == 220 and all(hi is None for n, _, hi in got if "_cpu" in n or "_gpu" in n)
    assert all(lo == 1 for _, lo, _ in got)


def test_the_forms_of_the_node_option():
    """`-N 2`, `-N2`, `--nodes=2`, `--nodes 2`, `-N 1-3`, the last one given, k/m suffixes (proc_args.c
    _str_to_nodes), `--ntasks-per-node` and `-w` not counted; each read from a W2-r1 submit line."""
    import polars as pl

    from pipeline.ingest.sacct import _max_nodes

    real = next(r.split("|")[-1] for r in (LAB / "runs" / "W2-r1" / "sacct.txt").read_text().splitlines()
                if "-N2 --ntasks-per-node=2" in r)
    cases = {"-N2": 2, "-N 2": 2, "--nodes=2": 2, "--nodes 2": 2, "-N 1-3": 3, "-N 1-3 -N 2": 2, "-N 2k": 2048,
             "-N 1-2m": 2 * 1024 * 1024, "-N -3": 3, "-w node1": None, "--nodelist=node[1-2]": None,
             "--ntasks-per-node=2": None}
    lines = [real.replace("-N2", opt) for opt in cases]
    got = pl.DataFrame({"SubmitLine": lines}).select(_max_nodes(["SubmitLine"]).alias("m"))["m"].to_list()
    assert dict(zip(cases, got)) == cases


# --- logs that do not say ------------------------------------------------------------------------------------


def test_swf_and_table_logs_say_neither(tmp_path):
    wh = tmp_path / "wh"
    swf = swf_head(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"), tmp_path / "kth.swf", 300)
    ingest([swf], Warehouse(wh), name="kth")
    ingest([trace_path("NREL-Eagle-sample-1000.csv.gz")], Warehouse(wh), name="eagle",
           options=IngestOptions(format="table", preset="eagle", tz="America/Denver"))
    got = query(wh, "SELECT trace, count(*), count(min_nodes), count(max_nodes) FROM jobs GROUP BY trace "
                    "ORDER BY trace")
    assert got == [("eagle", 1000, 0, 0), ("kth", 300, 0, 0)]
    assert query(wh, "SELECT trace, submit_lines FROM traces ORDER BY trace") == [("eagle", None), ("kth", None)]


# --- a warehouse made before migration 333 -------------------------------------------------------------------


def test_a_warehouse_from_before_333_opens_and_its_rows_get_null(tmp_path):
    """Its jobs files and jobs_legacy without the columns, 333 not applied: a reader opens it and reads its
    jobs; the next writer applies 333 and rewrites the old files with NULL (jobs_files._add_columns), while the
    new trace's rows are read from their log."""
    wh = tmp_path / "wh"
    load(wh, LAB / "runs" / "W2-r1" / "sacct.txt", "old")
    [f] = list((wh / "parquet" / "jobs" / "old").glob("*.parquet"))
    con = duckdb.connect(str(wh / "walltime.duckdb"))
    try:  # the file and the schema as before 333
        con.execute(f"COPY (SELECT * EXCLUDE (min_nodes, max_nodes) FROM read_parquet('{f}')) TO '{f}.tmp' "
                    "(FORMAT parquet)")
        con.execute("ALTER TABLE jobs_legacy DROP COLUMN min_nodes")
        con.execute("ALTER TABLE jobs_legacy DROP COLUMN max_nodes")
        con.execute("DELETE FROM schema_migrations WHERE version = 333")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    f.with_name(f.name + ".tmp").replace(f)
    con = Warehouse(wh).reader()
    try:
        cols = [c for (c,) in con.execute("SELECT column_name FROM (DESCRIBE jobs)").fetchall()]
        assert "min_nodes" not in cols and "req_partitions" in cols
        assert con.execute("SELECT count(*) FROM jobs WHERE trace = 'old'").fetchone() == (210,)
    finally:
        con.close()
    load(wh, LAB / "runs" / "W3-r1" / "sacct.txt", "new")
    got = query(wh, "SELECT trace, count(*), count(min_nodes), count(max_nodes) FROM jobs GROUP BY trace "
                    "ORDER BY trace")
    assert got == [("new", 210, 210, 0), ("old", 210, 0, 0)]  # (W3 has no -N job)
    assert query(wh, "SELECT count(*) FROM schema_migrations WHERE version = 333") == [(1,)]
    assert len(query(wh, sqlfiles.load("slurm_replay_jobs"), "old")) == 210


# --- whether the dump had submit lines (traces.submit_lines, migration 334) -----------------------------------


def _without_column(src: Path, dst: Path, column: str) -> Path:
    """``dst``: the real dump ``src`` with ``column`` dropped from its header and from every line (job and
    step lines alike), as sacct prints it when --format does not name the column."""
    rows = src.read_text().splitlines()
    cols = rows[0].split("|")
    at = cols.index(column)
    out = []
    for row in rows:
        f = row.split("|")
        assert len(f) == len(cols)  # (no '|' inside a free-text field of these dumps)
        out.append("|".join(f[:at] + f[at + 1:]))
    dst.write_text("\n".join(out) + "\n")
    return dst


def _ranged(wh: Path, trace: str) -> set[str]:
    """The names of the jobs the Slurm replay gives a node range (further shapes)."""
    from pipeline.simulate.inputs import load_inputs
    from pipeline.simulate.slurm import replay

    con = Warehouse(wh).reader()
    try:
        inp = load_inputs(con, trace, "request", 24, False, "regular")
        sl = replay.load(con, trace, inp.job_id)
        names = dict(con.execute("SELECT job_id, job_name FROM jobs WHERE trace = ?", [trace]).fetchall())
    finally:
        con.close()
    return {names[int(inp.job_id[j])] for j in set(sl.arrays["xjob"].tolist())}


def _lab(wh: Path, path: Path, name: str, run: str = "W3-r1") -> None:
    from pipeline.simulate.slurm.validate import lab_options

    ingest([path], Warehouse(wh), name=name, options=lab_options(LAB, LAB / "runs" / run))


def test_traces_say_whether_the_dump_had_submit_lines(tmp_path):
    """The lab's dump has SubmitLine: TRUE. The same dump with the column dropped: FALSE, and its jobs'
    max_nodes and req_partitions are NULL, while ReqNodes still gives min_nodes."""
    wh = tmp_path / "wh"
    src = LAB / "runs" / "W1-r1" / "sacct.txt"
    load(wh, src, "with")
    load(wh, _without_column(src, tmp_path / "sacct.txt", "SubmitLine"), "without")
    assert query(wh, "SELECT trace, submit_lines FROM traces ORDER BY trace") == [("with", True),
                                                                                 ("without", False)]
    got = query(wh, "SELECT trace, count(*), count(min_nodes), count(max_nodes), count(req_partitions) FROM jobs "
                    "GROUP BY trace ORDER BY trace")
    with_ = got[0]
    assert with_[0] == "with" and with_[3] > 0 and with_[4] == 220
    assert got[1] == ("without", 220, 220, 0, 0)


def test_the_replay_gives_node_ranges_where_the_dump_had_submit_lines(tmp_path):
    """W3's real dump: no job gave -N, each gave a `-p` list or partition. With its SubmitLine, the 4-CPU jobs
    get a node range. With the column dropped: none (a NULL max_nodes says nothing there). With the `-p`
    option taken out of every SubmitLine (as if `#SBATCH -p` in the script had set it), the line still says
    that no job gave -N: the same jobs get a range -- where the old guess (some job's -N or -p list) saw no
    submit line, as it still does for a trace loaded before 334 (submit_lines NULL)."""
    wh = tmp_path / "wh"
    src = LAB / "runs" / "W3-r1" / "sacct.txt"
    _lab(wh, src, "lines")
    _lab(wh, _without_column(src, tmp_path / "no-line.txt", "SubmitLine"), "no_line")
    _lab(wh, _with_submit_lines(src, tmp_path / "no-p.txt", lambda line, _: re.sub(r" -p \S+", "", line)), "no_p")
    assert query(wh, "SELECT count(*) FROM jobs WHERE trace = 'no_p' AND (req_partitions IS NOT NULL OR "
                     "max_nodes IS NOT NULL)") == [(0,)]
    ranged = _ranged(wh, "lines")
    assert len(ranged) >= 13
    assert _ranged(wh, "no_line") == set()
    assert _ranged(wh, "no_p") == ranged
    con = duckdb.connect(str(wh / "walltime.duckdb"))
    try:  # as loaded before 334: unknown, so guessed from the jobs
        con.execute("UPDATE traces SET submit_lines = NULL")
    finally:
        con.close()
    assert _ranged(wh, "lines") == ranged and _ranged(wh, "no_p") == set()


def test_a_warehouse_from_before_334_opens_and_the_replay_guesses(tmp_path):
    """traces without the column, 334 not applied: a reader opens it and the replay reads its jobs, guessing
    as before 334 (W3's `-p` lists: a submit line); the next writer applies 334 and the old trace's
    submit_lines is NULL (unknown), the new one's read from its dump."""
    wh = tmp_path / "wh"
    _lab(wh, LAB / "runs" / "W3-r1" / "sacct.txt", "old")
    con = duckdb.connect(str(wh / "walltime.duckdb"))
    try:
        con.execute("ALTER TABLE traces DROP COLUMN submit_lines")
        con.execute("DELETE FROM schema_migrations WHERE version = 334")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    ranged = _ranged(wh, "old")
    assert len(ranged) >= 13
    _lab(wh, LAB / "runs" / "W3-r2" / "sacct.txt", "new", "W3-r2")
    assert query(wh, "SELECT trace, submit_lines FROM traces ORDER BY trace") == [("new", True), ("old", None)]
    assert query(wh, "SELECT count(*) FROM schema_migrations WHERE version = 334") == [(1,)]
    assert _ranged(wh, "old") == ranged
