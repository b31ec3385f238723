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

struct TopoFlow {
  int nl;
  double *cap, *bytes, *rem, *n;  /* per link: capacity, carried, left to share, unfrozen weight */
  int *cnt, *mark, *where, *lstart, *lgroup;  /* unfrozen groups; merging; link -> groups CSR */
  int ng, capg;      /* groups */
  double *left, *size, *rate;
  unsigned *tag;
  int *ustart;       /* usages of group g: ustart[g] .. ustart[g + 1] */
  char *state;       /* 0 active, 1 frozen this filling, 2 done */
  int nu, capu;      /* usages */
  int *ulink;
  double *uw;
  int *heap, *hpos, nheap;  /* links by fair share (indexed heap) */
  double *key;
  int *order, norder;  /* active groups in the order the last filling froze them */
  double *load;        /* per link: the active groups' bytes/ns */
  int *touched, stamp; /* links the refilling visits, and its stamp in mark2 */
  int *mark2;
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
  tf->heap = malloc(L * sizeof *tf->heap);
  tf->hpos = malloc(L * sizeof *tf->hpos);
  tf->key = malloc(L * sizeof *tf->key);
  tf->ustart = malloc(sizeof *tf->ustart);
  tf->load = calloc(L, sizeof *tf->load);
  tf->touched = malloc(L * sizeof *tf->touched);
  tf->mark2 = calloc(L, sizeof *tf->mark2);
  if (!tf->load || !tf->touched || !tf->mark2 || !tf->cap || !tf->bytes || !tf->rem || !tf->n || !tf->cnt || !tf->mark || !tf->where ||
      !tf->lstart || !tf->heap || !tf->hpos || !tf->key || !tf->ustart) {
    topo_flow_free(tf);
    return NULL;
  }
  if (nlinks) memcpy(tf->cap, cap_gbps, (size_t)nlinks * sizeof *tf->cap);
  for (int l = 0; l < nlinks; l++) tf->mark[l] = tf->hpos[l] = -1;
  tf->ustart[0] = 0;
  return tf;
}

