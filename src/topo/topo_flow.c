/* topo_flow.c — fluid max-min simulation of flow groups (topo_flow.h): a
 * group's transfers share one rate, so a ring of 1,024 hops is one flow of
 * the water-filling and one completion event, not 1,024. */
#include "topo/topo_flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

/* A group ends when what is left of it is below this share of its bytes:
 * the rounding of left - rate x dt for the group that set dt, and groups
 * that end at the same instant up to rounding end in the same event. */
#define GROUP_DONE_TOL 1e-9

typedef struct {
  double key;       /* the link's fair share when pushed */
  int link;
  unsigned ver;     /* the link's version when pushed: older entries are stale */
} HeapEnt;

struct TopoFlow {
  int nl;
  double *cap, *bytes, *rem, *n;  /* per link: capacity, carried, left to share, unfrozen weight */
  int *cnt, *mark, *where, *lstart, *lgroup;  /* unfrozen groups; merging; link -> groups CSR */
  unsigned *ver;
  int ng, capg;      /* groups */
  double *left, *size, *rate;
  unsigned *tag;
  int *ustart;       /* usages of group g: ustart[g] .. ustart[g + 1] */
  char *state;       /* 0 active, 1 frozen this filling, 2 done */
  int nu, capu;      /* usages */
  int *ulink;
  double *uw;
  HeapEnt *heap;
  int nheap, capheap;
};

TopoFlow *topo_flow_create(int nlinks, const double *cap_gbps) {
  TopoFlow *tf = calloc(1, sizeof *tf);
  if (!tf || nlinks < 0) {
    free(tf);
    return NULL;
  }
  size_t L = (size_t)nlinks + 1;
  tf->nl = nlinks;
  tf->cap = malloc(L * sizeof *tf->cap);
  tf->bytes = calloc(L, sizeof *tf->bytes);
  tf->rem = malloc(L * sizeof *tf->rem);
  tf->n = malloc(L * sizeof *tf->n);
  tf->cnt = malloc(L * sizeof *tf->cnt);
  tf->mark = malloc(L * sizeof *tf->mark);
  tf->where = malloc(L * sizeof *tf->where);
  tf->lstart = malloc((L + 1) * sizeof *tf->lstart);
  tf->ver = calloc(L, sizeof *tf->ver);
  tf->ustart = malloc(sizeof *tf->ustart);
  if (!tf->cap || !tf->bytes || !tf->rem || !tf->n || !tf->cnt || !tf->mark || !tf->where ||
      !tf->lstart || !tf->ver || !tf->ustart) {
    topo_flow_free(tf);
    return NULL;
  }
  if (nlinks) memcpy(tf->cap, cap_gbps, (size_t)nlinks * sizeof *tf->cap);
  for (int l = 0; l < nlinks; l++) tf->mark[l] = -1;
  tf->ustart[0] = 0;
  return tf;
}

void topo_flow_free(TopoFlow *tf) {
  if (!tf) return;
  free(tf->cap), free(tf->bytes), free(tf->rem), free(tf->n), free(tf->cnt), free(tf->mark);
  free(tf->where), free(tf->lstart), free(tf->lgroup), free(tf->ver);
  free(tf->left), free(tf->size), free(tf->rate), free(tf->tag), free(tf->ustart), free(tf->state);
  free(tf->ulink), free(tf->uw), free(tf->heap);
  free(tf);
}

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return WEFT_OK;
  int c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * elem);
  if (!q) return WEFT_ENOMEM;
  *p = q;
  *cap = c;
  return WEFT_OK;
}

int topo_flow_group(TopoFlow *tf, double bytes, unsigned tag) {
  if (!(bytes > 0) || bytes >= HUGE_VAL) return WEFT_EINVAL;
  int c = tf->capg, need = tf->ng + 1;
  if (need > c) {
    int c2 = c ? c * 2 : 64;
    double *a = realloc(tf->left, (size_t)c2 * sizeof *a);
    if (a) tf->left = a;
    double *b = realloc(tf->size, (size_t)c2 * sizeof *b);
    if (b) tf->size = b;
    double *r = realloc(tf->rate, (size_t)c2 * sizeof *r);
    if (r) tf->rate = r;
    unsigned *t = realloc(tf->tag, (size_t)c2 * sizeof *t);
    if (t) tf->tag = t;
    int *u = realloc(tf->ustart, ((size_t)c2 + 1) * sizeof *u);
    if (u) tf->ustart = u;
    char *s = realloc(tf->state, (size_t)c2);
    if (s) tf->state = s;
    if (!a || !b || !r || !t || !u || !s) return WEFT_ENOMEM;
    tf->capg = c2;
  }
  int g = tf->ng++;
  tf->left[g] = tf->size[g] = bytes;
  tf->rate[g] = 0.0;
  tf->tag[g] = tag;
  tf->state[g] = 0;
  tf->ustart[g + 1] = tf->nu;
  return WEFT_OK;
}

int topo_flow_use(TopoFlow *tf, int link, double w) {
  if (tf->ng < 1 || link < 0 || link >= tf->nl || !(w > 0)) return WEFT_EINVAL;
  int g = tf->ng - 1;
  if (tf->mark[link] == g) { /* the group is on this link already: one usage */
    tf->uw[tf->where[link]] += w;
    return WEFT_OK;
  }
  int cu = tf->capu;
  if (grow((void **)&tf->ulink, &cu, tf->nu + 1, sizeof *tf->ulink)) return WEFT_ENOMEM;
  cu = tf->capu;
  if (grow((void **)&tf->uw, &cu, tf->nu + 1, sizeof *tf->uw)) return WEFT_ENOMEM;
  tf->capu = cu;
  tf->mark[link] = g;
  tf->where[link] = tf->nu;
  tf->ulink[tf->nu] = link;
  tf->uw[tf->nu++] = w;
  tf->ustart[g + 1] = tf->nu;
  return WEFT_OK;
}

