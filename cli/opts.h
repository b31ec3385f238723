/* opts.h — table-driven option parsing shared by the commands: one row per
 * option drives both parsing and --help. */
#ifndef WEFT_CLI_OPTS_H
#define WEFT_CLI_OPTS_H

#include <stdio.h>

typedef struct {
  const char *name;  /* "--tp" */
  const char *arg;   /* "N", or NULL for a flag; "[a|b]": an optional value
                        (--opt=VALUE, or --opt followed by one of the words) */
  const char *help;
  const char *twice;  /* optional: what to do instead, when given twice */
} CliOpt;

/* A table and where its values go: val[i] is the value given for opts[i]
 * ("" for a flag), NULL when absent. An option that takes a value may be
 * given once, a flag too (twice is a usage error, in every command alike);
 * one option of the set may be repeatable (multi >= 0), a list by nature
 * such as --constraint: its values are appended to list[0..*nlist)
 * (val[multi] is the last). An empty value of a FILE, DIR or PREFIX option
 * is refused ("--network: empty path"). */
typedef struct {
  const CliOpt *opts;
  int n;
  const char **val;
  int multi;
  const char **list;
  int maxlist, *nlist;
} CliOptSet;

/* Parse argv[1..argc) (argv[0] is the command's name, for messages);
 * positional arguments go to pos[0..*npos) (at most maxpos; '' is refused);
 * "--" ends the options, every word after it is positional (POSIX). Prints
 * the error and returns -1 on a bad option. */
int cli_opts_parse(int argc, char **argv, CliOptSet *sets, int nsets, const char **pos,
                   int maxpos, int *npos);
void cli_opts_help(FILE *out, const CliOptSet *sets, int nsets);
/* When set (`weft options`, options.c), cli_opts_help also hands it every
 * row it prints, the set's repeatable one flagged: a command's options are
 * read from the one place that prints its --help, whatever tables it joins. */
extern void (*cli_opts_seen)(const CliOpt *o, int repeatable);

/* Option values. Each prints "FLAG 'v': expected ..." and returns -1 on a bad
 * value, else stores it and returns 0. */
int cli_opt_int(const char *flag, const char *v, int lo, int hi, int *out);
/* *out = 0 or 1 for the value named n0 or n1 (the library's own names). */
int cli_opt_choose(const char *flag, const char *v, const char *n0, const char *n1, int *out);
/* *out = the training loop (WeftLoop) v names, as scenario files read it. */
int cli_opt_loop(const char *flag, const char *v, int *out);
/* An objective by the library's name (any case, _ or -), as cli_opt_loop. */
int cli_opt_objective(const char *flag, const char *v, int *out);
/* Numbers on the command line follow the input files' grammar exactly
 * (weft_number_parse: decimal, no hex, inf, nan or denormals); blanks
 * around the value are allowed. Both return -1 without a message when t is
 * not one. A number in [lo, inf) (or (lo, inf) when strict): */
int cli_number(const char *t, size_t len, double lo, int strict, double *out);
const char *cli_number_why(const char *v); /* why v is no number (a denormal, ...), or NULL */
/* An integer in lo..hi: an optional sign and decimal digits. */
int cli_int_value(const char *t, size_t len, long long lo, long long hi, long long *out);

/* A limit macro's value as written, for messages: CLI_TEXT(WEFT_MAX_BW_GBPS)
 * is "1e12". */
#define CLI_TEXT(x) CLI_TEXT_(x)
#define CLI_TEXT_(x) #x

/* The candidate closest to word[0..len) by edit distance, when close enough
 * to be a typo; NULL otherwise. For "did you mean" hints. */
const char *cli_suggest(const char *word, size_t len, const char *const *cands, int n);

#endif
