/* plot: gnuplot SVG plots of a run directory (latency histogram with log counts, latency over cycle,
 * tick timeline) and of a sweep (strip plots, tick timelines). Without gnuplot: a note, never a failure. */
#ifndef JL_PLOT_H
#define JL_PLOT_H

#include <json-c/json.h>
#include <stddef.h>

/* Plot RUN_DIR (reads its samples.csv and summary.json, writes *.svg next to them).
 * Returns the number of plots written (>= 0), or -1 with ERR set; 0 with ERR set to a note when
 * gnuplot is missing. */
int jl_plot_run(const char *run_dir, char *err, size_t errlen);

/* Plots of a sweep (SWEEP is its sweep.json document), per measured thread: SWEEP_DIR/strip-THREAD.svg,
 * one panel per compared metric, every run's value per condition with the mean marked; and
 * SWEEP_DIR/ticks-THREAD.svg, the tick timeline (one mark per completed cycle, end times) of the first
 * 0.6 s of the measured phase of each condition's first usable run, one row per condition labelled with
 * its achieved rate. Same returns as jl_plot_run. */
int jl_plot_sweep(const char *sweep_dir, json_object *sweep, char *err, size_t errlen);

#endif