/* ------------------------------------------------------------ water-filling */

static int hless(const HeapEnt *a, const HeapEnt *b) {
  return a->key < b->key || (a->key == b->key && a->link < b->link);
}

static int hpush(TopoFlow *tf, int l) {
  if (grow((void **)&tf->heap, &tf->capheap, tf->nheap + 1, sizeof *tf->heap)) return WEFT_ENOMEM;
  HeapEnt e = {tf->rem[l] > 0 ? tf->rem[l] / tf->n[l] : 0.0, l, tf->ver[l]};
  int i = tf->nheap++;
  while (i > 0 && hless(&e, &tf->heap[(i - 1) / 2])) {
    tf->heap[i] = tf->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  tf->heap[i] = e;
  return WEFT_OK;
}

static HeapEnt hpop(TopoFlow *tf) {
  HeapEnt top = tf->heap[0], e = tf->heap[--tf->nheap];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= tf->nheap) break;
    if (c + 1 < tf->nheap && hless(&tf->heap[c + 1], &tf->heap[c])) c++;
    if (!hless(&tf->heap[c], &e)) break;
    tf->heap[i] = tf->heap[c];
    i = c;
  }
  if (tf->nheap) tf->heap[i] = e;
  return top;
}

/* Max-min rates of the active groups: raise every unfrozen group's rate
 * together; the link whose share (capacity left / unfrozen weight) is the
 * smallest fills first and freezes its groups at that share. */
static int fill(TopoFlow *tf) {
  for (int l = 0; l < tf->nl; l++) {
    tf->rem[l] = tf->cap[l];
    tf->n[l] = 0.0;
    tf->cnt[l] = 0;
  }
  for (int g = 0; g < tf->ng; g++) {
    if (tf->state[g] == 2) continue;
    tf->state[g] = 0;
    for (int u = tf->ustart[g]; u < tf->ustart[g + 1]; u++) {
      tf->n[tf->ulink[u]] += tf->uw[u];
      tf->cnt[tf->ulink[u]]++;
    }
  }
  tf->nheap = 0;
  for (int l = 0; l < tf->nl; l++)
    if (tf->cnt[l] && hpush(tf, l)) return WEFT_ENOMEM;
  while (tf->nheap) {
    HeapEnt e = hpop(tf);
    int l = e.link;
    if (e.ver != tf->ver[l] || !tf->cnt[l]) continue;
    double share = e.key;
    for (int k = tf->lstart[l]; k < tf->lstart[l + 1]; k++) {
      int g = tf->lgroup[k];
      if (tf->state[g] != 0) continue;
      tf->state[g] = 1;
      tf->rate[g] = share;
      for (int u = tf->ustart[g]; u < tf->ustart[g + 1]; u++) {
        int m = tf->ulink[u];
        tf->rem[m] -= tf->uw[u] * share;
        tf->n[m] -= tf->uw[u];
        tf->cnt[m]--;
        tf->ver[m]++;
        if (tf->cnt[m] && m != l && hpush(tf, m)) return WEFT_ENOMEM;
      }
    }
  }
  return WEFT_OK;
}

/* link -> groups on it, once (the groups are all added by now) */
static int index_links(TopoFlow *tf) {
  free(tf->lgroup);
  tf->lgroup = malloc(((size_t)tf->nu + 1) * sizeof *tf->lgroup);
  if (!tf->lgroup) return WEFT_ENOMEM;
  memset(tf->lstart, 0, ((size_t)tf->nl + 2) * sizeof *tf->lstart);
  for (int u = 0; u < tf->nu; u++) tf->lstart[tf->ulink[u] + 2]++;
  for (int l = 0; l < tf->nl; l++) tf->lstart[l + 2] += tf->lstart[l + 1];
  for (int g = 0; g < tf->ng; g++)
    for (int u = tf->ustart[g]; u < tf->ustart[g + 1]; u++)
      tf->lgroup[tf->lstart[tf->ulink[u] + 1]++] = g;
  return WEFT_OK;
}

int topo_flow_run(TopoFlow *tf, double *end_ns, int ntags) {
  for (int k = 0; k < ntags; k++) end_ns[k] = 0.0;
  int rc = index_links(tf), active = 0;
  for (int g = 0; g < tf->ng; g++) {
    if (tf->ustart[g + 1] > tf->ustart[g]) active++;
    else tf->state[g] = 2; /* on no link: nothing to carry */
  }
  double now = 0.0;
  while (!rc && active > 0) {
    if ((rc = fill(tf))) break;
    double dt = HUGE_VAL;
    for (int g = 0; g < tf->ng; g++)
      if (tf->state[g] != 2 && tf->rate[g] > 0) dt = fmin(dt, tf->left[g] / tf->rate[g]);
    if (!(dt < HUGE_VAL)) return WEFT_EINVAL; /* no group can move: a link of capacity 0 */
    now += dt;
    for (int l = 0; l < tf->nl; l++) tf->bytes[l] += (tf->cap[l] - tf->rem[l]) * dt;
    for (int g = 0; g < tf->ng; g++) {
      if (tf->state[g] == 2) continue;
      tf->left[g] -= tf->rate[g] * dt;
      if (tf->left[g] <= GROUP_DONE_TOL * tf->size[g]) {
        tf->state[g] = 2;
        active--;
        if (tf->tag[g] < (unsigned)ntags) end_ns[tf->tag[g]] = now;
      }
    }
  }
  return rc;
}

double topo_flow_link_bytes(const TopoFlow *tf, int l) {
  return l >= 0 && l < tf->nl ? tf->bytes[l] : 0.0;
}
