"""Tang, Desai, Buettner, Lan (JPDC 73, 2013): the numbers the paper prints or
states in its text for Intrepid, typed in once from
shared/papers/001_60ce35f1a0dda5a7.txt (Section 3-6). Each entry:
id -> Published(ref, what, value[, hi], unit). Shares in percent.
"""

from .core import Published as P

R = {
    "mean_r": P("Fig. 1 text", "mean R = actual / requested", 0.50),
    "share_r_lt_0_2": P("Fig. 1 text", "jobs with R < 0.2", 28.0, unit="%"),
    "share_r_gt_0_8": P("Fig. 1 text", "jobs with R > 0.8", 25.0, unit="%"),
}
# Fig. 2 text: "The average R values of all jobs are 0.50, with a standard deviation of 0.33. The
# average by quarters ranges from 0.42 to 0.59."
FIG2 = {
    "std_r": P("Fig. 2 text", "standard deviation of R over all jobs", 0.33),
    "lowest": P("Fig. 2 text", "lowest quarterly mean R", 0.42),
    "highest": P("Fig. 2 text", "highest quarterly mean R", 0.59),
}
# Table 2: average standard deviation of R within the groups of each key
STD_R = {"all": 0.335, "project": 0.308, "user": 0.294, "user_project": 0.285, "user_project_req": 0.253}

FIG4 = {
    "acc_p70": P("Fig. 4 text", "mean accuracy, triple key, p70, window all", 0.679),
    "gain_p70": P("Fig. 4 text", "gain of that over the requests' accuracy (0.50)", 35.0, unit="%"),
}
FIG5 = {  # triple key, percentiles 80-90 (checked at p90, p85 and p80)
    "acc": P("Fig. 5 text", "mean accuracy, triple key, p85 (p80-p90: larger than 0.6)", 0.6),
    "oe": P("Fig. 5 text", "OE share, triple key, p85 (p80-p90: above 50%)", 50.0, unit="%"),
    "be": P("Fig. 5 text", "BE share, triple key, p85 (p80-p90: 1.2%-2.2%)", 1.2, 2.2, unit="%"),
    "ue": P("Fig. 5 text", "UE share, triple key, p85 (p80-p90: 9%-17%)", 9.0, 17.0, unit="%"),
}
FIG5_TREND = P("Fig. 5 text", "as the percentile gets smaller: NA declines, UE and BE increase, OE first "
                "increases then drops, accuracy tends to increase", 0.0)
FIG5_DOUBLE = P("Fig. 5 text", "double key: OE share higher than the triple key's after the 90th percentile", 0.0)
FIG6 = P("Fig. 6 text", "drop of the underestimated share with the floor A >= 0.5, triple key", 17.0, 35.0, unit="%")
# Fig. 7 (double key, floor 0.5): "can reduce the proportion of underestimated jobs
# with average accuracy slightly decreased" (no numbers; "slight" read as < 5%).
FIG7 = {
    "under": P("Fig. 7 text", "drop of the underestimated share with the floor A >= 0.5, double key", 0.0, unit="%"),
    "acc": P("Fig. 7 text", "drop of the mean accuracy with the floor A >= 0.5, double key", 0.0, unit="%"),
    "slight": P("Fig. 7 text", "that accuracy drop is slight (our reading: under 5%)", 5.0, unit="%"),
}
FIG10 = P("Fig. 10 text", "drop of the UE share, one-month window vs all history, triple key, percentiles < 90",
          10.0, 15.0, unit="%")
FIG11 = {
    "p85": P("Fig. 11 text", "median accuracy, triple key, p85", 0.71),
    "median": P("Fig. 11 text", "median accuracy, triple key, median scheme", 0.68),
    "original": P("Fig. 11 text", "median accuracy of the requests", 0.50),
    "gain": P("Fig. 11 text", "p85's median accuracy over the requests'", 42.0, unit="%"),
}
FIG13 = {
    "original": P("Fig. 13 text", "mean accuracy of the requests", 0.50),
    "scheme": P("Fig. 13 text", "mean accuracy of the one-month schemes (all above 0.6)", 0.6),
}
# Figs. 14-17 (d): average gain over the months, percent (positive = better than
# the requests), (wait, slowdown, weighted wait). Section 6.2 text: Fig. 14 WFP
# regular: p85 about 15 / 16 / 19; Fig. 15 WFP selective: p85 22 / 22 / 28;
# Fig. 17 FCFS selective: p85 about 20 / 20 / "slightly over 15".
GAINS = {
    ("wfp", "regular", "p85"): ("Fig. 14(d)", 15.0, 16.0, 19.0),
    ("wfp", "selective", "p85"): ("Fig. 15(d)", 22.0, 22.0, 28.0),
    ("fcfs", "selective", "p85"): ("Fig. 17(d)", 20.0, 20.0, 15.0),
}
# Fig. 16 (FCFS regular): "the average relative gains are not consistent": the
# best, p95, gains 2% on wait; the worst, p70, -8% on slowdown; others within -4%.
FCFS_REGULAR = P("Fig. 16(d) text", "gain, FCFS regular adjustment (every scheme and metric)", -8.0, 2.0, unit="%")
HEADLINE_TOL = 5.0  # points, for the abstract's WFP selective p85 numbers
# Figs. 14-17 (a)-(c), month by month (Section 6.2 text; Intrepid, 12 months). Each
# entry: (ref, statement, low, high) on the percent of months (or of points) that do.
MONTHS = {
    "wfp.regular.p85.wait.under": ("Fig. 14(a) text", "p85 performs more consistently well under the baseline "
                                   "(the exceptions are p95's and p70's)", 100.0, 100.0),
    "wfp.regular.p95.wait.under": ("Fig. 14(a) text", "waits mostly under the baseline, a few exceptions from p95 "
                                   "and p70 on 3 of 12 months", 75.0, 100.0),
    "wfp.regular.p70.wait.under": ("Fig. 14(a) text", "waits mostly under the baseline, a few exceptions from p95 "
                                   "and p70 on 3 of 12 months", 75.0, 100.0),
    "wfp.regular.slowdown.under": ("Fig. 14(b) text", "slowdown: similar plot, a few exceptions (most months under "
                                   "the baseline)", 50.0, 100.0),
    "wfp.regular.weighted_wait.under": ("Fig. 14(c) text", "weighted wait: similar plot, a few exceptions (most "
                                        "months under the baseline)", 50.0, 100.0),
    "wfp.selective.p85.over20": ("Fig. 15 text", "p85: for most months over 20% improvement (under 80 for wait and "
                                 "weighted wait, under 8 for slowdown)", 50.0, 100.0),
    "fcfs.regular.within10": ("Fig. 16(a) text", "the schemes oscillate around the baseline, mostly within 10% of it",
                              50.0, 100.0),
    "fcfs.selective.wait.under": ("Fig. 17 text", "the schemes' lines are mostly under the baseline", 50.0, 100.0),
    "fcfs.selective.none_worse": ("Fig. 17 text", "for p85 and p70 no performance degradation in a single month",
                                  100.0, 100.0),
}
MONTHS_BEST = ("Fig. 14(a) text", "best month of p85's WFP regular wait gain (1009: saves 40%)", 40.0)
MONTHS_FEWER_ABOVE = ("Fig. 15 text", "points above the baseline: selective has fewer than regular (WFP)")
