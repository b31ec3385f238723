/* progress.h — progress on stderr for long runs (codesign, sweep, topo
 * --search): "[=====>    ] 4312/10000 43% 12.3k pts/s ETA 0:00:01" redrawn
 * on a terminal; elsewhere (a log, a pipe) the same text as a plain line
 * every PROGRESS_LOG_S seconds, so a short run prints nothing. */
#ifndef WEFT_CLI_PROGRESS_H
#define WEFT_CLI_PROGRESS_H

#include <stddef.h>

#define PROGRESS_LOG_S 10.0 /* seconds between progress lines when stderr is not a terminal */

typedef struct {
  int active;         /* 1: stderr is a terminal and the bar is drawn */
  int log;            /* 1: not a terminal: a line every PROGRESS_LOG_S */
  double next_log_s;  /* when the next line is due (log mode) */
  double t0_s;        /* start (monotonic seconds) */
  int width;          /* characters of the last line drawn, to clear it */
  const char *unit;   /* "pts" */
} CliProgress;

/* Start a bar (a terminal) or the periodic lines (anything else). */
void cli_progress_start(CliProgress *pg, const char *unit);
/* A WeftRunSettings.progress callback: ctx is the CliProgress. */
void cli_progress_update(void *ctx, size_t done, size_t total);
/* Erase the bar (call before printing anything else to stderr). */
void cli_progress_end(CliProgress *pg);

/* The bar's text for done of total after elapsed_s seconds (no \r), e.g.
 * "[=====>    ] 4312/10000 43% 12.3k pts/s ETA 0:00:01". Returns buf. */
char *cli_progress_format(char *buf, size_t size, size_t done, size_t total, double elapsed_s,
                          const char *unit);

/* "512 kB", "14.5 MB", "2.10 GB" (decimal units), for the size lines. Returns buf. */
char *cli_format_bytes(char *buf, size_t size, double bytes);

#endif
