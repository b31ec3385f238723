/* constraint.c — parser for linear constraints over B1..BD, sum and cost.
 * "B1 >= B2 >= B3" is a chain: one normalised constraint per adjacent pair. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/util.h"
#include "weft.h"

/* Parentheses deeper than this are refused: recursion stays bounded whatever
 * the input, and no real constraint comes near it. */
#define CONS_MAX_DEPTH 64
/* Longest token or term quoted in a message, so the message stays readable. */
#define CONS_QUOTE_MAX 60

typedef enum {
  TOK_END,
  TOK_NUM,
  TOK_NAME,
  TOK_PLUS,
  TOK_MINUS,
  TOK_STAR,
  TOK_SLASH,
  TOK_LPAREN,
  TOK_RPAREN,
  TOK_REL
} TokKind;

typedef struct {
  TokKind kind;
  size_t start, len;  /* byte offset and length in the expression */
  double num;         /* TOK_NUM */
  WeftRelation rel;   /* TOK_REL */
} Token;

/* A linear expression: sum coef[d]*B_d + cost*cost + cst. has_var records
 * whether a B, sum or cost token occurs (structurally, even if it cancels):
 * that, not the value, decides whether a product or quotient is linear. */
typedef struct {
  double coef[WEFT_MAX_DIMS];
  double cost;
  double cst;
  int has_var;
  size_t start, end;  /* source span [start, end) */
} Lin;

