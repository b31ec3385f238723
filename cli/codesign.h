/* codesign.h — internal to `weft codesign`: what the flow (codesign.c) hands
 * the writers (codesign_report.c: table, JSON, CSV, plot). */
#ifndef WEFT_CLI_CODESIGN_H
#define WEFT_CLI_CODESIGN_H

#include <stdio.h>

#include "weft.h"

#define CS_NSTATUS 6  /* WEFT_POINT_* values */

typedef struct {
  const WeftCodesignSpec *spec;
  const WeftDesignPoint *pts;
  size_t n;
  int npus;
  const char *networks;       /* how the shapes came about, one line */
  const char *const *cons;    /* constraint texts */
  int ncons;
  int top;                    /* designs listed */
  /* Filled by cs_summarize (owned; cs_release frees them). */
  size_t count[CS_NSTATUS];
  size_t example[CS_NSTATUS]; /* first point of each status (n when none) */
  size_t nok;
  size_t *rank;               /* OK points by objective, then index */
  size_t nfront;
  size_t *front;              /* Pareto front, by increasing cost */
  int ndims;                  /* most dims over the networks (CSV columns) */
} CsReport;

/* Counts, ranking and front. 0, or -1 when out of memory. */
int cs_summarize(CsReport *r);
void cs_release(CsReport *r);

void cs_table(FILE *out, const CsReport *r);
void cs_json(FILE *out, const CsReport *r);
/* Whole CSV to path (temporary file, renamed). 0, or prints why and returns EXIT_RUNTIME. */
int cs_csv(const char *path, const CsReport *r);
/* The Pareto plot of the best design; 0 or an exit code (printed). */
int cs_plot(const char *path, const CsReport *r);

/* "R4xFC8xR4xSW32" */
void cs_shape(const WeftNetwork *net, char *buf, size_t size);
/* "TP-PP-DP" */
void cs_order(const WeftParDim order[3], char *buf, size_t size);

#endif
