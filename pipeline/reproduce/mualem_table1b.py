"""Mu'alem & Feitelson Table 1(b): the rows the text extraction scattered.

Why: in shared/papers/002_a702096495f6038a.txt the first 20 rows of Table 1(b)
(SDSC Paragon, Jan 1995 - Aug 1996) are printed as rows, but the last 24 rows
(Paragon Sep-Dec 1996, then every LANL-CM5 row) come out as one list per column,
in the order the extraction read them (lines 245-595 of that file). The values
are all there; this module types each list in once, as printed, and rebuilds
the rows, so the reconstruction is code that a test can check:

- row order: the month column reads "sep oct nov dec" (Paragon) then "oct dec
  jan ... may" with one "nov" lost (CM5 from Oct 1994: 20 months, Oct 1994 -
  May 1996, fits the 20 values of every other column);
- the response-time lists come out cons first, then EASY: with that reading the
  printed difference (cons / EASY - 1, as in the printed rows) agrees with every
  row; the bounded-slowdown lists come out EASY first;
- one entry of the response-time difference list is out of place: its last value
  (+23.0%) belongs to row 14 (CM5 Jul 1995). The two value lists agree with
  each other in the printed order, and that order ranks with the table's own
  bounded-slowdown and load columns better than the alternative (the difference
  list's order); :func:`evidence` computes both.
"""

from __future__ import annotations

import statistics

# The lists as the text prints them (top to bottom of each column).
RESP_CONS = [10693, 10030, 7964, 13108, 5543, 20519, 8011, 7811, 8295, 5577, 8023, 22673, 18735, 21747, 6160, 17467,
             6136, 8919, 6457, 4217, 3406, 5758, 6184, 10038]
RESP_EASY = [10568, 10051, 7978, 13078, 5564, 20270, 7856, 7433, 8211, 5643, 7894, 23954, 18093, 17679, 6284, 17678,
             6109, 8411, 6274, 4169, 3358, 5763, 5616, 9030]
RESP_DIFF = [1.2, -0.2, -0.2, 0.2, -0.4, 1.2, 2.0, 5.1, 1.0, -1.2, 1.6, -5.3, 3.5, -2.0, -1.2, 0.4, 6.0, 2.9, 1.2,
             1.4, -0.1, 10.1, 11.2, 23.0]
BSLD_EASY = [41.0, 19.7, 1.9, 1.5, 30.7, 102.6, 32.9, 24.2, 28.8, 24.7, 34.6, 148.2, 124.5, 135.8, 101.6, 110.0,
             39.2, 28.2, 22.5, 16.1, 9.6, 20.1, 28.9, 54.7]
BSLD_CONS = [36.2, 15.2, 1.5, 1.8, 27.2, 84.3, 31.5, 25.9, 27.3, 20.3, 26.8, 125.5, 107.3, 112.4, 44.3, 89.9, 31.1,
             26.9, 25.0, 14.2, 8.5, 18.9, 36.0, 67.3]
BSLD_DIFF = [-11.7, -22.7, -19.9, 21.1, -11.2, -17.8, -4.3, 7.2, -5.1, -17.9, -22.7, -15.3, -13.8, -17.2, -56.4,
             -18.2, -20.6, -4.9, 11.4, -12.0, -10.9, -6.3, 24.7, 22.9]
JOBS = [2050, 2670, 2831, 2123, 5746, 6069, 4702, 3323, 4413, 4754, 4747, 4717, 5608, 6457, 6181, 5678, 5087, 3706,
        4003, 4110, 3842, 4111, 4300, 4832]
LOAD = [0.570, 0.537, 0.429, 0.430, 0.686, 0.884, 0.700, 0.647, 0.711, 0.673, 0.782, 0.779, 0.886, 0.902, 0.730,
        0.802, 0.788, 0.818, 0.703, 0.601, 0.461, 0.715, 0.788, 0.807]
PAR_MONTHS = ["1996-09", "1996-10", "1996-11", "1996-12"]
CM5_MONTHS = [f"{y}-{m:02d}" for y, m in [(1994, 10), (1994, 11), (1994, 12)] + [(1995, m) for m in range(1, 13)]
              + [(1996, m) for m in range(1, 6)]]
MOVED_FROM, MOVED_TO = 23, 13  # the response-time difference list: last entry belongs to row 14


def resp_diff_in_row_order() -> list[float]:
    d = list(RESP_DIFF)
    d.insert(MOVED_TO, d.pop(MOVED_FROM))
    return d


def rows() -> dict[str, list[tuple]]:
    """{trace label: [(month, load, jobs, resp EASY, resp cons, bsld EASY, bsld cons)]}, as TABLE1B."""
    out = [(m, LOAD[i], JOBS[i], RESP_EASY[i], RESP_CONS[i], BSLD_EASY[i], BSLD_CONS[i])
           for i, m in enumerate(PAR_MONTHS + CM5_MONTHS)]
    return {"SDSC-Par 1996": out[:4], "LANL-CM5": out[4:]}


