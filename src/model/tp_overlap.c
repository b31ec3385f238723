/* tp_overlap.c — Transformer Engine's userbuffers settings per GEMM as the
 * recipes' ub_tp_comm_overlap_cfg gives them: the comm kernels' SMs
 * (WeftParallel.tp_overlap_sms, --tp-overlap-sms, num_sm), the ring
 * exchanges' aggregate (tp_overlap_aggregate, --tp-overlap-aggregate) and
 * each GEMM's method (tp_overlap_method, --tp-overlap-method) and the
 * pipelined reduce-scatters' FP8 buffers (tp_overlap_fp8_buf): their names,
 * the one text rule every entry point parses, and the checks against the
 * device and tp (docs/zoo.md, "TP communication overlap"). */
#include <string.h>

#include "model/par_check.h"

/* TE's names, indexed by WeftTpoGemm (transformer_engine/pytorch/module/
 * base.py, initialize_ub: methods["bulk"] and methods["pipeline"]). */
static const char *const GEMM_NAME[WEFT_TPO_NGEMMS] = {
    "qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad", "proj_fprop", "fc2_fprop"};
/* TE's ring exchanges (methods["ring_exchange"]): their chunks move on the
 * copy engines (use_ce), so a recipe's num_sm for them sets nothing. */
static const char *const RING_NAME[4] = {"qkv_fprop", "fc1_fprop", "proj_dgrad", "fc2_dgrad"};

const char *weft_tp_overlap_gemm_name(int gemm) {
  return gemm >= 0 && gemm < WEFT_TPO_NGEMMS ? GEMM_NAME[gemm] : "unknown";
}

static int is_sep(char c) { return c == ',' || c == ' ' || c == '\t'; }

/* The index of the len characters at s among the n names (n: none). */
static int lookup(const char *const *names, int n, const char *s, size_t len) {
  int i = 0;
  while (i < n && !(strlen(names[i]) == len && !strncmp(s, names[i], len))) i++;
  return i;
}

#define FAIL(...) weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tp_overlap_sms", __VA_ARGS__)

/* A value's reader for gemm_list: *x from the len characters at v, or an
 * error naming the entry (name, nlen) and field. */
typedef int (*GemmValue)(int gemm, const char *name, int nlen, const char *v, int len, int *x,
                         WeftError *err);

/* "NAME=VALUE" entries (separated by commas or spaces) into out, indexed
 * by WeftTpoGemm, the GEMMs named once each, the others kept; value reads
 * each value. field and form name the key and a value in the messages;
 * ring says why a ring exchange's name is refused. out unchanged on an
 * error. The one rule of --tp-overlap-sms and --tp-overlap-method. */
static int gemm_list(const char *text, int out[WEFT_TPO_NGEMMS], const char *field,
                     const char *form, const char *ring, GemmValue value, WeftError *err) {
  if (!out) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, field, "no output given");
  int got[WEFT_TPO_NGEMMS], seen[WEFT_TPO_NGEMMS] = {0}, n = 0;
  memcpy(got, out, sizeof got);
  for (const char *s = text ? text : "";;) {
    while (is_sep(*s)) s++;
    if (!*s) break;
    size_t len = 0;
    while (s[len] && !is_sep(s[len])) len++;
    const char *eq = memchr(s, '=', len);
    if (!eq)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%s: '%.*s' is not NAME=%s",
                            field, (int)len, s, form);
    int nlen = (int)(eq - s), i = lookup(GEMM_NAME, WEFT_TPO_NGEMMS, s, (size_t)nlen);
    if (i == WEFT_TPO_NGEMMS) {
      if (lookup(RING_NAME, 4, s, (size_t)nlen) < 4)
        return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%s: %.*s is %s", field, nlen,
                              s, ring);
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field,
                            "%s: unknown GEMM '%.*s' (expected qkv_dgrad, qkv_wgrad, "
                            "fc1_dgrad, fc1_wgrad, proj_fprop or fc2_fprop)",
                            field, nlen, s);
    }
    if (seen[i])
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%s: %.*s is given twice", field,
                            nlen, s);
    int rc = value(i, s, nlen, eq + 1, (int)(len - (size_t)nlen - 1), &got[i], err);
    if (rc) return rc;
    seen[i] = 1;
    n++;
    s += len;
  }
  if (!n)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field,
                          "%s: no GEMM named (expected NAME=%s, ...)", field, form);
  memcpy(out, got, sizeof got);
  return WEFT_OK;
}

