-- Month, offered load and users of one trace, in month order. $1 = trace.
SELECT month, offered_load, users FROM report_load_month WHERE trace = $1 ORDER BY month;