void topo_flow_free(TopoFlow *tf) {
  if (!tf) return;
  free(tf->cap), free(tf->bytes), free(tf->rem), free(tf->n), free(tf->cnt), free(tf->mark);
  free(tf->where), free(tf->lstart), free(tf->lgroup), free(tf->hpos), free(tf->key);
  free(tf->left), free(tf->size), free(tf->rate), free(tf->tag), free(tf->ustart), free(tf->state);
  free(tf->ulink), free(tf->uw), free(tf->heap), free(tf->order), free(tf->load);
  free(tf->touched), free(tf->mark2);
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

/* Indexed 4-ary min-heap of links by (fair share, id); hpos[l] = place or
 * -1. (fair share, id) is a total order, so links leave it in the same order
 * whatever its shape; four children a node make it half as deep as a binary
 * one, and the sifts down that every frozen group causes cheaper (3%). */
static double share_of(const TopoFlow *tf, int l) {
  return tf->rem[l] > 0 ? tf->rem[l] / tf->n[l] : 0.0;
}

static int hless(const TopoFlow *tf, int a, int b) {
  double ka = tf->key[a], kb = tf->key[b];
  return ka < kb || (ka == kb && a < b);
}

static void hset(TopoFlow *tf, int i, int l) {
  tf->heap[i] = l;
  tf->hpos[l] = i;
}

static void hup(TopoFlow *tf, int i) {
  int l = tf->heap[i];
  while (i > 0 && hless(tf, l, tf->heap[(i - 1) / 4])) {
    hset(tf, i, tf->heap[(i - 1) / 4]);
    i = (i - 1) / 4;
  }
  hset(tf, i, l);
}

static void hdown(TopoFlow *tf, int i) {
  int l = tf->heap[i];
  for (;;) {
    int c = 4 * i + 1, end = c + 4 < tf->nheap ? c + 4 : tf->nheap;
    if (c >= tf->nheap) break;
    for (int k = c + 1; k < end; k++)
      if (hless(tf, tf->heap[k], tf->heap[c])) c = k;
    if (!hless(tf, tf->heap[c], l)) break;
    hset(tf, i, tf->heap[c]);
    i = c;
  }
  hset(tf, i, l);
}

static void hpush(TopoFlow *tf, int l) {
  tf->key[l] = share_of(tf, l);
  hset(tf, tf->nheap++, l);
  hup(tf, tf->nheap - 1);
}

/* l's share changed (it holds unfrozen groups still) or l left (none). */
static void hupdate(TopoFlow *tf, int l) {
  int i = tf->hpos[l];
  if (i < 0) return;
  if (!tf->cnt[l]) { /* take it out */
    int last = tf->heap[--tf->nheap];
    tf->hpos[l] = -1;
    if (i < tf->nheap) {
      hset(tf, i, last);
      hup(tf, i);
      hdown(tf, tf->hpos[last]);
    }
    return;
  }
  double k = share_of(tf, l), old = tf->key[l];
  tf->key[l] = k;
  if (k < old) hup(tf, i);
  else hdown(tf, i);
}

static int hpop(TopoFlow *tf) {
  int top = tf->heap[0], last = tf->heap[--tf->nheap];
  tf->hpos[top] = -1;
  if (tf->nheap) {
    hset(tf, 0, last);
    hdown(tf, 0);
  }
  return top;
}

/* Max-min rates of the active groups: raise every unfrozen group's rate
 * together; the link whose share (capacity left / unfrozen weight) is the
 * smallest fills first and freezes its groups at that share. Only the
 * groups from order[cut] on are refilled: the groups before it were frozen
 * below the level of every group that ended since, so those never crossed
 * their links and their rates stand (removing groups frozen at a higher
 * level changes nothing below it). Their load stays on the links. */
static int fill(TopoFlow *tf, int cut) {
  int nt = 0, st = ++tf->stamp;
  for (int k = cut; k < tf->norder; k++) { /* take the suffix's load off its links */
    int g = tf->order[k];
    for (int u = tf->ustart[g]; u < tf->ustart[g + 1]; u++) {
      int l = tf->ulink[u];
      if (tf->mark2[l] != st) {
        tf->mark2[l] = st;
        tf->touched[nt++] = l;
        tf->n[l] = 0.0;
        tf->cnt[l] = 0;
      }
      tf->load[l] -= tf->uw[u] * tf->rate[g];
    }
  }
  int keep = cut;
  for (int k = cut; k < tf->norder; k++) { /* the suffix's groups still going, unfrozen */
    int g = tf->order[k];
    if (tf->state[g] == 2) continue;
    tf->state[g] = 0;
    tf->order[keep++] = g; /* placeholder; rewritten in freezing order below */
    for (int u = tf->ustart[g]; u < tf->ustart[g + 1]; u++) {
      tf->n[tf->ulink[u]] += tf->uw[u];
      tf->cnt[tf->ulink[u]]++;
    }
  }
  tf->norder = cut;
  tf->nheap = 0;
  for (int k = 0; k < nt; k++) {
    int l = tf->touched[k];
    if (tf->load[l] < 0) tf->load[l] = 0; /* rounding: no one else is on it */
    tf->rem[l] = tf->cap[l] - tf->load[l];
    if (tf->cnt[l]) hpush(tf, l);
  }
  while (tf->nheap) {
    double share = tf->key[tf->heap[0]];
    int l = hpop(tf);
    for (int k = tf->lstart[l]; k < tf->lstart[l + 1]; k++) {
      int g = tf->lgroup[k];
      if (tf->state[g] != 0) continue;
      tf->state[g] = 1;
      tf->rate[g] = share;
      tf->order[tf->norder++] = g;
      for (int u = tf->ustart[g]; u < tf->ustart[g + 1]; u++) {
        int m = tf->ulink[u];
        tf->rem[m] -= tf->uw[u] * share;
        tf->load[m] += tf->uw[u] * share;
        tf->n[m] -= tf->uw[u];
        tf->cnt[m]--;
        if (m != l) hupdate(tf, m);
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
  tf->order = rc ? NULL : malloc(((size_t)tf->ng + 1) * sizeof *tf->order);
  if (!rc && !tf->order) rc = WEFT_ENOMEM;
  tf->norder = 0;
  for (int g = 0; !rc && g < tf->ng; g++) {
    tf->rate[g] = 0.0;
    if (tf->ustart[g + 1] > tf->ustart[g]) {
      active++;
      tf->order[tf->norder++] = g; /* the first filling takes them all */
    } else {
      tf->state[g] = 2; /* on no link: nothing to carry */
    }
  }
  double now = 0.0;
  int cut = 0;
  while (!rc && active > 0) {
    if ((rc = fill(tf, cut))) break;
    double dt = HUGE_VAL;
    for (int k = 0; k < tf->norder; k++) {
      int g = tf->order[k];
      if (tf->rate[g] > 0) { /* fmin without its call: neither side is NaN here */
        double x = tf->left[g] / tf->rate[g];
        if (x < dt) dt = x;
      }
    }
    if (!(dt < HUGE_VAL)) return WEFT_EINVAL; /* no group can move: a link of capacity 0 */
    now += dt;
    for (int l = 0; l < tf->nl; l++) tf->bytes[l] += tf->load[l] * dt;
    double low = HUGE_VAL; /* the lowest level a group ended at */
    for (int k = 0; k < tf->norder; k++) {
      int g = tf->order[k];
      tf->left[g] -= tf->rate[g] * dt;
      if (tf->left[g] <= GROUP_DONE_TOL * tf->size[g]) {
        tf->state[g] = 2;
        active--;
        if (tf->rate[g] < low) low = tf->rate[g];
        if (tf->tag[g] < (unsigned)ntags) end_ns[tf->tag[g]] = now;
      }
    }
    /* refill from the first group frozen at that level (ties included) */
    for (cut = 0; cut < tf->norder && tf->rate[tf->order[cut]] < low * (1 - 1e-12); cut++) {
    }
  }
  return rc;
}

double topo_flow_link_bytes(const TopoFlow *tf, int l) {
  return l >= 0 && l < tf->nl ? tf->bytes[l] : 0.0;
}
