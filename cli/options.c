/* options.c — `weft options [COMMAND...]`: every command's options as JSON,
 * read from the tables its --help prints (cli_opts_seen), for the bindings
 * and their tests (python/tests/test_options.py: every CLI option of a
 * command is a keyword of its Python function). Not a user's command: not
 * in `weft --help`. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"

enum { MAX_ROWS = 256 };
static struct {
  const CliOpt *row[MAX_ROWS];
  int repeatable[MAX_ROWS];
  int n;
} seen;

static void collect(const CliOpt *o, int repeatable) {
  if (seen.n < MAX_ROWS) {
    seen.row[seen.n] = o;
    seen.repeatable[seen.n++] = repeatable;
  }
}

/* The rows `NAME --help` prints, its own output sent to /dev/null. */
static int rows_of(const CliCommand *c) {
  char name[64], help[] = "--help";
  snprintf(name, sizeof name, "%s", c->name);
  char *argv[] = {name, help, NULL};
  seen.n = 0;
  fflush(stdout);
  int keep = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
  if (keep < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
    if (keep >= 0) close(keep);
    if (null >= 0) close(null);
    cli_fail("options: cannot redirect the help of %s", c->name);
    return -1;
  }
  cli_opts_seen = collect;
  int rc = c->fn(2, argv);
  cli_opts_seen = NULL;
  fflush(stdout);
  dup2(keep, STDOUT_FILENO);
  close(keep);
  close(null);
  if (rc != EXIT_OK || seen.n == MAX_ROWS) {
    cli_fail("options: %s --help gave exit %d and %d rows", c->name, rc, seen.n);
    return -1;
  }
  return 0;
}

/* help as one line: a newline and the indent after it become one space. */
static void one_line(const char *help, char *out, size_t cap) {
  size_t n = 0;
  for (const char *p = help; *p && n + 1 < cap; p++) {
    if (*p == '\n') {
      while (p[1] == ' ') p++;
      out[n++] = ' ';
    } else {
      out[n++] = *p;
    }
  }
  out[n] = '\0';
}

static void print_rows(const char *name) {
  char help[1024];
  fputs("  ", stdout);
  cli_json_str(stdout, name);
  fputs(": [", stdout);
  for (int i = 0; i < seen.n; i++) {
    const CliOpt *o = seen.row[i];
    fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", stdout);
    cli_json_str(stdout, o->name);
    fputs(", \"arg\": ", stdout);
    if (o->arg) cli_json_str(stdout, o->arg);
    else fputs("null", stdout);
    printf(", \"repeatable\": %s, \"help\": ", seen.repeatable[i] ? "true" : "false");
    one_line(o->help, help, sizeof help);
    cli_json_str(stdout, help);
    fputc('}', stdout);
  }
  fputs("]", stdout);
}

int cmd_options(int argc, char **argv, const CliCommand *cmds, int n) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    puts("usage: weft options [COMMAND...]\n\n"
         "Every option of each COMMAND (default: all), as JSON: name, arg (null\n"
         "for a flag), repeatable, help; read from the tables --help prints. For\n"
         "bindings and their tests (the Python package's keywords). Exit 0 ok,\n"
         "2 an unknown command.");
    return EXIT_OK;
  }
  for (int a = 1; a < argc; a++) {
    int k = 0;
    while (k < n && strcmp(argv[a], cmds[k].name)) k++;
    if (k == n) {
      cli_fail("options: unknown command '%s' (try 'weft --help')", argv[a]);
      return EXIT_USAGE;
    }
  }
  fputs("{\n", stdout);
  int first = 1;
  for (int k = 0; k < n; k++) {
    int want = argc == 1;
    for (int a = 1; a < argc && !want; a++) want = !strcmp(argv[a], cmds[k].name);
    if (!want) continue;
    if (rows_of(&cmds[k])) return EXIT_RUNTIME;
    if (!first) fputs(",\n", stdout);
    first = 0;
    print_rows(cmds[k].name);
  }
  fputs("\n}\n", stdout);
  return EXIT_OK;
}
