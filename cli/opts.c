/* opts.c — table-driven option parsing: --name VALUE, --name=VALUE, flags. */
#include "opts.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Edit distance (insert, delete, substitute) of a[0..la) and b, capped at 9. */
static int distance(const char *a, size_t la, const char *b) {
  size_t lb = strlen(b);
  if (la > 40 || lb > 40) return 9;
  int row[41];
  for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb] < 9 ? row[lb] : 9;
}

const char *cli_suggest(const char *word, size_t len, const char *const *cands, int n) {
  const char *best = NULL;
  int bd = 3 + (int)len / 6; /* close enough to be a typo: 3 edits, more for long words */
  for (int i = 0; i < n; i++) {
    if (!cands[i]) continue;
    int d = distance(word, len, cands[i]);
    if (d < bd) { bd = d; best = cands[i]; }
  }
  return best;
}

static int find(CliOptSet *sets, int nsets, const char *s, size_t len, int *set) {
  for (int t = 0; t < nsets; t++)
    for (int o = 0; o < sets[t].n; o++)
      if (sets[t].opts[o].name && strlen(sets[t].opts[o].name) == len &&
          !strncmp(sets[t].opts[o].name, s, len)) {
        *set = t;
        return o;
      }
  return -1;
}

/* Words that name the same thing in another command (or another tool):
 * an unknown one is pointed at its partner when the command has it, before
 * any spelling guess (`topo --npus` is `--servers`, not `--tp`). */
static const char *const SYNONYMS[][2] = {
    {"--npus", "--servers"}, {"--servers", "--npus"}, {"--gpus", "--npus"},
    {"--gpus", "--servers"}, {"--num-gpus", "--npus"}, {"--num-gpus", "--servers"},
};

static const char *synonym(CliOptSet *sets, int nsets, const char *s, size_t len) {
  int set;
  for (size_t i = 0; i < sizeof SYNONYMS / sizeof SYNONYMS[0]; i++)
    if (strlen(SYNONYMS[i][0]) == len && !strncmp(SYNONYMS[i][0], s, len) &&
        find(sets, nsets, SYNONYMS[i][1], strlen(SYNONYMS[i][1]), &set) >= 0)
      return SYNONYMS[i][1];
  return NULL;
}

/* Is w one of the options (--tp, --tp=4)? */
static int is_option(CliOptSet *sets, int nsets, const char *w) {
  int set;
  return !strncmp(w, "--", 2) && w[2] && find(sets, nsets, w, strcspn(w, "="), &set) >= 0;
}

/* Is w one of the words of "[a|b|c]"? */
static int optional_word(const char *arg, const char *w) {
  size_t n = strlen(w);
  for (const char *p = arg + 1; *p && *p != ']';) {
    size_t len = strcspn(p, "|]");
    if (len == n && n && !strncmp(p, w, n)) return 1;
    p += len + (p[len] == '|');
  }
  return 0;
}

/* A word after an optional-value option that reads as an attempted value:
 * no leading '-', no '/' and no '.', so not a path or an option. */
static int looks_like_value(const char *w) {
  return w[0] && w[0] != '-' && !strchr(w, '/') && !strchr(w, '.');
}

/* Does an option's ARG name a path (FILE, DIR, PREFIX)? An empty one is
 * then refused by the option's name, before any file is touched. */
static int is_path(const char *arg) {
  return strstr(arg, "FILE") || strstr(arg, "DIR") || strstr(arg, "PREFIX");
}

