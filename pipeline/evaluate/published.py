"""What the field reports, typed once: Gaussier, Glesser, Reis & Trystram,
"Improving backfilling by using machine learning to predict running times",
SC 2015 (pyss simulator), the AVEbsld reduction against EASY with the users'
requests, in percent, all three columns under EASY++ (EASY with SJBF backfill
order and Tsafrir's correction on overrun). The learned column is their best of
about 2,900 configurations chosen with hindsight on the whole trace.

Each column is compared with one of our families under EASY++ on the whole
trace (the period their numbers cover); :func:`verdict` states the rule.
"""

from __future__ import annotations

SOURCE = "Gaussier, Glesser, Reis & Trystram, SC 2015 (pyss)"

# short trace name -> {column: reduction %}
REDUCTIONS: dict[str, dict[str, float]] = {
    "SDSC-SP2": {"ave2": 26.0, "learned": 26.0, "actual": 35.3},
    "KTH-SP2": {"ave2": 32.1, "learned": 50.5, "actual": 46.2},
    "CTC-SP2": {"ave2": 46.5, "learned": 69.4, "actual": 64.6},
    "SDSC-BLUE": {"ave2": 53.9, "learned": 54.1, "actual": 63.9},
}
# Which pyss run each column is, read from their committed metrics (algo74/predictsim,
# experiments/data/TRACE/sim_analysis/metrics, column avgbsld; EASY with requests: SDSC-SP2 87.87,
# KTH-SP2 92.58, CTC-SP2 49.57, SDSC-BLUE 36.52). The ave2 column is predictortsafrir with the
# *reqtime* corrector (the request at the first overrun): SDSC-SP2 65.06 -> 26.0%, KTH-SP2 62.86 -> 32.1%,
# CTC-SP2 26.53 -> 46.5%, SDSC-BLUE 16.83 -> 53.9%. With pyss's "tsafrir" corrector the same predictor
# gives 79.40, 63.50, 85.77, 20.99 (9.6%, 31.4%, -73.0%, 42.5%): not the published column.
COLUMNS = {  # column -> what it is
    "ave2": "Tsafrir ave2 + correction (pyss: the request at the first overrun), EASY++",
    "learned": "best learned (E-Loss), EASY++, best of ~2,900 configurations chosen with hindsight",
    "actual": "exact runtimes, EASY++",
}
TIE = 0.05  # points: a difference this small (rounding of the published one-decimal numbers) is a tie


def verdict(ours: float | None, published: float) -> str:
    """'beats' (ours above by more than TIE points), 'ties', 'below', or 'not computed'."""
    if ours is None:
        return "not computed"
    d = ours - published
    if d > TIE:
        return "beats"
    if d < -TIE:
        return "below"
    return "ties"
