/* hidden.h — internal: collectives hidden behind compute (WeftPhaseSpec.
 * overlap_ns) as exact time rows: a sum of hinges max(0, s tau - g) is the
 * max of affine pieces (docs/model.md, "Hidden collectives"). */
#ifndef WEFT_OPT_HIDDEN_H
#define WEFT_OPT_HIDDEN_H

/* One hinge of a job, kept for the report's split: the phase's collectives
 * of pattern pat with the same breakpoint, s bytes, latencies lat ns, and
 * g = overlap - lat ns (exposed: max(0, s tau - g); saved: s tau + lat - that). */
typedef struct {
  int ph, pat;
  double s, lat, g;
} HidItem;

/* Rows [C, a_0..a_{P-1}] of a job, grown as the loop's base rows are pushed,
 * each expanded by the hinges active at that point. */
typedef struct {
  int P, W;         /* patterns; row width P + 1 */
  int nkey, capkey; /* distinct (pattern, breakpoint) hinges */
  int *pat;
  double *beta;     /* g / s: the pattern time from which the hinge is exposed */
  double *S, *G;    /* active bytes and sum of g per hinge */
  int *order;       /* hinges by pattern, then breakpoint (weft_hid_ready) */
  double *rows;
  int R, cap;
} HidRows;

/* Rows that one job may have at most (its hinges' pieces, combined over the
 * patterns, times the loop's base rows): beyond it the problem is refused.
 * TP overlap + ZeRO-3 prefetch + the CP ring hidden together (torchtitan's
 * 405B with CP) take some 300,000; 2^20 rows of ~12 doubles are ~100 MB. */
#define WEFT_HID_MAX_ROWS (1 << 20)

int weft_hid_init(HidRows *h, int P);
void weft_hid_free(HidRows *h);
/* The hinge of pattern pat with breakpoint g / s (found or added): its index,
 * or -1 out of memory. Every hinge is declared before weft_hid_ready. */
int weft_hid_key(HidRows *h, int pat, double s, double g);
/* Order the hinges and make room for their sums (all 0): WEFT_ENOMEM. */
int weft_hid_ready(HidRows *h);
/* Make hinge k active with s more bytes and g more ns. */
static inline void weft_hid_add(HidRows *h, int k, double s, double g) {
  h->S[k] += s;
  h->G[k] += g;
}
/* Push base (W doubles) expanded by every active hinge: one row per choice
 * of piece on each pattern, a row dominated by the last kept one skipped and
 * kept ones the new one dominates dropped. WEFT_ENOMEM, or WEFT_EINPUT past
 * WEFT_HID_MAX_ROWS. */
int weft_hid_push(HidRows *h, const double *base);

#endif