typedef struct {
  const char *s;
  size_t pos;  /* next byte to lex */
  Token tok;   /* current token */
  int ndims;
  WeftError *err;
} Parser;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(const Parser *p, int code, size_t off, const char *fmt, ...) {
  char msg[sizeof p->err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return weft_error_set(p->err, code, "", 0, (int)off + 1, "constraint", "%s", msg);
}

static int quote_len(size_t len) { return len > CONS_QUOTE_MAX ? CONS_QUOTE_MAX : (int)len; }

static int is_name_start(int c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_name_char(int c) { return isalnum((unsigned char)c) || c == '_'; }

/* A number: the grammar of every input file (io/util.h: decimal digits,
 * optional point and exponent; no hex), then no letter, digit, '_' or '.'
 * may follow ("2e", "1.2.3", "0x10" and "2B1" are malformed rather than
 * silently split). Any finite value that is zero or normal is allowed (the
 * solver scales rows); overflow and denormals are refused. */
static int lex_number(Parser *p) {
  const char *start = p->s + p->pos;
  size_t n = weft_io_number_span(start), run = n;
  while (is_name_char(start[run]) || start[run] == '.') run++;
  if (n == 0 || run != n)
    return fail(p, WEFT_ESYNTAX, p->pos, "malformed number '%.*s'", quote_len(run), start);
  double v;
  int r = weft_io_number(start, n, &v);
  if (r == WEFT_NUM_DENORMAL)
    return fail(p, WEFT_EINPUT, p->pos,
                "denormal number '%.*s' (nonzero, below 2.2e-308): write 0 or a larger value",
                quote_len(n), start);
  if (r != WEFT_NUM_OK)
    return fail(p, WEFT_EINPUT, p->pos, "number out of range '%.*s'", quote_len(n), start);
  p->tok.kind = TOK_NUM;
  p->tok.len = n;
  p->tok.num = v;
  return WEFT_OK;
}

/* Relations: = == <= >= < >. Common mistakes get a message of their own. */
static int lex_relation(Parser *p) {
  const char *c = p->s + p->pos;
  p->tok.kind = TOK_REL;
  p->tok.len = 1;
  if (c[0] == '!') {
    if (c[1] == '=')
      return fail(p, WEFT_ESYNTAX, p->pos, "'!=' is not supported: use =, <= or >=");
    return fail(p, WEFT_ESYNTAX, p->pos, "unexpected character '!'");
  }
  if (c[0] == '=') {
    if (c[1] == '<' || c[1] == '>')
      return fail(p, WEFT_ESYNTAX, p->pos, "'=%c' is not a relation: use %c=", c[1], c[1]);
    p->tok.rel = WEFT_REL_EQ;
    if (c[1] == '=') p->tok.len = 2;
    return WEFT_OK;
  }
  p->tok.rel = c[0] == '<' ? WEFT_REL_LE : WEFT_REL_GE;  /* < and > mean <= and >= */
  if (c[1] == '=') p->tok.len = 2;
  return WEFT_OK;
}

/* Read the token at p->pos into p->tok and move past it. */
static int lex(Parser *p) {
  while (isspace((unsigned char)p->s[p->pos])) p->pos++;
  const char *c = p->s + p->pos;
  p->tok.start = p->pos;
  p->tok.len = 1;
  int rc = WEFT_OK;
  switch (c[0]) {
    case '\0': p->tok.kind = TOK_END; p->tok.len = 0; break;
    case '+': p->tok.kind = TOK_PLUS; break;
    case '-': p->tok.kind = TOK_MINUS; break;
    case '*': p->tok.kind = TOK_STAR; break;
    case '/': p->tok.kind = TOK_SLASH; break;
    case '(': p->tok.kind = TOK_LPAREN; break;
    case ')': p->tok.kind = TOK_RPAREN; break;
    case '=': case '<': case '>': case '!': rc = lex_relation(p); break;
    default:
      if (isdigit((unsigned char)c[0]) || (c[0] == '.' && isdigit((unsigned char)c[1]))) {
        rc = lex_number(p);
      } else if (is_name_start(c[0])) {
        size_t n = 1;
        while (is_name_char(c[n])) n++;
        p->tok.kind = TOK_NAME;
        p->tok.len = n;
      } else if (isprint((unsigned char)c[0])) {
        rc = fail(p, WEFT_ESYNTAX, p->pos, "unexpected character '%c'", c[0]);
      } else {
        rc = fail(p, WEFT_ESYNTAX, p->pos, "unexpected byte 0x%02x", (unsigned)(unsigned char)c[0]);
      }
  }
  if (rc == WEFT_OK) p->pos += p->tok.len;
  return rc;
}

static int tok_starts_primary(TokKind k) {
  return k == TOK_NUM || k == TOK_NAME || k == TOK_LPAREN;
}

/* "'B1'" or "end of constraint", for "found ..." messages. */
static const char *tok_quote(const Parser *p, char *buf, size_t size) {
  if (p->tok.kind == TOK_END) return "end of constraint";
  snprintf(buf, size, "'%.*s'", quote_len(p->tok.len), p->s + p->tok.start);
  return buf;
}

static int lin_finite(const Lin *a, int ndims) {
  if (!isfinite(a->cost) || !isfinite(a->cst)) return 0;
  for (int d = 0; d < ndims; d++)
    if (!isfinite(a->coef[d])) return 0;
  return 1;
}

static int check_finite(const Parser *p, const Lin *a) {
  if (lin_finite(a, p->ndims)) return WEFT_OK;
  return fail(p, WEFT_EINPUT, a->start, "value out of range in '%.*s'",
              quote_len(a->end - a->start), p->s + a->start);
}

/* Names are B<k>/b<k> (1 <= k <= ndims), sum and cost (any case). */
static int name_to_lin(const Parser *p, Lin *out) {
  const char *t = p->s + p->tok.start;
  size_t n = p->tok.len;
  int q = quote_len(n);
  if (n == 3 && strncasecmp(t, "sum", 3) == 0) {
    for (int d = 0; d < p->ndims; d++) out->coef[d] = 1.0;
  } else if (n == 4 && strncasecmp(t, "cost", 4) == 0) {
    out->cost = 1.0;
  } else if ((t[0] == 'B' || t[0] == 'b') && n > 1 && strspn(t + 1, "0123456789") >= n - 1) {
    long k = 0;  /* saturate: B99999999999 is out of range, not wrapped */
    for (size_t i = 1; i < n; i++) k = k > WEFT_MAX_DIMS ? k : k * 10 + (t[i] - '0');
    if (k < 1 || k > p->ndims)
      return fail(p, WEFT_EINPUT, p->tok.start, "%.*s is out of range: the network has %d dim%s",
                  q, t, p->ndims, p->ndims == 1 ? "" : "s");
    out->coef[k - 1] = 1.0;
  } else if ((n == 3 && strncasecmp(t, "nan", 3) == 0) || (n == 3 && strncasecmp(t, "inf", 3) == 0) ||
             (n == 8 && strncasecmp(t, "infinity", 8) == 0)) {
    return fail(p, WEFT_EINPUT, p->tok.start, "'%.*s' is not a finite number", q, t);
  } else {
    return fail(p, WEFT_EINPUT, p->tok.start, "unknown name '%.*s'", q, t);
  }
  out->has_var = 1;
  return WEFT_OK;
}

static int parse_expr(Parser *p, Lin *out, int depth);

static int parse_primary(Parser *p, Lin *out, int depth) {
  char buf[CONS_QUOTE_MAX + 3];
  memset(out, 0, sizeof *out);
  out->start = p->tok.start;
  out->end = p->tok.start + p->tok.len;
  int rc;
  switch (p->tok.kind) {
    case TOK_NUM:
      out->cst = p->tok.num;
      return lex(p);
    case TOK_NAME:
      if ((rc = name_to_lin(p, out))) return rc;
      return lex(p);
    case TOK_LPAREN: {
      size_t open = p->tok.start;
      if (depth >= CONS_MAX_DEPTH)
        return fail(p, WEFT_EINPUT, open, "parentheses nested too deeply (at most %d)", CONS_MAX_DEPTH);
      if ((rc = lex(p)) || (rc = parse_expr(p, out, depth + 1))) return rc;
      if (p->tok.kind != TOK_RPAREN) {
        if (tok_starts_primary(p->tok.kind))
          return fail(p, WEFT_ESYNTAX, p->tok.start, "missing operator before %s",
                      tok_quote(p, buf, sizeof buf));
        return fail(p, WEFT_ESYNTAX, p->tok.start, "expected ')' to close '(' at column %zu, found %s",
                    open + 1, tok_quote(p, buf, sizeof buf));
      }
      out->start = open;
      out->end = p->tok.start + 1;
      return lex(p);
    }
    default:
      return fail(p, WEFT_ESYNTAX, p->tok.start, "expected a number, name or '(', found %s",
                  tok_quote(p, buf, sizeof buf));
  }
}

/* Signs are read in a loop, not by recursion: "------B1" costs no stack. */
static int parse_unary(Parser *p, Lin *out, int depth) {
  size_t start = p->tok.start;
  int neg = 0, rc;
  while (p->tok.kind == TOK_PLUS || p->tok.kind == TOK_MINUS) {
    neg ^= p->tok.kind == TOK_MINUS;
    if ((rc = lex(p))) return rc;
  }
  if ((rc = parse_primary(p, out, depth))) return rc;
  if (neg) {
    for (int d = 0; d < p->ndims; d++) out->coef[d] = -out->coef[d];
    out->cost = -out->cost;
    out->cst = -out->cst;
  }
  out->start = start;
  return WEFT_OK;
}

/* term := unary (('*' | '/') unary)*, linear only: a product needs one
 * constant factor, a quotient a constant non-zero divisor. */
static int parse_term(Parser *p, Lin *out, int depth) {
  int rc = parse_unary(p, out, depth);
  while (rc == WEFT_OK && (p->tok.kind == TOK_STAR || p->tok.kind == TOK_SLASH)) {
    int div = p->tok.kind == TOK_SLASH;
    Lin r;
    if ((rc = lex(p)) || (rc = parse_unary(p, &r, depth))) return rc;
    size_t start = out->start, end = r.end;
    if (r.has_var && (out->has_var || div))
      return fail(p, WEFT_EINPUT, start, "nonlinear term '%.*s'", quote_len(end - start), p->s + start);
    if (div && r.cst == 0.0)
      return fail(p, WEFT_EINPUT, r.start, "division by zero in '%.*s'", quote_len(end - start),
                  p->s + start);
    if (r.has_var) {  /* constant * expression: keep the expression in out */
      Lin tmp = *out;
      *out = r;
      r = tmp;
    }
    double k = div ? 1.0 / r.cst : r.cst;
    if (div && !isfinite(k))  /* e.g. 1/1e-320 */
      return fail(p, WEFT_EINPUT, start, "value out of range in '%.*s'", quote_len(end - start),
                  p->s + start);
    for (int d = 0; d < p->ndims; d++) out->coef[d] *= k;
    out->cost *= k;
    out->cst *= k;
    out->start = start;
    out->end = end;
    rc = check_finite(p, out);
  }
  return rc;
}

/* expr := term (('+' | '-') term)* */
static int parse_expr(Parser *p, Lin *out, int depth) {
  int rc = parse_term(p, out, depth);
  while (rc == WEFT_OK && (p->tok.kind == TOK_PLUS || p->tok.kind == TOK_MINUS)) {
    double sign = p->tok.kind == TOK_MINUS ? -1.0 : 1.0;
    Lin r;
    if ((rc = lex(p)) || (rc = parse_term(p, &r, depth))) return rc;
    for (int d = 0; d < p->ndims; d++) out->coef[d] += sign * r.coef[d];
    out->cost += sign * r.cost;
    out->cst += sign * r.cst;
    out->has_var |= r.has_var;
    out->end = r.end;
    rc = check_finite(p, out);
  }
  return rc;
}

/* l REL r as sum coef*B + cost_coef*cost REL rhs: variables left, constants
 * right. "+ 0.0" turns -0.0 (from negating a zero) into 0.0. */
static int make_constraint(const Parser *p, const Lin *l, const Lin *r, const Token *rel,
                           WeftConstraint *c) {
  memset(c, 0, sizeof *c);
  int any = 0;
  for (int d = 0; d < p->ndims; d++) {
    c->coef[d] = (l->coef[d] - r->coef[d]) + 0.0;
    any |= c->coef[d] != 0.0;
  }
  c->cost_coef = (l->cost - r->cost) + 0.0;
  any |= c->cost_coef != 0.0;
  c->rhs = (r->cst - l->cst) + 0.0;
  c->rel = rel->rel;
  if (!any)
    return fail(p, WEFT_EINPUT, rel->start, "constraint has no bandwidth or cost term");
  Lin both = *l;  /* the differences can overflow even when each side is finite */
  memcpy(both.coef, c->coef, sizeof both.coef);
  both.cost = c->cost_coef;
  both.cst = c->rhs;
  both.end = r->end;
  int rc = check_finite(p, &both);
  if (rc) return rc;
  size_t len = r->end - l->start;
  if (len < sizeof c->text) {
    memcpy(c->text, p->s + l->start, len);
    c->text[len] = '\0';
  } else {  /* truncated, and marked so */
    size_t keep = sizeof c->text - 4;
    memcpy(c->text, p->s + l->start, keep);
    memcpy(c->text + keep, "...", 4);
  }
  return WEFT_OK;
}

int weft_constraints_parse(WeftConstraints *cs, const char *expr, int ndims, WeftError *err) {
  if (!cs || !expr)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "constraint", "no %s given",
                          cs ? "expression" : "constraint set");
  if (ndims < 1 || ndims > WEFT_MAX_DIMS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "constraint",
                          "the network must have 1 to %d dims, got %d", WEFT_MAX_DIMS, ndims);
  if (cs->n < 0 || cs->n > WEFT_MAX_CONSTRAINTS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "constraint",
                          "constraint set is corrupt (n = %d)", cs->n);

  Parser p = {.s = expr, .ndims = ndims, .err = err};
  int rc = lex(&p);
  if (rc) return rc;
  if (p.tok.kind == TOK_END) return fail(&p, WEFT_ESYNTAX, 0, "empty constraint");

  /* Parse the whole chain before touching cs: an error leaves it unchanged. */
  WeftConstraint pend[WEFT_MAX_CONSTRAINTS];
  int np = 0;
  Lin lhs, rhs;
  if ((rc = parse_expr(&p, &lhs, 0))) return rc;
  for (;;) {
    char buf[CONS_QUOTE_MAX + 3];
    if (p.tok.kind == TOK_END) {
      if (np == 0) return fail(&p, WEFT_ESYNTAX, p.tok.start, "expected a relation (=, <=, >=)");
      break;
    }
    if (p.tok.kind == TOK_RPAREN) return fail(&p, WEFT_ESYNTAX, p.tok.start, "unmatched ')'");
    if (p.tok.kind != TOK_REL)
      return fail(&p, WEFT_ESYNTAX, p.tok.start, "missing operator before %s",
                  tok_quote(&p, buf, sizeof buf));
    Token rel = p.tok;
    if ((rc = lex(&p)) || (rc = parse_expr(&p, &rhs, 0))) return rc;
    if (cs->n + np >= WEFT_MAX_CONSTRAINTS)
      return fail(&p, WEFT_EINPUT, rel.start, "too many constraints: at most %d",
                  WEFT_MAX_CONSTRAINTS);
    if ((rc = make_constraint(&p, &lhs, &rhs, &rel, &pend[np]))) return rc;
    np++;
    lhs = rhs;
  }
  memcpy(&cs->c[cs->n], pend, (size_t)np * sizeof pend[0]);
  cs->n += np;
  return WEFT_OK;
}

/* Relative tolerance for two left-hand sides being one linear form: the
 * coefficients are parsed decimals, so a factor that is exact on paper
 * (sum vs 2*sum) is exact to a few ulps here. */
#define SAME_FORM_TOL 1e-12

/* a and b constrain the same quantity: (coef, cost_coef) of one is a
 * nonzero multiple of the other's. */
static int same_lhs(const WeftConstraint *a, const WeftConstraint *b, int ndims) {
  double va[WEFT_MAX_DIMS + 1], vb[WEFT_MAX_DIMS + 1];
  int n = ndims + 1, lead = -1;
  for (int d = 0; d < ndims; d++) {
    va[d] = a->coef[d];
    vb[d] = b->coef[d];
  }
  va[ndims] = a->cost_coef;
  vb[ndims] = b->cost_coef;
  for (int i = 0; i < n; i++) {
    if ((va[i] == 0.0) != (vb[i] == 0.0)) return 0;
    if (lead < 0 && va[i] != 0.0) lead = i;
  }
  if (lead < 0) return 0;
  double k = vb[lead] / va[lead];
  for (int i = 0; i < n; i++)
    if (fabs(vb[i] - k * va[i]) > SAME_FORM_TOL * fmax(fabs(vb[i]), fabs(k * va[i]))) return 0;
  return 1;
}

int weft_constraints_override(WeftConstraints *cs, const char *expr, int ndims, WeftError *err) {
  if (!cs || cs->n < 0 || cs->n > WEFT_MAX_CONSTRAINTS || cs->nreplaced < 0 ||
      cs->nreplaced > WEFT_MAX_CONSTRAINTS)
    return weft_constraints_parse(cs, expr, ndims, err);  /* its argument errors */
  WeftConstraints *add = malloc(sizeof *add);  /* the new relations alone: ~28 kB */
  if (!add) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "constraint", "out of memory");
  add->n = 0;
  add->nreplaced = 0;
  int rc = weft_constraints_parse(add, expr, ndims, err);
  if (rc) {
    free(add);
    return rc;
  }
  char drop[WEFT_MAX_CONSTRAINTS] = {0};
  int ndrop = 0;
  for (int i = 0; i < cs->n; i++)
    for (int k = 0; k < add->n && !drop[i]; k++)
      if (cs->c[i].origin == WEFT_CONS_FILE && same_lhs(&cs->c[i], &add->c[k], ndims)) {
        drop[i] = 1;
        ndrop++;
      }
  if (cs->n - ndrop + add->n > WEFT_MAX_CONSTRAINTS ||
      cs->nreplaced + ndrop > WEFT_MAX_CONSTRAINTS) {
    free(add);
    return weft_error_set(err, WEFT_EINPUT, "", 0, 1, "constraint",
                          "too many constraints: at most %d", WEFT_MAX_CONSTRAINTS);
  }
  int keep = 0;
  for (int i = 0; i < cs->n; i++) {
    if (drop[i]) cs->replaced[cs->nreplaced++] = cs->c[i];
    else cs->c[keep++] = cs->c[i];
  }
  for (int k = 0; k < add->n; k++) {
    cs->c[keep] = add->c[k];
    cs->c[keep++].origin = WEFT_CONS_OPTION;
  }
  cs->n = keep;
  free(add);
  return WEFT_OK;
}