def agreement() -> dict[str, int]:
    """How many of the 24 rebuilt rows agree with the printed differences (to the printed
    rounding: 0.05 points, widened by the rounding of the two values for small slowdowns)."""
    def ok(easy, cons, diff, half):
        lo = 100 * ((cons - half) / (easy + half) - 1)
        hi = 100 * ((cons + half) / (easy - half) - 1)
        return lo - 0.05 <= diff <= hi + 0.05
    rd = resp_diff_in_row_order()
    return {
        "rows": len(JOBS),
        "resp": sum(ok(e, c, d, 0.5) for e, c, d in zip(RESP_EASY, RESP_CONS, rd)),
        "resp_as_printed": sum(ok(e, c, d, 0.5) for e, c, d in zip(RESP_EASY, RESP_CONS, RESP_DIFF)),
        "bsld": sum(ok(e, c, d, 0.05) for e, c, d in zip(BSLD_EASY, BSLD_CONS, BSLD_DIFF)),
    }


def _rank(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0] * len(v)
    for k, i in enumerate(order):
        r[i] = k
    return r


def evidence() -> dict[str, float]:
    """Rank correlation, over the 20 CM5 rows, of EASY response time with EASY bounded
    slowdown and with load, for the value lists in their printed order and in the order of
    the difference list (the other way to resolve the one displaced entry)."""
    alt = list(range(len(JOBS)))
    alt.insert(MOVED_FROM, alt.pop(MOVED_TO))  # values follow the difference list instead
    out = {}
    for name, order in (("printed", list(range(len(JOBS)))), ("alternative", alt)):
        easy = [RESP_EASY[order[i]] for i in range(4, len(JOBS))]
        out[f"{name}_vs_bsld"] = statistics.correlation(_rank(easy), _rank(BSLD_EASY[4:]))
        out[f"{name}_vs_load"] = statistics.correlation(_rank(easy), _rank(LOAD[4:]))
    return out


def par_reading(s, con, trace: str, short: str) -> None:
    """Why the Par 1996 months hold fewer jobs yet a higher offered load than the
    paper's, from the log's own header (its cleaning filters and conversion date)
    and the section's Table 1(b) checks: dropping jobs can only lower a month's
    load, so the higher loads come from the job records, not from the cleaning."""
    import re

    from .core import Explanation

    tag = f"mualem.t1b.{short.replace(' ', '')}."
    checks = {c.id: c for c in s.checks() if c.id.startswith(tag)}
    months = sorted({i[len(tag):].split(".")[0] for i in checks})
    pairs = [(checks.get(f"{tag}{m}.jobs"), checks.get(f"{tag}{m}.load")) for m in months]
    pairs = [(j, ld) for j, ld in pairs if j and ld and None not in (j.ours, j.paper, ld.ours, ld.paper)]
    if not pairs:
        return
    head = con.execute("SELECT header_raw FROM traces WHERE trace = ?", [trace]).fetchone()
    head = (head and head[0]) or ""
    removed = [int(n) for n in re.findall(r"\((\d+) jobs removed\)", head)]
    conv = re.search(r"Conversion:.*?(\d{1,2} \w{3} \d{4})", head)
    fewer_more = [(j, ld) for j, ld in pairs if j.ours < j.paper and ld.ours > ld.paper]
    ratios = [ld.ours / ld.paper for _, ld in fewer_more]
    ours_n, paper_n = sum(j.ours for j, _ in pairs), sum(j.paper for j, _ in pairs)
    text = (f"{short}: in {len(fewer_more)} of {len(pairs)} months our log holds fewer jobs yet a higher offered "
            f"load than the paper's ({sum(1 for j, _ in pairs if j.ours < j.paper)} months with fewer jobs; "
            f"{ours_n:,.0f} jobs against {paper_n:,.0f} over these months). The log's header names "
            + (f"{len(removed)} cleaning filters that removed {sum(removed):,} jobs ({', '.join(f'{n:,}' for n in removed)})"
               if removed else "no cleaning filter")
            + (f" and a conversion of {conv.group(1)}, after the paper" if conv else "")
            + ": removing jobs explains the missing jobs but can only lower a month's load, so the higher loads "
            + (f"(ours / paper {min(ratios):.2f} to {max(ratios):.2f}, not one factor, so not a different machine "
               "size either) " if ratios else "")
            + "come from the job records themselves, the run times and sizes of the reconverted log.")
    ids = [c.id for pair in fewer_more for c in pair] or [c.id for pair in pairs for c in pair]
    s.add(Explanation(text, ids))
