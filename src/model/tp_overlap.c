/* tp_overlap.c — Transformer Engine's userbuffers settings per GEMM as the
 * recipes' ub_tp_comm_overlap_cfg gives them: the comm kernels' SMs
 * (WeftParallel.tp_overlap_sms, --tp-overlap-sms, num_sm) and the ring
 * exchanges' aggregate (tp_overlap_aggregate, --tp-overlap-aggregate):
 * their names, the one text rule every entry point parses, and the checks
 * against the device and tp (docs/zoo.md, "TP communication overlap"). */
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

int weft_tp_overlap_sms_parse(const char *text, int sms[WEFT_TPO_NGEMMS], WeftError *err) {
  if (!sms) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "tp_overlap_sms", "no output given");
  int got[WEFT_TPO_NGEMMS], seen[WEFT_TPO_NGEMMS] = {0}, n = 0;
  memcpy(got, sms, sizeof got);
  for (const char *s = text ? text : "";;) {
    while (is_sep(*s)) s++;
    if (!*s) break;
    size_t len = 0;
    while (s[len] && !is_sep(s[len])) len++;
    const char *eq = memchr(s, '=', len);
    if (!eq)
      return FAIL("tp_overlap_sms: '%.*s' is not NAME=SMS", (int)len, s);
    int nlen = (int)(eq - s), i = lookup(GEMM_NAME, WEFT_TPO_NGEMMS, s, (size_t)nlen);
    if (i == WEFT_TPO_NGEMMS) {
      if (lookup(RING_NAME, 4, s, (size_t)nlen) < 4)
        return FAIL("tp_overlap_sms: %.*s is a ring exchange: Transformer Engine moves its "
                    "chunks with the copy engines (use_ce), it takes no SMs",
                    nlen, s);
      return FAIL("tp_overlap_sms: unknown GEMM '%.*s' (expected qkv_dgrad, qkv_wgrad, "
                  "fc1_dgrad, fc1_wgrad, proj_fprop or fc2_fprop)",
                  nlen, s);
    }
    if (seen[i])
      return FAIL("tp_overlap_sms: %.*s is given twice", nlen, s);
    const char *v = eq + 1;
    int vlen = (int)(len - (size_t)nlen - 1), x = 0, k = 0;
    for (; k < vlen && v[k] >= '0' && v[k] <= '9' && x <= WEFT_TPO_MAX_SMS; k++)
      x = 10 * x + (v[k] - '0');
    if (vlen == 0 || k < vlen || x > WEFT_TPO_MAX_SMS)
      return FAIL("tp_overlap_sms: %.*s=%.*s: expected a whole number of SMs in 0..%d", nlen, s,
                  vlen, v, WEFT_TPO_MAX_SMS);
    seen[i] = 1;
    got[i] = x;
    n++;
    s += len;
  }
  if (!n) return FAIL("tp_overlap_sms: no GEMM named (expected NAME=SMS, ...)");
  memcpy(sms, got, sizeof got);
  return WEFT_OK;
}

#define FAIL_AGG(...) \
  weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tp_overlap_aggregate", __VA_ARGS__)

int weft_tp_overlap_aggregate_parse(const char *text, int *mask, WeftError *err) {
  if (!mask)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "tp_overlap_aggregate", "no output given");
  static const int bit[4] = {WEFT_TPO_QKV_FPROP, WEFT_TPO_FC1_FPROP, WEFT_TPO_PROJ_DGRAD,
                             WEFT_TPO_FC2_DGRAD}; /* RING_NAME's order */
  int m = 0;
  for (const char *s = text ? text : "";;) {
    while (is_sep(*s)) s++;
    if (!*s) break;
    int len = 0;
    while (s[len] && !is_sep(s[len])) len++;
    int i = lookup(RING_NAME, 4, s, (size_t)len);
    if (i == 4) {
      if (lookup(GEMM_NAME, WEFT_TPO_NGEMMS, s, (size_t)len) < WEFT_TPO_NGEMMS)
        return FAIL_AGG("tp_overlap_aggregate: %.*s is no ring exchange (TE's aggregate is the "
                        "ring exchange's)",
                        len, s);
      return FAIL_AGG("tp_overlap_aggregate: unknown GEMM '%.*s' (expected qkv_fprop, "
                      "fc1_fprop, proj_dgrad or fc2_dgrad)",
                      len, s);
    }
    if (m & bit[i]) return FAIL_AGG("tp_overlap_aggregate: %.*s is given twice", len, s);
    m |= bit[i];
    s += len;
  }
  if (!m) return FAIL_AGG("tp_overlap_aggregate: no GEMM named");
  *mask = m;
  return WEFT_OK;
}

int weft_tp_overlap_check(const WeftParallel *p, const WeftDevice *dev, WeftError *err) {
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
