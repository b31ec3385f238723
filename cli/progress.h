/* progress.h — a progress bar on stderr for long runs (codesign, sweep):
 * "[=====>    ] 4312/10000 43% 12.3k pts/s ETA 0:00:01", only on a terminal. */
#ifndef WEFT_CLI_PROGRESS_H
#define WEFT_CLI_PROGRESS_H

#include <stddef.h>

typedef struct {
  int active;         /* 1: stderr is a terminal and the bar is drawn */
  double t0_s;        /* start (monotonic seconds) */
  int width;          /* characters of the last line drawn, to clear it */
  const char *unit;   /* "pts" */
} CliProgress;

/* Start a bar; it draws only when stderr is a terminal (quiet otherwise). */
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
