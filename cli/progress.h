/* progress.h — progress on stderr for long runs (codesign, sweep, topo
 * --search, simulate, validate, optimize --refine-with-sim): "[=====>    ]
 * 4312/10000 43% 12.3k pts/s ETA 0:00:01" redrawn on a terminal; elsewhere
 * (a log, a pipe) the same text as a plain line every PROGRESS_LOG_S
 * seconds (--progress S to choose, 0 for none), so a short run prints
 * nothing, and a run that printed some ends with its last state. */
#ifndef WEFT_CLI_PROGRESS_H
#define WEFT_CLI_PROGRESS_H

#include <stddef.h>

#define PROGRESS_LOG_S 5.0 /* seconds between progress lines when stderr is not a terminal */

typedef struct {
  int active;         /* 1: stderr is a terminal and the bar is drawn */
  int log;            /* 1: not a terminal: a line every every_s seconds */
  double every_s;     /* PROGRESS_LOG_S, or --progress's */
  double next_log_s;  /* when the next line is due (log mode) */
  int lines;          /* lines printed (log mode) */
  size_t done, total; /* the last update */
  double t0_s;        /* start (monotonic seconds) */
  int width;          /* characters of the last line drawn, to clear it */
  const char *unit;   /* "pts" */
} CliProgress;

/* Start a bar (a terminal) or the periodic lines (anything else), every
 * every_s seconds (PROGRESS_LOG_S when < 0; 0: none, and no bar either). */
void cli_progress_start(CliProgress *pg, const char *unit, double every_s);
/* --progress S: seconds between the lines, >= 0. 0, or prints why and -1. */
int cli_progress_option(const char *v, double *every_s);
/* A WeftRunSettings.progress callback: ctx is the CliProgress. */
void cli_progress_update(void *ctx, size_t done, size_t total);
/* Erase the bar (call before printing anything else to stderr); in log mode,
 * when some line was printed, one more with the last state. */
void cli_progress_end(CliProgress *pg);

/* The bar's text for done of total after elapsed_s seconds (no \r), e.g.
 * "[=====>    ] 4312/10000 43% 12.3k pts/s ETA 0:00:01". Returns buf. */
char *cli_progress_format(char *buf, size_t size, size_t done, size_t total, double elapsed_s,
                          const char *unit);

/* "512 kB", "14.5 MB", "2.10 GB" (decimal units), for the size lines. Returns buf. */
char *cli_format_bytes(char *buf, size_t size, double bytes);

#endif
