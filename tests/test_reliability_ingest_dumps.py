"""Hostile Slurm dumps are refused in one line, or loaded as they should be (issue 39, ingest part).

Every input is a real dump of tests/data/slurm/ (README there) copied and edited here: a gzip
bomb padded with whitespace, YAML anchors, job names and bitmaps of the wrong kind, a second
cluster, values past 64 bits, a repeated record, overlapping attempts, a last record on one
line, a bad Unix time among good ones. Every run is the real CLI; a refusal is one line on
stderr naming the file, the line (record, job) and the field, exit 1, the warehouse unchanged.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import run_cli
from ingest_support import snapshot
from test_reliability import one_line_error

DATA = Path(__file__).parent / "data" / "slurm"
JSON_DUMP = DATA / "json-lab-sacct.json"
YAML_DUMP = DATA / "json-lab-sacct.yaml"


@pytest.fixture(scope="module")
def base_wh(tmp_path_factory) -> Path:
    """A warehouse holding one real sacct trace."""
    wh = tmp_path_factory.mktemp("base") / "wh"
    run_cli("ingest", str(DATA / "attempts-sacct.txt"), "--format", "sacct", "--tz", "UTC", warehouse=wh, check=True)
    return wh


@pytest.fixture
def wh(base_wh, tmp_path) -> Path:
    copy = tmp_path / "wh"
    shutil.copytree(base_wh, copy)
    return copy


def cli(tmp: Path, *args: str, wh: Path, env: dict | None = None, timeout: float = 120):
    """The console script run from ``tmp`` (file names in messages as given)."""
    old = os.getcwd()
    os.chdir(tmp)
    try:
        return run_cli(*args, "--tz", "UTC", warehouse=wh, env=env, timeout=timeout)
    finally:
        os.chdir(old)


def refused(tmp: Path, wh: Path, *args: str, needles=(), env=None, timeout: float = 120) -> str:
    before = snapshot(wh)
    proc = cli(tmp, "ingest", *args, wh=wh, env=env, timeout=timeout)
    one_line_error(proc, *needles)
    assert snapshot(wh) == before
    return proc.stderr


def loaded(tmp: Path, wh: Path, *args: str, env=None) -> dict:
    proc = cli(tmp, "ingest", *args, "--json", wh=wh, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["traces"][0]


def lab() -> dict:
    return json.loads(JSON_DUMP.read_text())


def write_json(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc, indent=2) + "\n")  # sacct's layout: two spaces a level, a value a line
    return path


def text_lines(name: str) -> tuple[list[str], list[str]]:
    lines = (DATA / name).read_text().split("\n")
    return lines, lines[0].split("|")


def set_field(lines: list[str], header: list[str], lineno: int, column: str, value: str) -> list[str]:
    out = list(lines)
    f = out[lineno - 1].split("|")
    f[header.index(column)] = value
    out[lineno - 1] = "|".join(f)
    return out


# --- 1. gzip bombs: the decompression is bounded -----------------------------------------------

def test_a_gzip_bomb_is_refused_past_the_inflate_bound_and_a_real_gzip_dump_loads(wh, tmp_path):
    bound = {"WALLTIME_INFLATE_MAX": "8000000"}
    raw = JSON_DUMP.read_bytes()
    pad = b" " * (48 << 20)  # whitespace is valid JSON between the last ] and }: 48 MB from ~50 KB
    (tmp_path / "bomb.json.gz").write_bytes(gzip.compress(raw[:-2] + pad + raw[-2:], compresslevel=1))
    err = refused(tmp_path, wh, "bomb.json.gz", needles=("bomb.json.gz", "WALLTIME_INFLATE_MAX", "8,000,000"),
                  env=bound)
    assert "MemoryError" not in err
    yraw = YAML_DUMP.read_bytes()
    (tmp_path / "bomb.yaml.gz").write_bytes(gzip.compress(yraw + b"\n" * (48 << 20), compresslevel=1))
    refused(tmp_path, wh, "bomb.yaml.gz", needles=("bomb.yaml.gz", "WALLTIME_INFLATE_MAX"), env=bound)
    # the same real dumps without the padding load under the same bound
    (tmp_path / "lab.json.gz").write_bytes(gzip.compress(raw))
    assert loaded(tmp_path, wh, "lab.json.gz", env=bound)["jobs"] == 41
    (tmp_path / "laby.yaml.gz").write_bytes(gzip.compress(yraw))
    assert loaded(tmp_path, wh, "laby.yaml.gz", "--format", "sacct-yaml", env=bound)["jobs"] == 41


# --- 2. YAML anchors and aliases ---------------------------------------------------------------

def _yaml_with(old: str, new: str, count: int = 1) -> str:
    text = YAML_DUMP.read_text()
    assert text.count(old) >= count
    return text.replace(old, new, count)


def test_yaml_aliases_in_a_job_name_are_refused(wh, tmp_path):
    text = _yaml_with("  !!str name: !!str rq_twice\n", "  !!str name: &n !!str rq_twice\n")
    text = text.replace("  !!str name: !!str victim\n", "  !!str name: *n\n", 1)
    (tmp_path / "alias.yaml").write_text(text)
    refused(tmp_path, wh, "alias.yaml", needles=("alias.yaml:", "alias", "anchor"))


def test_yaml_billion_laughs_in_the_jobs_array_is_refused(wh, tmp_path):
    laughs = ["- &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"- &l{k} [" + ", ".join([f"*l{k - 1}"] * 10) + "]" for k in range(1, 5)]
    text = _yaml_with("!!str jobs: !!seq\n", "!!str jobs: !!seq\n" + "\n".join(laughs) + "\n")
    (tmp_path / "laughs.yaml").write_text(text)
    refused(tmp_path, wh, "laughs.yaml", needles=("laughs.yaml:", "alias", "anchor"))


# --- 3. job names and array bitmaps ---------------------------------------------------------------

def test_a_json_job_name_that_is_a_number_is_refused(wh, tmp_path):
    doc = lab()
    doc["jobs"][14]["name"] = 12345  # record 15, job 10
    write_json(tmp_path / "dump.json", doc)
    refused(tmp_path, wh, "dump.json", needles=("dump.json:", "record 15", "job 10", "name", "12345"))


def test_a_megabyte_array_task_bitmap_does_not_hang(wh, tmp_path):
    doc = lab()
    assert doc["jobs"][39]["array"]["task"] == "0x3F"  # record 40: job 35's pending remainder
    doc["jobs"][39]["array"]["task"] = "0x" + "F" * (1 << 20)
    write_json(tmp_path / "dump.json", doc)
    refused(tmp_path, wh, "dump.json", needles=("dump.json:", "record 40", "job 35", "array.task"), timeout=60)


def test_a_bad_array_task_bitmap_is_named(wh, tmp_path):
    doc = lab()
    doc["jobs"][39]["array"]["task"] = "0xZZ"
    write_json(tmp_path / "dump.json", doc)
    err = refused(tmp_path, wh, "dump.json", needles=("dump.json:", "record 40", "job 35", "array.task", "0xZZ"))
    assert "invalid literal" not in err


# --- 4. the cluster is part of a job's identity ----------------------------------------------------

def test_the_same_job_id_on_two_clusters_is_two_jobs(wh, tmp_path):
    doc = lab()
    other = json.loads(json.dumps(doc["jobs"]))
    for j in other:
        j["cluster"] = "other"
        j["association"]["cluster"] = "other"
    doc["jobs"] += other  # sacct --json -M lab,other: the same ids on both clusters
    write_json(tmp_path / "two.json", doc)
    got = loaded(tmp_path, wh, "two.json")
    assert got["jobs"] == 82
    assert got["counts"]["earlier_attempts"] == 10


# --- 5. values the text reader would refuse, in JSON and YAML ------------------------------------

def _start_as_text(j):
    j["time"]["start"] = {"set": True, "infinite": False, "number": str(j["time"]["start"])}


def _cpu(j, value):
    next(t for t in j["tres"]["allocated"] if t["type"] == "cpu")["count"] = value


JSON_CASES = {
    "a start time past 64 bits": (14, lambda j: j["time"].update(start=2**64 - 1), ("record 15", "job 10",
                                                                                    "time.start")),
    "a CPU count past 64 bits": (14, lambda j: _cpu(j, 2**63 + 5), ("record 15", "job 10", "tres.allocated cpu")),
    "a negative CPU count in an earlier attempt": (4, lambda j: _cpu(j, -2), ("record 5", "job 21",
                                                                               "tres.allocated cpu", "-2")),
    "a job id that is not a number": (14, lambda j: j.update(job_id="ten"), ("record 15", "job_id", "ten")),
    "a number object holding text": (14, _start_as_text, ("record 15", "job 10", "time.start")),
}


@pytest.mark.parametrize("case", sorted(JSON_CASES))
def test_json_values_out_of_range_or_of_the_wrong_kind_are_refused(case, wh, tmp_path):
    k, spoil, needles = JSON_CASES[case]
    doc = lab()
    spoil(doc["jobs"][k])
    write_json(tmp_path / "dump.json", doc)
    refused(tmp_path, wh, "dump.json", needles=("dump.json:", *needles))


def test_an_exact_duplicate_json_record_is_refused(wh, tmp_path):
    doc = lab()
    doc["jobs"].insert(15, json.loads(json.dumps(doc["jobs"][14])))  # record 16 repeats record 15 (job 10)
    write_json(tmp_path / "dump.json", doc)
    refused(tmp_path, wh, "dump.json", needles=("dump.json:", "record 16", "job 10", "duplicate of record 15"))


def test_a_nan_start_time_in_yaml_is_refused(wh, tmp_path):
    text = YAML_DUMP.read_text()
    doc = lab()
    start = doc["jobs"][14]["time"]["start"]  # record 15, job 10
    at = -1
    for _ in range(15):  # record 15's own time (its steps' come after it)
        at = text.index("\n- !!map\n", at + 1)
    old = f"\n    !!str start: !!int {start}\n"
    k = text.index(old, at)
    (tmp_path / "nan.yaml").write_text(text[:k] + "\n    !!str start: !!float .nan\n" + text[k + len(old):])
    refused(tmp_path, wh, "nan.yaml", needles=("nan.yaml:", "record 15", "job 10", "time.start"))


# --- 6. sacct text: attempts, counts, epochs -------------------------------------------------------

def test_overlapping_attempts_in_a_text_dump_are_refused(wh, tmp_path):
    lines, header = text_lines("attempts-sacct-D.txt")
    assert lines[1].startswith("21|") and lines[31].startswith("21|")  # job 21: REQUEUED (line 2), COMPLETED (32)
    # the first attempt now ends at 14:39:20, after the second one started (14:39:05)
    (tmp_path / "d.txt").write_text("\n".join(set_field(lines, header, 2, "End", "2026-11-27T14:39:20")))
    refused(tmp_path, wh, "d.txt", "--format", "sacct", needles=("d.txt:32:", "Start", "line 2"))


def test_a_twenty_digit_cpu_count_in_a_text_dump_is_refused(wh, tmp_path):
    lines, header = text_lines("attempts-sacct-D.txt")
    (tmp_path / "d.txt").write_text("\n".join(set_field(lines, header, 2, "NCPUS", "9" * 20)))
    refused(tmp_path, wh, "d.txt", "--format", "sacct", needles=("d.txt:2:", "NCPUS", "9" * 20))


def test_an_eligible_epoch_out_of_range_names_its_line(wh, tmp_path):
    lines, header = text_lines("attempts-sacct-D-epoch.txt")
    (tmp_path / "d.txt").write_text("\n".join(set_field(lines, header, 17, "Eligible", "99999999999")))
    refused(tmp_path, wh, "d.txt", "--format", "sacct", needles=("d.txt:17:", "Eligible", "99999999999"))


# --- 7. a last record on one line ------------------------------------------------------------------

def test_a_json_dump_whose_last_record_is_on_one_line_loads(wh, tmp_path):
    raw = JSON_DUMP.read_text()
    s = raw.rindex("\n    {\n") + 1
    e = raw.index("\n    }\n  ]", s) + len("\n    }")
    last = json.loads(raw[s:e])
    (tmp_path / "one.json").write_text(raw[:s] + "    " + json.dumps(last) + raw[e:])
    got = loaded(tmp_path, wh, "one.json")
    assert got["jobs"] == 41 and got["counts"]["earlier_attempts"] == 5


# --- 8. the right line under a detected %s ---------------------------------------------------------

def test_a_bad_unix_time_among_good_ones_names_its_own_line(wh, tmp_path):
    lines, header = text_lines("attempts-sacct-D-epoch.txt")
    (tmp_path / "d.txt").write_text("\n".join(set_field(lines, header, 17, "Submit", "17957902x5")))
    refused(tmp_path, wh, "d.txt", "--format", "sacct", needles=("d.txt:17:", "Submit", "17957902x5"))
