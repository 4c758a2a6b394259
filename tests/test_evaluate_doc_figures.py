"""docs/evaluate.md's opening figures against docs/evaluate-results.md (issue 44, item 4).

evaluate-results.md is written by `walltime evaluate --markdown`; the opening
of docs/evaluate.md is typed. This test parses the results file, renders the
per-trace lines the opening must hold (`render`) and fails when a line of the
opening's block differs, or when any other number in the block is not one
the results file states. Regenerate the results, run this test, and paste
what it prints as expected.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "evaluate-results.md"
DOC = ROOT / "docs" / "evaluate.md"
BEGIN = "<!-- current figures:"
END = "<!-- end of current figures -->"
LEARNED = "learned (gradient-boosted trees)"
AVE2 = "Tsafrir ave2 + correction"
EXACT = "exact runtimes"
COLUMNS = {"best learned": "best learned (E-Loss)", "cross-validated": "Gaussier et al.'s cross-validated"}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(text: str) -> dict[str, dict]:
    """Per trace: its estimator rows under EASY++ (reduction, spread, chosen), its published rows for
    the learned family over the whole trace, and the section's sentences."""
    out: dict[str, dict] = {}
    for sec in re.split(r"^## ", text, flags=re.M)[1:]:
        name = sec.split(" ", 1)[0]
        t = out[name] = {"est": {}, "pub": {}, "text": sec}
        head = None  # the published table's columns, by name (pipeline/evaluate COMPARE_HEAD)
        for line in sec.splitlines():
            if not line.startswith("| ") or line.startswith("| ---"):
                continue
            c = _cells(line)
            if c[0] == "published column":
                head = c
            elif len(c) == 10 and c[1] == "EASY++" and c[0] != "estimator":
                lo, hi = c[7].split(" to ")
                t["est"][c[0]] = {"chosen": c[2], "red": c[6], "lo": lo, "hi": hi}
            elif head and len(c) == len(head) and c[2] == LEARNED and c[3] == "the whole trace":
                r = dict(zip(head, c))
                key = next(k for k, v in COLUMNS.items() if c[0].startswith(v))
                t["pub"][key] = {"pub": r["published"], "ours": r["ours (%)"], "diff": r["difference (points)"],
                                 "verdict": r["verdict"], "spread": r[head[11]], "within": r["published within it"],
                                 "base": r["EASY with the requests, AVEbsld: ours"], "base_pyss": r["pyss's"],
                                 "gap": r["baselines' gap (points)"]}
    return out


def _end(r: dict) -> str:
    if r["red"] == r["hi"]:
        return "; the logged replay is its top"
    if r["red"] == r["lo"]:
        return "; the logged replay is its bottom"
    return ""


def _against_ave2(le: dict, av: dict) -> str:
    if float(le["lo"]) > float(av["hi"]):
        return "learned is above ave2 beyond both spreads"
    if float(le["hi"]) < float(av["lo"]):
        return "learned is below ave2 beyond both spreads"
    side = "above" if float(le["red"]) > float(av["red"]) else "below"
    return f"learned is {side} ave2 in the logged replay, and the spreads overlap"


def _published(key: str, p: dict) -> str:
    where = "inside" if p["within"] == "yes" else "outside"
    diff = abs(float(p["diff"]))
    side = "above" if float(p["diff"]) > 0 else "below"
    said = {"beats": f"beats it by {diff:.1f} points", "below": f"is below it by {diff:.1f} points",
            "ties": "ties with it",
            "level": f"is level with it, {diff:.1f} points {side} but within the baselines' {p['gap']}-point gap"
            }[p["verdict"]]
    return f"{key} {p['pub']}% (learned {said} in the logged replay; {p['pub']} lies {where} our spread)"


