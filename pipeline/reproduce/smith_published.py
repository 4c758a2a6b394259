"""Smith, Taylor & Foster 1999 (JSSPP, "Using run-time predictions to estimate queue wait times and
improve scheduler performance"): the numbers the paper prints, typed in once from
shared/papers/004_7f336200b36b0d78.txt. Only the CTC and SDSC96 rows (the paper's ANL and SDSC95
logs are not in the shared traces).

WAIT: Tables 4-9, (workload, predictor, algorithm) -> (table, run error min, run error % of mean run,
wait error min, wait error % of mean wait); Table 4 (actual run times) has no run-time columns.
SCHED: Tables 10-15, -> (table, run error min, run error %, utilisation %, mean wait min).
"""

from .core import Published as P

# Table 1: the CTC log, "2 months of 1996"
CTC_LOG = {"jobs": P("Table 1", "jobs in the CTC log", 13217),
           "mean_run_min": P("Table 1", "mean run time (min)", 171.14, unit="min")}
SDSC96_JOBS = P("Table 1", "jobs in the SDSC96 log", 22337)
SDSC96_MEAN_RUN = P("Table 1", "SDSC96 mean run time (min)", 166.98, unit="min")
# Section 4 text: compressed SDSC workloads (interarrivals x 0.5), Smith's mean wait against
# Gibbons' and Downey's: "8 percent better on average, 43 percent lower to 31 percent higher"
# Section 3, on Table 4: "No data is shown for the FCFS algorithm because there is no error when
# computing wait-time predictors in this case" (actual run times)
FCFS_EXACT = P("Table 4 text", "FCFS: wait-time error with actual run times (min)", 0.0, unit="min")
COMPRESSED = P("Section 4 text", "mean wait, Smith vs Gibbons/Downey, compressed SDSC (average %)", -8.0,
               unit="%")

WAIT = {
    ('CTC', 'actual', 'LWF'): (4, None, None, 4.05, 39),
    ('CTC', 'actual', 'Backfill'): (4, None, None, 2.62, 10),
    ('SDSC96', 'actual', 'LWF'): (4, None, None, 3.32, 42),
    ('SDSC96', 'actual', 'Backfill'): (4, None, None, 0.3, 3),
    ('CTC', 'request', 'FCFS'): (5, 243.97, 143, 125.36, 128),
    ('CTC', 'request', 'LWF'): (5, 254.57, 149, 9.86, 94),
    ('CTC', 'request', 'Backfill'): (5, 264.36, 154, 51.16, 190),
    ('SDSC96', 'request', 'FCFS'): (5, 394.66, 236, 47.83, 288),
    ('SDSC96', 'request', 'LWF'): (5, 397.3, 238, 14.19, 180),
    ('SDSC96', 'request', 'Backfill'): (5, 397.58, 238, 39.66, 350),
    ('CTC', 'smith', 'FCFS'): (6, 127.09, 74, 36.6, 37),
    ('CTC', 'smith', 'LWF'): (6, 145.3, 85, 5.58, 53),
    ('CTC', 'smith', 'Backfill'): (6, 147.97, 86, 11.85, 44),
    ('SDSC96', 'smith', 'FCFS'): (6, 57.69, 35, 10.75, 65),
    ('SDSC96', 'smith', 'LWF'): (6, 56.97, 34, 5.01, 64),
    ('SDSC96', 'smith', 'Backfill'): (6, 54.72, 33, 8.76, 77),
    ('CTC', 'gibbons', 'FCFS'): (7, 207.03, 121, 81.45, 83),
    ('CTC', 'gibbons', 'LWF'): (7, 245.92, 144, 32.34, 309),
    ('CTC', 'gibbons', 'Backfill'): (7, 242.25, 142, 13.57, 50),
    ('SDSC96', 'gibbons', 'FCFS'): (7, 157.93, 95, 22.36, 135),
    ('SDSC96', 'gibbons', 'LWF'): (7, 158.8, 95, 6.88, 87),
    ('SDSC96', 'gibbons', 'Backfill'): (7, 159.21, 95, 17.31, 153),
    ('CTC', 'downey_mean', 'FCFS'): (8, 224.88, 131, 65.22, 66),
    ('CTC', 'downey_mean', 'LWF'): (8, 255.56, 149, 14.78, 141),
    ('CTC', 'downey_mean', 'Backfill'): (8, 253.0, 148, 17.22, 64),
    ('SDSC96', 'downey_mean', 'FCFS'): (8, 439.33, 263, 83.62, 503),
    ('SDSC96', 'downey_mean', 'LWF'): (8, 453.19, 271, 28.42, 361),
    ('SDSC96', 'downey_mean', 'Backfill'): (8, 446.24, 267, 47.11, 415),
    ('CTC', 'downey_median', 'FCFS'): (9, 219.93, 129, 83.33, 85),
    ('CTC', 'downey_median', 'LWF'): (9, 260.71, 152, 15.47, 148),
    ('CTC', 'downey_median', 'Backfill'): (9, 258.77, 151, 19.35, 72),
    ('SDSC96', 'downey_median', 'FCFS'): (9, 259.48, 155, 34.23, 206),
    ('SDSC96', 'downey_median', 'LWF'): (9, 265.44, 159, 12.65, 161),
    ('SDSC96', 'downey_median', 'Backfill'): (9, 262.57, 157, 20.7, 183),
}

