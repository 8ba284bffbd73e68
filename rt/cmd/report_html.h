/* report_html: report.html, one self-contained page per run (issue 45), made from the data alone: the
 * run's summary.json as written, its samples.csv reduced per series (each of 800 columns' min and max
 * latency, the latency and period histograms, every miss up to 2,000 and every explained cycle), and the
 * registries that say what each summary key, part kind and exit status means. The page is that data as
 * inline JSON (< > & escaped) and one inline script (report_html.js, in the binary) that draws the tables
 * and SVG plots with DOM calls only, under a Content-Security-Policy that allows nothing but its own
 * nonce'd style and script: no network, no other script, whatever a name in the run holds. */
#ifndef JL_REPORT_HTML_H
#define JL_REPORT_HTML_H

#include <json-c/json.h>
#include <stddef.h>

/* DIR/report.html from SUMMARY and DIR/samples.csv (absent: the page says so). 0, or -1 with ERR. */
int jl_report_html_run(const char *dir, json_object *summary, char *err, size_t errlen);
/* OUT/report.html: the N runs DIRS (their summaries SUMS) on one page, side by side. 0, or -1 with ERR. */
int jl_report_html_runs(const char *out, char *const *dirs, json_object *const *sums, int n, char *err, size_t errlen);
/* A sweep's DIR/report.html from its SWEEP (sweep.json): each condition's table, strip plots of every
 * metric's runs, the factor effects, the pooled tails, the verdicts. 0, or -1 with ERR. */
int jl_report_html_sweep(const char *dir, json_object *sweep, char *err, size_t errlen);

/* DIR/report.html for the comparison CMP (compare.json): its own page, or, in a sweep's directory, the sweep's
 * page again with the comparison in it. 0, or -1 with ERR. */
int jl_report_html_compare(const char *dir, json_object *cmp, char *err, size_t errlen);

#endif