def render(parsed: dict[str, dict]) -> list[str]:
    """The opening's lines: one per trace, then the tally over the traces with a published cell."""
    lines = []
    below = level = with_best = 0
    for name, t in parsed.items():
        le, av, ex = t["est"][LEARNED], t["est"][AVE2], t["est"][EXACT]
        line = (f"- **{name}**: learned {le['red']}% (spread {le['lo']} to {le['hi']}{_end(le)}), "
                f"ave2 {av['red']}% ({av['lo']} to {av['hi']}), exact runtimes {ex['red']}%; "
                f"{_against_ave2(le, av)}.")
        pubs = [_published(k, t["pub"][k]) for k in COLUMNS if k in t["pub"]]
        if "best learned" in t["pub"]:
            with_best += 1
            best = t["pub"]["best learned"]
            below += best["verdict"] == "below"
            level += best["verdict"] == "level"
            if "cross-validated" not in t["pub"]:
                pubs.append("no cross-validated cell (pyss's run of it did not complete)")
            line += (" Published: " + "; ".join(pubs) + f". EASY with the requests: AVEbsld {best['base']} here, "
                     f"{best['base_pyss']} in pyss.")
        else:
            line += " No published cell."
        lines.append(line)
    lines.append(f"Learned is below the published best learned cell on {below} of the {with_best} traces "
                 f"that have one, and level with it on {level} (within the two baselines' gap).")
    return lines


def _block() -> str:
    doc = DOC.read_text()
    assert BEGIN in doc and END in doc, "docs/evaluate.md lost its current-figures block"
    return doc.split(BEGIN, 1)[1].split(END, 1)[0]


def test_the_opening_lines_are_the_results_files():
    block = _block()
    expected = render(parse(RESULTS.read_text()))
    got = [ln for ln in block.splitlines() if ln.startswith("- **") or ln.startswith("Learned is below")]
    assert got == expected, "docs/evaluate.md's opening differs from docs/evaluate-results.md; expected:\n" + \
        "\n".join(expected)


def test_every_number_in_the_opening_is_in_the_results_file():
    """... or is the verdict's tie threshold, which the code states (published.TIE)."""
    from pipeline.evaluate.published import TIE

    block = _block()
    results = RESULTS.read_text()
    assert f"more than {TIE} points either way" in " ".join(block.split())
    for num in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?", block):
        assert num in results or float(num) == TIE, \
            f"{num} in docs/evaluate.md's opening is not in docs/evaluate-results.md"


def test_the_openings_words_on_noise_and_overrun_match_the_run():
    block = " ".join(_block().split())
    parsed = parse(RESULTS.read_text())
    # the spread the opening describes is the one every section's sentence states
    assert "the logged replay and 5 replays with every arrival moved up to 60 s later" in block
    for t in parsed.values():
        assert "over that replay and 5 with every arrival moved up to 60 s later" in t["text"]
    # "every learned and ave2 configuration chosen under EASY++ takes the request at the first overrun"
    assert "every learned and ave2 configuration chosen under EASY++ corrects an overrun with the request" in block
    for t in parsed.values():
        for fam in (LEARNED, AVE2):
            assert t["est"][fam]["chosen"].endswith("(overrun: request)"), (fam, t["est"][fam]["chosen"])


def test_the_parser_finds_every_row_the_opening_needs():
    parsed = parse(RESULTS.read_text())
    assert len(parsed) >= 4
    for name, t in parsed.items():
        assert {LEARNED, AVE2, EXACT} <= set(t["est"]), name
    assert sum("best learned" in t["pub"] for t in parsed.values()) >= 4


def test_the_sdsc_sp2_draws_quoted_after_the_opening_agree_with_the_results_file():
    """The draws are not in the results file (only their range): they must span it, and the count of
    replays above the cross-validated cell must follow from them."""
    doc = " ".join(DOC.read_text().split(END, 1)[1].split("## ", 1)[0].split())
    m = re.search(r"The five draws behind the learned spread give (-?[\d.]+), (-?[\d.]+), (-?[\d.]+), "
                  r"(-?[\d.]+) and (-?[\d.]+)% \(the logged replay (-?[\d.]+)%\), so learned is above the "
                  r"cross-validated ([\d.]+)% in (\d) of the (\d) replays", doc)
    assert m, "the SDSC-SP2 draws sentence after the opening changed its form"
    *draws, logged, cv, above, of = m.groups()
    values = [float(v) for v in [*draws, logged]]
    t = parse(RESULTS.read_text())["SDSC-SP2"]
    le, pub = t["est"][LEARNED], t["pub"]["cross-validated"]
    assert (logged, cv) == (le["red"], pub["pub"])
    assert (min(values), max(values)) == (float(le["lo"]), float(le["hi"]))
    assert int(of) == len(values) and int(above) == sum(v > float(cv) for v in values)
