/* progress.c — the progress bar: redrawn in place with \r on stderr when it
 * is a terminal, erased at the end; when stderr is a file or pipe, a plain
 * line every PROGRESS_LOG_S seconds or --progress's (none for a run shorter
 * than that; one more with the last state at the end when some were). */
#include "progress.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include <time.h>
#include <unistd.h>

#define BAR_CELLS 30

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 950, 12.3k, 4.56M: three significant figures or so. */
static void human(char *buf, size_t size, double x) {
  if (x < 1e3) snprintf(buf, size, "%.0f", x);
  else if (x < 1e6) snprintf(buf, size, "%.1fk", x / 1e3);
  else snprintf(buf, size, "%.2fM", x / 1e6);
}

char *cli_format_bytes(char *buf, size_t size, double bytes) {
  if (bytes < 1e6) snprintf(buf, size, "%.0f kB", bytes / 1e3);
  else if (bytes < 1e9) snprintf(buf, size, "%.1f MB", bytes / 1e6);
  else snprintf(buf, size, "%.2f GB", bytes / 1e9);
  return buf;
}

char *cli_progress_format(char *buf, size_t size, size_t done, size_t total, double elapsed_s,
                          const char *unit) {
  double frac = total > 0 ? (double)done / (double)total : 1.0;
  if (frac > 1.0) frac = 1.0;
  char bar[BAR_CELLS + 1];
  int full = (int)(frac * BAR_CELLS);
  for (int k = 0; k < BAR_CELLS; k++) bar[k] = k < full ? '=' : ' ';
  if (full < BAR_CELLS && done > 0) bar[full] = '>';
  bar[BAR_CELLS] = '\0';
  double rate = elapsed_s > 0 ? (double)done / elapsed_s : 0.0;
  char r[32], eta[32];
  human(r, sizeof r, rate);
  if (rate > 0 && done <= total) {
    long s = (long)((double)(total - done) / rate + 0.5);
    snprintf(eta, sizeof eta, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  } else {
    snprintf(eta, sizeof eta, "?");
  }
  snprintf(buf, size, "[%s] %zu/%zu %d%% %s %s/s ETA %s", bar, done, total,
           (int)(frac * 100.0), r, unit ? unit : "items", eta);
  return buf;
}

void cli_progress_start(CliProgress *pg, const char *unit, double every_s) {
  memset(pg, 0, sizeof *pg);
  pg->every_s = every_s < 0 ? PROGRESS_LOG_S : every_s;
  pg->active = pg->every_s > 0 && isatty(STDERR_FILENO);
  pg->log = pg->every_s > 0 && !pg->active;
  pg->t0_s = now_s();
  pg->next_log_s = pg->t0_s + pg->every_s;
  pg->unit = unit;
}

int cli_progress_option(const char *v, double *every_s) {
  if (cli_number(v, strlen(v), 0.0, 0, every_s)) {
    cli_fail("--progress '%s': expected seconds between progress lines, >= 0 (0: none)", v);
    return -1;
  }
  return 0;
}

static void log_line(CliProgress *pg, double t) {
  char line[160];
  cli_progress_format(line, sizeof line, pg->done, pg->total, t - pg->t0_s, pg->unit);
  fprintf(stderr, "weft: progress: %s\n", line);
  fflush(stderr);
  pg->lines++;
}

void cli_progress_update(void *ctx, size_t done, size_t total) {
  CliProgress *pg = ctx;
  if (!pg) return;
  pg->done = done;
  pg->total = total;
  if (pg->log) { /* a log: a line now and then */
    double t = now_s();
    if (t < pg->next_log_s || done >= total) return;
    log_line(pg, t);
    pg->next_log_s = t + pg->every_s;
    return;
  }
  if (!pg->active) return;
  char line[160];
  cli_progress_format(line, sizeof line, done, total, now_s() - pg->t0_s, pg->unit);
  int len = (int)strlen(line);
  fprintf(stderr, "\r%s%*s", line, pg->width > len ? pg->width - len : 0, "");
  fflush(stderr);
  if (len > pg->width) pg->width = len;
}

void cli_progress_end(CliProgress *pg) {
  if (!pg) return;
  if (pg->log && pg->lines > 0) { /* the log's last word: where the run ended */
    log_line(pg, now_s());
    pg->lines = 0;
  }
  if (!pg->active || pg->width == 0) return;
  fprintf(stderr, "\r%*s\r", pg->width, "");
  fflush(stderr);
  pg->width = 0;
}