SCHED = {
    ('CTC', 'actual', 'LWF'): (10, None, None, 51.28, 11.15),
    ('CTC', 'actual', 'Backfill'): (10, None, None, 51.28, 23.75),
    ('SDSC96', 'actual', 'LWF'): (10, None, None, 46.79, 6.8),
    ('SDSC96', 'actual', 'Backfill'): (10, None, None, 46.79, 10.42),
    ('CTC', 'request', 'LWF'): (11, 319.82, 187, 51.28, 10.48),
    ('CTC', 'request', 'Backfill'): (11, 75.92, 44, 51.28, 26.86),
    ('SDSC96', 'request', 'LWF'): (11, 397.3, 238, 46.79, 7.88),
    ('SDSC96', 'request', 'Backfill'): (11, 387.64, 232, 46.79, 11.34),
    ('CTC', 'smith', 'LWF'): (12, 160.13, 98, 51.28, 13.4),
    ('CTC', 'smith', 'Backfill'): (12, 163.61, 96, 51.28, 22.54),
    ('SDSC96', 'smith', 'LWF'): (12, 72.58, 43, 46.79, 7.79),
    ('SDSC96', 'smith', 'Backfill'): (12, 37.82, 23, 46.79, 10.1),
    ('CTC', 'gibbons', 'LWF'): (13, 158.39, 93, 51.28, 11.04),
    ('CTC', 'gibbons', 'Backfill'): (13, 63.17, 34, 51.28, 27.31),
    ('SDSC96', 'gibbons', 'LWF'): (13, 178.12, 107, 46.79, 7.51),
    ('SDSC96', 'gibbons', 'Backfill'): (13, 47.56, 28, 46.79, 10.82),
    ('CTC', 'downey_mean', 'LWF'): (14, 167.32, 98, 51.28, 9.87),
    ('CTC', 'downey_mean', 'Backfill'): (14, 36.19, 21, 51.28, 14.45),
    ('SDSC96', 'downey_mean', 'LWF'): (14, 278.46, 167, 46.79, 7.88),
    ('SDSC96', 'downey_mean', 'Backfill'): (14, 470.91, 282, 46.79, 8.25),
    ('CTC', 'downey_median', 'LWF'): (15, 146.85, 86, 51.28, 11.54),
    ('CTC', 'downey_median', 'Backfill'): (15, 30.06, 18, 51.28, 16.72),
    ('SDSC96', 'downey_median', 'LWF'): (15, 138.44, 83, 46.79, 7.8),
    ('SDSC96', 'downey_median', 'Backfill'): (15, 275.74, 165, 46.79, 8.02),
}