static int sms_value(int gemm, const char *name, int nlen, const char *v, int vlen, int *x,
                     WeftError *err) {
  (void)gemm;
  int k = 0;
  *x = 0;
  for (; k < vlen && v[k] >= '0' && v[k] <= '9' && *x <= WEFT_TPO_MAX_SMS; k++)
    *x = 10 * *x + (v[k] - '0');
  if (vlen == 0 || k < vlen || *x > WEFT_TPO_MAX_SMS)
    return FAIL("tp_overlap_sms: %.*s=%.*s: expected a whole number of SMs in 0..%d", nlen, name,
                vlen, v, WEFT_TPO_MAX_SMS);
  return WEFT_OK;
}

int weft_tp_overlap_sms_parse(const char *text, int sms[WEFT_TPO_NGEMMS], WeftError *err) {
  return gemm_list(text, sms, "tp_overlap_sms", "SMS",
                   "a ring exchange: Transformer Engine moves its chunks with the copy engines "
                   "(use_ce), it takes no SMs",
                   sms_value, err);
}

#define FAIL_AGG(...) \
  weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tp_overlap_aggregate", __VA_ARGS__)

/* A list of names (separated by commas or spaces) into *mask: each one of
 * own[n] (bit[i] for own[i]) among the ok bits, once; one of other[] is
 * refused with why_other, an own name outside ok with why_not_ok.
 * field and expected (the names it takes) word the messages; *mask
 * unchanged on an error. The one rule of --tp-overlap-aggregate and
 * --tp-overlap-fp8-buf. */
typedef struct {
  const char *field, *expected, *why_other, *why_not_ok;
  const char *const *own, *const *other;
  int n, nother, ok;
  const int *bit;
} NameRule;

static int name_mask(const NameRule *r, const char *text, int *mask, WeftError *err) {
  if (!mask) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, r->field, "no output given");
  int m = 0;
  for (const char *s = text ? text : "";;) {
    while (is_sep(*s)) s++;
    if (!*s) break;
    int len = 0;
    while (s[len] && !is_sep(s[len])) len++;
    int i = lookup(r->own, r->n, s, (size_t)len);
    const char *why = i < r->n && !(r->ok & r->bit[i]) ? r->why_not_ok
                      : i == r->n && lookup(r->other, r->nother, s, (size_t)len) < r->nother
                          ? r->why_other
                          : NULL;
    if (why)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, r->field, "%s: %.*s is %s", r->field,
                            len, s, why);
    if (i == r->n)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, r->field,
                            "%s: unknown GEMM '%.*s' (expected %s)", r->field, len, s,
                            r->expected);
    if (m & r->bit[i])
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, r->field, "%s: %.*s is given twice",
                            r->field, len, s);
    m |= r->bit[i];
    s += len;
  }
  if (!m)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, r->field, "%s: no GEMM named", r->field);
  *mask = m;
  return WEFT_OK;
}

int weft_tp_overlap_aggregate_parse(const char *text, int *mask, WeftError *err) {
  static const int bit[4] = {WEFT_TPO_QKV_FPROP, WEFT_TPO_FC1_FPROP, WEFT_TPO_PROJ_DGRAD,
                             WEFT_TPO_FC2_DGRAD}; /* RING_NAME's order */
  static const NameRule r = {
      .field = "tp_overlap_aggregate",
      .expected = "qkv_fprop, fc1_fprop, proj_dgrad or fc2_dgrad",
      .why_other = "no ring exchange (TE's aggregate is the ring exchange's)",
      .own = RING_NAME, .n = 4, .bit = bit, .ok = 15,
      .other = GEMM_NAME, .nother = WEFT_TPO_NGEMMS};
  return name_mask(&r, text, mask, err);
}

