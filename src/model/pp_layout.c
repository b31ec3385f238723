/* pp_layout.c — Megatron-Core's pipeline layout string
 * (--pipeline-model-parallel-layout; megatron/core/transformer/
 * pipeline_parallel_layer_layout.py) into transformer layers per model
 * chunk (docs/zoo.md, "Pipeline layout"). */
#include <string.h>

#include "weft/model.h"

#define F "pp_layout"

/* The unrolled symbols' consumer: pass 0 counts the chunks, pass 1 the
 * layers per chunk and the checks (the first error is kept). */
typedef struct {
  int pass, n, rc;
  long long chunks, want;
  int *cl, x, t, mtp, ne, nl, m_at;
  WeftError *err;
} Out;

#define MAX_SYMS (1 << 22) /* unrolled symbols: a bound on the work */

static int take(Out *o, char c, int at);

static int push(Out *o, char c, int at) {
  if (++o->n > MAX_SYMS)
    return weft_error_set(o->err, WEFT_EINPUT, "", 0, at, F,
                          F ": unrolls to more than %d symbols (position %d)", MAX_SYMS, at);
  if (o->pass == 0) {
    o->chunks += c == '|';
    return WEFT_OK;
  }
  return take(o, c, at);
}

/* "*N" at s + *i (after a group or a symbol): N >= 0 into *rep; none: 1. */
static int repeat(const char *s, int *i, int *rep, WeftError *err) {
  *rep = 1;
  if (s[*i] != '*') return WEFT_OK;
  int at = *i + 1;
  long long x = 0;
  (*i)++;
  if (s[*i] < '0' || s[*i] > '9')
    return weft_error_set(err, WEFT_EINPUT, "", 0, at, F,
                          F ": position %d: '*' needs a count after it", at);
  while (s[*i] >= '0' && s[*i] <= '9') {
    x = 10 * x + (s[*i] - '0');
    if (x > 1 << 20)
      return weft_error_set(err, WEFT_EINPUT, "", 0, at, F,
                            F ": position %d: repeat count above %d", at, 1 << 20);
    (*i)++;
  }
  *rep = (int)x;
  return WEFT_OK;
}

static int symbol_ok(char c) { return c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|'; }

static int cosmetic(char c) { return c == ',' || c == ' '; }

/* Symbols of s[from, to), each with an optional "*N": into o. */
static int symbols(const char *s, int from, int to, Out *o) {
  int rc, rep;
  for (int i = from; i < to;) {
    if (cosmetic(s[i])) {
      i++;
      continue;
    }
    int at = i + 1, j = i + 1;
    if (!symbol_ok(s[i]))
      return weft_error_set(o->err, WEFT_EINPUT, "", 0, at, F,
                            F ": position %d: '%c' is none of E t m L | ( ) * ,", at, s[i]);
    if ((rc = repeat(s, &j, &rep, o->err))) return rc;
    for (int r = 0; r < rep; r++)
      if ((rc = push(o, s[i], at))) return rc;
    i = j;
  }
  return WEFT_OK;
}

/* Megatron's grammar (parse_str_to_list): commas are cosmetic, "(body)*N"
 * repeats body (no nesting), "x*N" repeats one symbol, symbols E t m L and
 * the separator |. */
static int unroll(const char *s, Out *o) {
  int rc;
  for (int i = 0; s[i];) {
    int at = i + 1, rep, close = i + 1;
    if (s[i] != '(') {
      while (s[close] && s[close] != '(') close++; /* up to the next group */
      if ((rc = symbols(s, i, close, o))) return rc;
      i = close;
      continue;
    }
    while (s[close] && s[close] != ')') {
      if (s[close] == '(')
        return weft_error_set(o->err, WEFT_EINPUT, "", 0, close + 1, F,
                              F ": position %d: groups do not nest", close + 1);
      close++;
    }
    if (!s[close])
      return weft_error_set(o->err, WEFT_EINPUT, "", 0, at, F, F ": position %d: '(' without ')'",
                            at);
    int j = close + 1;
    if (s[j] != '*')
      return weft_error_set(o->err, WEFT_EINPUT, "", 0, at, F,
                            F ": position %d: a group needs '*N' after it", at);
    if ((rc = repeat(s, &j, &rep, o->err))) return rc;
    for (int r = 0; r < rep; r++)
      if ((rc = symbols(s, i + 1, close, o))) return rc;
    i = j;
  }
  return WEFT_OK;
}

static int take(Out *o, char c, int at) {
  WeftError *err = o->err;
  if (c == '|') {
    o->x++;
  } else if (c == 't') {
    if (o->m_at)
      return weft_error_set(err, WEFT_EINPUT, "", 0, at, F,
                            F ": position %d: a transformer layer after the MTP layers "
                            "(position %d)", at, o->m_at);
    o->cl[o->x]++, o->t++;
  } else if (c == 'E' && (o->x != 0 || o->ne++)) {
    return weft_error_set(err, WEFT_EINPUT, "", 0, at, F,
                          F ": position %d: the embedding E belongs once, in the first chunk "
                          "(this is chunk %d)", at, o->x + 1);
  } else if (c == 'L' && (o->x != o->want - 1 || o->nl++)) {
    return weft_error_set(err, WEFT_EINPUT, "", 0, at, F,
                          F ": position %d: the loss L belongs once, in the last chunk (this "
                          "is chunk %d of %lld)", at, o->x + 1, o->want);
  } else if (c == 'm') {
    if (o->x != o->want - 1)
      return weft_error_set(err, WEFT_EINPUT, "", 0, at, F,
                            F ": position %d: MTP layers m belong in the last chunk with the "
                            "loss (this is chunk %d of %lld)", at, o->x + 1, o->want);
    if (!o->m_at) o->m_at = at;
    o->mtp++;
  }
  return WEFT_OK;
}

int weft_pp_layout_parse(const char *layout, int pp, int v, int layers, int mtp_layers,
                         int *chunk_layers, WeftError *err) {
  Out o = {0};
  int rc;
  o.err = err;
  o.cl = chunk_layers;
  if (!layout || !*layout) return weft_error_set(err, WEFT_EINPUT, "", 0, 0, F, F ": empty");
  if (pp < 1 || v < 1)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, F, F ": pp = %d, virtual_stages = %d",
                          pp, v);
  o.chunks = 1;
  o.want = (long long)pp * v;
  if ((rc = unroll(layout, &o))) return rc;
  if (o.chunks != o.want)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, F,
                          F ": %lld chunks, pp x virtual_stages = %d x %d = %lld", o.chunks, pp,
                          v, o.want);
  for (long long i = 0; i < o.want; i++) chunk_layers[i] = 0;
  o.pass = 1;
  o.n = 0;
  if ((rc = unroll(layout, &o))) return rc;
  if (!o.ne || !o.nl)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, F,
                          F ": no %s: E opens the first chunk, L closes the last",
                          !o.ne ? "embedding E" : "loss L");
  if (o.t != layers)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, F,
                          F ": %d transformer layers t, the model has %d", o.t, layers);
  if (o.mtp != mtp_layers)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, F,
                          F ": %d MTP layers m, the model has %d", o.mtp, mtp_layers);
  for (int k = 0; k < pp; k++) {
    int n = 0;
    for (int c = 0; c < v; c++) n += chunk_layers[c * pp + k];
    if (n < 1)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, F,
                            F ": stage %d holds no transformer layer", k + 1);
  }
  return WEFT_OK;
}
