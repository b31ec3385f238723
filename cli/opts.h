/* opts.h — table-driven option parsing shared by the commands: one row per
 * option drives both parsing and --help. */
#ifndef WEFT_CLI_OPTS_H
#define WEFT_CLI_OPTS_H

#include <stdio.h>

typedef struct {
  const char *name;  /* "--tp" */
  const char *arg;   /* "N", or NULL for a flag */
  const char *help;
} CliOpt;

/* A table and where its values go: val[i] is the last value given for
 * opts[i] ("" for a flag), NULL when absent. One option of the set may be
 * repeatable (multi >= 0): its values are appended to list[0..*nlist). */
typedef struct {
  const CliOpt *opts;
  int n;
  const char **val;
  int multi;
  const char **list;
  int maxlist, *nlist;
} CliOptSet;

/* Parse argv[1..argc) (argv[0] is the command's name, for messages);
 * positional arguments go to pos[0..*npos) (at most maxpos). Prints the error
 * and returns -1 on a bad option. */
int cli_opts_parse(int argc, char **argv, CliOptSet *sets, int nsets, const char **pos,
                   int maxpos, int *npos);
void cli_opts_help(FILE *out, const CliOptSet *sets, int nsets);

#endif