/* TE's method names, indexed by WeftTpoMethod (0: TE's default, no name). */
static const char *const METHOD_NAME[4] = {"", "bulk", "pipeline", "ring_exchange"};
#define M_(m) (1 << (m))
/* The methods each WeftTpoGemm takes (transformer_engine/pytorch/module/
 * base.py v2.x, initialize_ub: pipeline is refused for an all-gather; the
 * bulk dgrad overlaps may become reduce-scatter overlaps of the dgrad's
 * output, dgrad_reduce_scatter_overlap, which drops the wgrad's). */
static const int METHODS_OF[WEFT_TPO_NGEMMS] = {
    M_(WEFT_TPO_BULK) | M_(WEFT_TPO_PIPELINE) | M_(WEFT_TPO_RING_EXCHANGE), /* qkv_dgrad */
    M_(WEFT_TPO_BULK),                                                      /* qkv_wgrad */
    M_(WEFT_TPO_BULK) | M_(WEFT_TPO_PIPELINE) | M_(WEFT_TPO_RING_EXCHANGE), /* fc1_dgrad */
    M_(WEFT_TPO_BULK),                                                      /* fc1_wgrad */
    M_(WEFT_TPO_PIPELINE) | M_(WEFT_TPO_RING_EXCHANGE),                     /* proj_fprop */
    M_(WEFT_TPO_PIPELINE) | M_(WEFT_TPO_RING_EXCHANGE)};                    /* fc2_fprop */
static const char *const TAKES[WEFT_TPO_NGEMMS] = {
    "bulk, pipeline or ring_exchange", "bulk", "bulk, pipeline or ring_exchange", "bulk",
    "pipeline or ring_exchange", "pipeline or ring_exchange"};

#define FAIL_M(...) \
  weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tp_overlap_method", __VA_ARGS__)

static int method_value(int gemm, const char *name, int nlen, const char *v, int vlen, int *x,
                        WeftError *err) {
  int m = lookup(METHOD_NAME + 1, 3, v, (size_t)vlen) + 1;
  if (m > 3)
    return FAIL_M("tp_overlap_method: %.*s=%.*s: expected bulk, pipeline or ring_exchange", nlen,
                  name, vlen, v);
  if (!(METHODS_OF[gemm] & M_(m)))
    return FAIL_M("tp_overlap_method: %.*s takes %s, not %s", nlen, name, TAKES[gemm],
                  METHOD_NAME[m]);
  *x = m;
  return WEFT_OK;
}

int weft_tp_overlap_method_parse(const char *text, int method[WEFT_TPO_NGEMMS], WeftError *err) {
  return gemm_list(text, method, "tp_overlap_method", "METHOD",
                   "an all-gather under its GEMM: Transformer Engine runs it as a ring exchange "
                   "only",
                   method_value, err);
}

#define FP8_BUF_OK \
  ((1 << WEFT_TPO_PROJ_FPROP) | (1 << WEFT_TPO_FC2_FPROP) | (1 << WEFT_TPO_QKV_DGRAD) | \
   (1 << WEFT_TPO_FC1_DGRAD))
#define FAIL_BUF(...) \
  weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tp_overlap_fp8_buf", __VA_ARGS__)

int weft_tp_overlap_fp8_buf_parse(const char *text, int *mask, WeftError *err) {
  static const int bit[WEFT_TPO_NGEMMS] = {1, 2, 4, 8, 16, 32}; /* 1 << WeftTpoGemm */
  static const NameRule r = {
      .field = "tp_overlap_fp8_buf",
      .expected = "proj_fprop, fc2_fprop, qkv_dgrad or fc1_dgrad",
      .why_other = "an all-gather: its buffer is FP8 with FP8 GEMMs already (Transformer "
                   "Engine's fp8_buf on every all-gather)",
      .why_not_ok = "a bulk reduce-scatter: Transformer Engine honours fp8_buf on pipelined "
                    "ones only",
      .own = GEMM_NAME, .n = WEFT_TPO_NGEMMS, .bit = bit, .ok = FP8_BUF_OK,
      .other = RING_NAME, .nother = 4};
  return name_mask(&r, text, mask, err);
}

