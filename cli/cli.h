/* cli.h — the weft command line: commands and the report writers.
 * A thin layer: parse arguments, read files, call libweft, print. */
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

#include <stdio.h>

#include "weft.h"

/* Exit codes. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

int cmd_optimize(int argc, char **argv);

/* Print "weft: <where>: <msg>" for a library error. */
void cli_error(const WeftError *err);
/* Print "weft: <printf message>". */
void cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* What a report shows: the solved problem and its baseline. */
typedef struct {
  const WeftSpec *spec;
  const WeftResult *res;
  const WeftEval *equal;       /* EqualBW baseline, NULL when not solved */
  const double *equal_bw_gbps;
  const char *job_names[WEFT_MAX_JOBS];
} Report;

void report_table(FILE *out, const Report *r);
void report_json(FILE *out, const Report *r);

#endif