int cli_opts_parse(int argc, char **argv, CliOptSet *sets, int nsets, const char **pos,
                   int maxpos, int *npos) {
  *npos = 0;
  for (int t = 0; t < nsets; t++) {
    for (int o = 0; o < sets[t].n; o++) sets[t].val[o] = NULL;
    if (sets[t].nlist) *sets[t].nlist = 0;
  }
  int ended = 0; /* after "--" every word is an argument (POSIX) */
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (!ended && !strcmp(s, "--")) {
      ended = 1;
      continue;
    }
    if (ended || s[0] != '-' || s[1] == '\0') {
      if (!s[0]) { /* '' is no file and no name: say so, not "cannot open" */
        cli_fail("%s: an empty argument ('')", argv[0]);
        return -1;
      }
      if (*npos == maxpos) {
        cli_fail("%s: unexpected argument '%s' (try 'weft %s --help')", argv[0], s, argv[0]);
        return -1;
      }
      pos[(*npos)++] = s;
      continue;
    }
    const char *eq = strchr(s, '=');
    size_t len = eq ? (size_t)(eq - s) : strlen(s);
    int t = 0, k = find(sets, nsets, s, len, &t);
    if (k < 0) {
      const char *names[128];
      int nn = 0;
      for (int u = 0; u < nsets; u++)
        for (int o = 0; o < sets[u].n && nn < 128; o++) names[nn++] = sets[u].opts[o].name;
      const char *near = synonym(sets, nsets, s, len);
      if (!near) near = cli_suggest(s, len, names, nn);
      if (near) cli_fail("unknown option '%.*s': did you mean %s? (try 'weft %s --help')", (int)len, s, near, argv[0]);
      else cli_fail("unknown option '%.*s' (try 'weft %s --help')", (int)len, s, argv[0]);
      return -1;
    }
    const CliOpt *o = &sets[t].opts[k];
    const char *v = "";
    int valued = eq != NULL; /* a value was given (--fp8 '' too), not a flag alone */
    if (o->arg && o->arg[0] == '[') { /* optional value: =VALUE, or a next word it lists */
      if (eq) v = eq + 1;
      else if (i + 1 < argc && (!argv[i + 1][0] || optional_word(o->arg, argv[i + 1])))
        v = argv[++i], valued = 1;
      else if (i + 1 < argc && looks_like_value(argv[i + 1])) {
        /* a bare word where a value may go, not a file: a misspelt value */
        cli_fail("option %s: '%s' is not one of %s (a file here needs a '/' or an "
                 "extension)", o->name, argv[i + 1], o->arg);
        return -1;
      }
    } else if (o->arg) {
      valued = 1;
      if (eq) v = eq + 1;
      else if (i + 1 < argc && is_option(sets, nsets, argv[i + 1])) { /* its value left out */
        cli_fail("option '%s' needs a value (%s), not the option '%s'", o->name, o->arg,
                 argv[i + 1]);
        return -1;
      } else if (i + 1 < argc) v = argv[++i];
      else {
        cli_fail("option '%s' needs a value (%s)", o->name, o->arg);
        return -1;
      }
    } else if (eq) {
      cli_fail("option '%s' takes no value", o->name);
      return -1;
    }
    if (!v[0] && o->arg && is_path(o->arg)) {
      cli_fail("%s: empty path", o->name);
      return -1;
    }
    if (!v[0] && valued) { /* '' names nothing: --device '', --fp8 '' */
      cli_fail("option %s: an empty value (expected %s)", o->name, o->arg);
      return -1;
    }
    if (k == sets[t].multi) {
      if (*sets[t].nlist == sets[t].maxlist) {
        cli_fail("too many %s options (at most %d)", o->name, sets[t].maxlist);
        return -1;
      }
      sets[t].list[(*sets[t].nlist)++] = v;
    } else if (sets[t].val[k]) {
      /* Given twice: which value was meant is a guess, and last-one-wins
       * would solve a problem other than the one on the line. One rule for
       * every option, a flag too (a doubled flag is a slip in a script). */
      if (o->arg && (sets[t].val[k][0] || v[0]))
        cli_fail("option %s given twice ('%s' and '%s'): %s", o->name, sets[t].val[k], v,
                 o->twice ? o->twice : "give it once");
      else
        cli_fail("option %s given twice: %s", o->name, o->twice ? o->twice : "give it once");
      return -1;
    }
    sets[t].val[k] = v;
  }
  return 0;
}

void (*cli_opts_seen)(const CliOpt *o, int repeatable);