int weft_tp_overlap_rs_fp8(const WeftParallel *p, int gemm) {
  return p->fp8 != WEFT_FP8_OFF && (p->tp_overlap_fp8_buf & (1 << gemm)) &&
         weft_tp_overlap_method_of(p, gemm) == WEFT_TPO_PIPELINE;
}

int weft_tp_overlap_method_of(const WeftParallel *p, int gemm) {
  static const int te[WEFT_TPO_NGEMMS] = {WEFT_TPO_BULK,     WEFT_TPO_BULK,
                                          WEFT_TPO_BULK,     WEFT_TPO_BULK,
                                          WEFT_TPO_PIPELINE, WEFT_TPO_PIPELINE};
  int m = p->tp_overlap_method[gemm];
  return m == WEFT_TPO_METHOD_DEFAULT ? te[gemm] : m;
}

/* A dgrad GEMM run as a reduce-scatter overlap with its wgrad's bulk one
 * named too: TE asserts the wgrad absent from the config. */
static int wgrad_clash(const WeftParallel *p, int dgrad, int wgrad) {
  int d = weft_tp_overlap_method_of(p, dgrad);
  return d != WEFT_TPO_BULK && p->tp_overlap_method[wgrad] != WEFT_TPO_METHOD_DEFAULT;
}

int weft_tp_overlap_check(const WeftParallel *p, const WeftDevice *dev, WeftError *err) {
  int custom = 0;
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) {
    int m = p->tp_overlap_method[i];
    if (m < 0 || m > 3)
      return FAIL_M("tp_overlap_method: %s=%d: expected 0..3 (WeftTpoMethod)", GEMM_NAME[i], m);
    if (m && !(METHODS_OF[i] & M_(m)))
      return FAIL_M("tp_overlap_method: %s takes %s, not %s", GEMM_NAME[i], TAKES[i],
                    METHOD_NAME[m]);
    custom |= m != WEFT_TPO_METHOD_DEFAULT;
  }
  for (int k = 0; k < 2; k++) {
    int dg = k ? WEFT_TPO_FC1_DGRAD : WEFT_TPO_QKV_DGRAD, wg = dg + 1;
    if (wgrad_clash(p, dg, wg))
      return FAIL_M("tp_overlap_method: %s as a reduce-scatter overlap (%s) drops %s's bulk "
                    "overlap; Transformer Engine refuses %s in the config then",
                    GEMM_NAME[dg], METHOD_NAME[weft_tp_overlap_method_of(p, dg)], GEMM_NAME[wg],
                    GEMM_NAME[wg]);
  }
  if (custom && p->tp_comm_overlap && p->layer_impl == WEFT_LAYERS_TORCH)
    return FAIL_M("tp_overlap_method: Transformer Engine's userbuffers methods; torch layers "
                  "(layer_impl torch) run async TP, which has none");
  if (p->tp_overlap_fp8_buf & ~FP8_BUF_OK)
    return FAIL_BUF("tp_overlap_fp8_buf: bits of proj_fprop, fc2_fprop, qkv_dgrad and fc1_dgrad "
                    "only, got %d",
                    p->tp_overlap_fp8_buf);
  if (p->tp_overlap_aggregate < 0 || p->tp_overlap_aggregate > 15)
    return FAIL_AGG("tp_overlap_aggregate: bits 0..15, got %d", p->tp_overlap_aggregate);
  if (p->tp_comm_overlap && p->tp_overlap_aggregate && p->tp > 1 && p->tp % 2)
    return FAIL_AGG("tp_overlap_aggregate: TE's aggregate exchanges between rank pairs: it needs "
                    "an even tp, got %d",
                    p->tp);
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) {
    int k = p->tp_overlap_sms[i];
    if (k < 0 || k > WEFT_TPO_MAX_SMS)
      return FAIL("tp_overlap_sms: %s=%d: expected 0..%d", GEMM_NAME[i], k, WEFT_TPO_MAX_SMS);
    if (p->tp_comm_overlap && dev && dev->sms > 0 && k >= dev->sms)
      return FAIL("tp_overlap_sms: %s=%d: expected 0..%d (device '%s' has %d SMs; the GEMM "
                  "runs on the others)",
                  GEMM_NAME[i], k, dev->sms - 1, dev->name, dev->sms);
  }
  return WEFT_OK;
}