void cli_opts_help(FILE *out, const CliOptSet *sets, int nsets) {
  for (int t = 0; t < nsets; t++)
    for (int i = 0; i < sets[t].n; i++) {
      const CliOpt *o = &sets[t].opts[i];
      if (cli_opts_seen) cli_opts_seen(o, i == sets[t].multi);
      char left[64];
      snprintf(left, sizeof left, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
      fprintf(out, "  %-22s%s%s\n", left, strlen(left) > 21 ? "\n                        " : "",
              o->help);
    }
}

/* t[0..len) without the blanks around it. */
static void trim(const char **t, size_t *len) {
  while (*len && (**t == ' ' || **t == '\t')) (*t)++, (*len)--;
  while (*len && ((*t)[*len - 1] == ' ' || (*t)[*len - 1] == '\t')) (*len)--;
}

int cli_int_value(const char *t, size_t len, long long lo, long long hi, long long *out) {
  trim(&t, &len);
  double x;
  /* The files' grammar (weft_number_parse), restricted to an optional sign
   * and digits, as the files' integers are; then read exactly. */
  if (weft_number_parse(t, len, &x, NULL) != WEFT_OK) return -1;
  size_t i = len && (t[0] == '+' || t[0] == '-');
  if (i == len || strspn(t + i, "0123456789") != len - i || len - i > 18) return -1;
  long long v = 0;
  for (; i < len; i++) v = v * 10 + (t[i] - '0');
  if (t[0] == '-') v = -v;
  if (v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int cli_opt_int(const char *flag, const char *v, int lo, int hi, int *out) {
  long long x;
  if (cli_int_value(v, strlen(v), lo, hi, &x)) {
    cli_fail("%s '%s': expected an integer in %d..%d", flag, v, lo, hi);
    return -1;
  }
  *out = (int)x;
  return 0;
}

/* a == b in any case, '_' and '-' alike: as scenario files read the names
 * (tp_dp_overlap, TP-DP-OVERLAP and tp-dp-overlap are one loop). */
static int same_name(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    char x = *a == '_' ? '-' : (char)tolower((unsigned char)*a);
    char y = *b == '_' ? '-' : (char)tolower((unsigned char)*b);
    if (x != y) return 0;
  }
  return *a == *b;
}

int cli_opt_choose(const char *flag, const char *v, const char *n0, const char *n1, int *out) {
  if (same_name(v, n0)) *out = 0;
  else if (same_name(v, n1)) *out = 1;
  else {
    cli_fail("%s '%s': expected %s or %s", flag, v, n0, n1);
    return -1;
  }
  return 0;
}

int cli_opt_objective(const char *flag, const char *v, int *out) {
  for (int o = 0; o < WEFT_NOBJECTIVES; o++)
    if (same_name(v, weft_objective_name((WeftObjective)o))) {
      *out = o;
      return 0;
    }
  char list[160] = ""; /* "a, b or c", the library's names */
  for (int o = 0; o < WEFT_NOBJECTIVES; o++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
             o == 0 ? "" : o == WEFT_NOBJECTIVES - 1 ? " or " : ", ",
             weft_objective_name((WeftObjective)o));
  cli_fail("%s '%s': expected %s", flag, v, list);
  return -1;
}

int cli_opt_loop(const char *flag, const char *v, int *out) {
  for (int l = 0; l < WEFT_NLOOPS; l++)
    if (same_name(v, weft_loop_name((WeftLoop)l))) {
      *out = l;
      return 0;
    }
  char list[160] = ""; /* "a, b or c", the library's names */
  for (int l = 0; l < WEFT_NLOOPS; l++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
             l == 0 ? "" : l == WEFT_NLOOPS - 1 ? " or " : ", ", weft_loop_name((WeftLoop)l));
  cli_fail("%s '%s': expected %s", flag, v, list);
  return -1;
}

const char *cli_number_why(const char *v) {
  const char *t = v, *why = NULL;
  size_t len = strlen(v);
  double x;
  trim(&t, &len);
  return weft_number_parse(t, len, &x, &why) == WEFT_OK ? NULL : why;
}

int cli_number(const char *t, size_t len, double lo, int strict, double *out) {
  trim(&t, &len);
  double x;
  if (weft_number_parse(t, len, &x, NULL) != WEFT_OK || x < lo || (strict && x <= lo)) return -1;
  *out = x;
  return 0;
}
