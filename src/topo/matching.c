/* matching.c — maximum-weight matching given as a dense weight matrix:
 * Edmonds' blossom algorithm with dual variables (primal-dual, Galil 1986),
 * O(n^3) through per-vertex and per-blossom least-slack edges; exact in
 * integers. Edges are scanned from adjacency lists of the nonzero weights,
 * so a sparse graph (TopologyFinder's demand) costs far less than n^3. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

/* Integer duals: a vertex keeps dual[v] = 2 u_v and a blossom keeps z_B, so
 * an edge between two top-level blossoms has slack dual[i] + dual[j] - 2 w_ij.
 * Every labelled vertex is joined by tight edges to a free vertex, and all
 * free vertices share one dual, so the duals of labelled vertices all have
 * the same parity: the slack of an edge between two S-blossoms is even and
 * delta3 = slack / 2 stays an integer. */

#define NONE (-1)
#define WEIGHT_LIMIT (1LL << 52)  /* the header's contract: exact below 2^52 */
/* Below n^2 / SPARSE_SHARE edges the scans follow adjacency lists; above,
 * every column (an indirection per edge costs dense graphs about 20%). */
#define SPARSE_SHARE 16

enum { FREE = 0, LBL_S = 1, LBL_T = 2 };

typedef struct {
  int n;                  /* vertices 0..n-1; blossoms n..nb-1 */
  int nb;
  const long long *w;
  int *adj_start, *adj;   /* sparse graphs: the nonzero weights' columns, row by row
                             ascending (CSR); NULL: dense, every column scanned */
  int *mate;              /* the caller's array: vertex -> vertex or NONE */
  long long *dual;        /* [nb] vertices 2 u_v, blossoms z_B */
  int *inb;               /* [n] top-level node holding each vertex */
  int *parent;            /* [nb] enclosing blossom or NONE */
  int *child;             /* [nb] a blossom's child holding its base (first in its cycle) */
  int *next, *prev;       /* [nb] siblings around the parent's odd cycle */
  int *elo, *ehi;         /* [nb] the edge from x to next[x]: elo in x, ehi in next[x] */
  int *base;              /* [nb] base vertex; NONE for an unused blossom slot */
  int *label;             /* [nb] top-level label; for a vertex inside a T-blossom,
                             LBL_T once it is reached by a tight edge from an S-vertex */
  int *lfrom, *lto;       /* [nb] labelling edge: lfrom outside, lto inside (S-blossom:
                             lfrom = the base's mate; NONE for a root) */
  int *best_a, *best_b;   /* [nb] least-slack edge: to an S-vertex for a vertex not in
                             an S-blossom (best_a the S end); to another S-blossom for
                             a top-level S-blossom (best_a inside it) */
  long long *best_w;      /* [nb] its weight (the row of w is not read again) */
  int *mark;              /* [nb] scan_blossom's marks, cleared after each use */
  int *queue, qhead, qtail; /* [n] S-vertices to scan; each enters once per stage */
  int *freeb, nfree;      /* unused blossom ids */
  int *lcnt;              /* [nb - n] length of the blossom's edge list; NONE = no list */
  int *lst;               /* [(nb - n) * n * 2] per blossom: least-slack edge to each
                             neighbouring S-blossom, (inside, outside) pairs */
  int *bt_a, *bt_b;       /* [nb] merge scratch: best edge to each top-level S-node */
  int *touched;           /* [nb] merge scratch: nodes set in bt_a */
  int *scratch;           /* [nb] leaves, paths */
  int *pv, *pu;           /* [nb] add_blossom's two paths */
} Matcher;

static long long weight(const Matcher *m, int i, int j) { return m->w[(size_t)i * m->n + j]; }

static long long slack(const Matcher *m, int i, int j) {
  return m->dual[i] + m->dual[j] - 2 * weight(m, i, j);
}

/* Slack of node x's least-slack edge (which must exist). */
static long long best_slack(const Matcher *m, int x) {
  return m->dual[m->best_a[x]] + m->dual[m->best_b[x]] - 2 * m->best_w[x];
}

static void set_best(Matcher *m, int x, int a, int b, long long wt) {
  m->best_a[x] = a;
  m->best_b[x] = b;
  m->best_w[x] = wt;
}

/* The vertices of node b into out; returns their count. Walks the blossom
 * tree by parent / child / next pointers, no recursion. */
static int leaves(const Matcher *m, int b, int *out) {
  if (b < m->n) {
    out[0] = b;
    return 1;
  }
  int k = 0, x = b;
  for (;;) {
    while (x >= m->n) x = m->child[x];
    out[k++] = x;
    for (;;) {  /* climb until x has a sibling left to visit */
      int p = m->parent[x], nx = m->next[x];
      if (nx != m->child[p]) {
        x = nx;
        break;
      }
      x = p;
      if (x == b) return k;
    }
  }
}

/* Label the top-level node holding w with t, reached by the edge (p, w);
 * a T-blossom's base mate then becomes S. */
static void assign_label(Matcher *m, int w, int t, int p) {
  int b = m->inb[w];
  m->label[w] = m->label[b] = t;
  m->lfrom[w] = m->lfrom[b] = p;
  m->lto[b] = w;
  m->best_a[w] = m->best_a[b] = NONE;
  if (t == LBL_S) {
    m->qtail += leaves(m, b, m->queue + m->qtail);
  } else {
    int bs = m->base[b];
    assign_label(m, m->mate[bs], LBL_S, bs);
  }
}

/* Trace from the S-vertices v and u back towards their roots, alternately.
 * Returns the base of the new blossom where the two paths meet, or NONE
 * when they end at two different roots (an augmenting path). */
static int scan_blossom(Matcher *m, int v, int u) {
  int k = 0, found = NONE;
  while (v != NONE) {
    int b = m->inb[v];
    if (m->mark[b]) {
      found = m->base[b];
      break;
    }
    m->mark[b] = 1;
    m->scratch[k++] = b;
    if (m->lfrom[b] == NONE) {
      v = NONE;  /* a root */
    } else {
      int t = m->inb[m->lfrom[b]];  /* the T-blossom above */
      v = m->lfrom[t];
    }
    if (u != NONE) {  /* alternate between the two paths */
      int x = v;
      v = u;
      u = x;
    }
  }
  for (int i = 0; i < k; i++) m->mark[m->scratch[i]] = 0;
  return found;
}

/* Consider the edge (x, y), x inside the new blossom b, for b's edge list. */
static void merge_edge(Matcher *m, int b, int x, int y, int *ntouched) {
  int by = m->inb[y];
  if (by == b || m->label[by] != LBL_S) return;
  if (m->bt_a[by] == NONE) {
    m->touched[(*ntouched)++] = by;
  } else if (slack(m, x, y) >= slack(m, m->bt_a[by], m->bt_b[by])) {
    return;
  }
  m->bt_a[by] = x;
  m->bt_b[by] = y;
}

/* A new S-blossom from the tight edge (v, u) between two S-blossoms of one
 * tree, whose paths to the root meet at the blossom holding basev. */
static void add_blossom(Matcher *m, int basev, int v, int u) {
  int n = m->n, bb = m->inb[basev];
  int b = m->freeb[--m->nfree];
  m->base[b] = basev;
  m->parent[b] = NONE;
  m->dual[b] = 0;
  /* The two paths up to bb, each alternating S, T, ..., T. */
  int r = 0, s = 0;
  for (int x = m->inb[v]; x != bb; x = m->inb[m->lfrom[x]]) m->pv[r++] = x;
  for (int x = m->inb[u]; x != bb; x = m->inb[m->lfrom[x]]) m->pu[s++] = x;
  /* The odd cycle bb, pv[r-1] .. pv[0], pu[0] .. pu[s-1]; the edge from each
   * child to the next is a labelling edge, except (v, u). */
  int *cyc = m->scratch, k = 0;
  cyc[k++] = bb;
  for (int j = r - 1; j >= 0; j--) cyc[k++] = m->pv[j];
  for (int j = 0; j < s; j++) cyc[k++] = m->pu[j];
  for (int i = 0; i < k; i++) {
    int x = cyc[i], y = cyc[(i + 1) % k];
    m->parent[x] = b;
    m->next[x] = y;
    m->prev[y] = x;
    if (i < r) {  /* down v's path: y's labelling edge */
      m->elo[x] = m->lfrom[y];
      m->ehi[x] = m->lto[y];
    } else if (i == r) {
      m->elo[x] = v;
      m->ehi[x] = u;
    } else {  /* up u's path: x's labelling edge */
      m->elo[x] = m->lto[x];
      m->ehi[x] = m->lfrom[x];
    }
  }
  m->child[b] = bb;
  m->label[b] = LBL_S;
  m->lfrom[b] = m->lfrom[bb];
  m->lto[b] = m->lto[bb];
  /* Its vertices: the T ones become S and are scanned later. */
  int nl = leaves(m, b, m->scratch);
  for (int i = 0; i < nl; i++) {
    int x = m->scratch[i];
    if (m->label[m->inb[x]] == LBL_T) m->queue[m->qtail++] = x;
    m->inb[x] = b;
  }
  /* Its least-slack edge to every other S-blossom, from the children's
   * lists, or from all edges of children that have none. */
  int nt = 0, c = bb;
  do {
    if (c >= n && m->lcnt[c - n] >= 0) {
      const int *e = m->lst + (size_t)(c - n) * n * 2;
      for (int i = 0; i < m->lcnt[c - n]; i++) merge_edge(m, b, e[2 * i], e[2 * i + 1], &nt);
      m->lcnt[c - n] = NONE;
    } else {
      int cl = leaves(m, c, m->scratch);
      for (int i = 0; i < cl; i++) {
        int x = m->scratch[i];
        const long long *row = m->w + (size_t)x * n;
        if (m->adj) {
          for (int a = m->adj_start[x]; a < m->adj_start[x + 1]; a++)
            merge_edge(m, b, x, m->adj[a], &nt);
        } else {
          for (int y = 0; y < n; y++)
            if (row[y] > 0) merge_edge(m, b, x, y, &nt);
        }
      }
    }
    m->best_a[c] = NONE;
    c = m->next[c];
  } while (c != bb);
  int *e = m->lst + (size_t)(b - n) * n * 2;
  m->best_a[b] = NONE;
  for (int i = 0; i < nt; i++) {
    int t = m->touched[i], x = m->bt_a[t], y = m->bt_b[t];
    e[2 * i] = x;
    e[2 * i + 1] = y;
    if (m->best_a[b] == NONE || slack(m, x, y) < best_slack(m, b))
      set_best(m, b, x, y, weight(m, x, y));
    m->bt_a[t] = NONE;
  }
  m->lcnt[b - n] = nt;
}

/* Make v the base of blossom b: swap matched and unmatched edges along the
 * even-length path round b's cycle from v's child to the base child. */
static void rotate_blossom(Matcher *m, int b, int v) {
  int n = m->n, t = v;
  while (m->parent[t] != b) t = m->parent[t];
  if (t >= n) rotate_blossom(m, t, v);
  int j = 0;
  for (int x = m->child[b]; x != t; x = m->next[x]) j++;
  int x = t;
  while (x != m->child[b]) {
    int x1, x2, a, c;  /* a in x1, c in x2: the edge that becomes matched */
    if (j & 1) {  /* odd position: the even path runs forward */
      x1 = m->next[x];
      x2 = m->next[x1];
      a = m->elo[x1];
      c = m->ehi[x1];
    } else {
      x1 = m->prev[x];
      x2 = m->prev[x1];
      a = m->ehi[x2];
      c = m->elo[x2];
    }
    if (x1 >= n) rotate_blossom(m, x1, a);
    if (x2 >= n) rotate_blossom(m, x2, c);
    m->mate[a] = c;
    m->mate[c] = a;
    x = x2;
  }
  m->child[b] = t;
  m->base[b] = v;
}

/* Flip the path from S-vertex s back to its root; s gets matched to remote. */
static void augment_side(Matcher *m, int s, int remote) {
  for (;;) {
    int bs = m->inb[s];
    if (bs >= m->n) rotate_blossom(m, bs, s);
    m->mate[s] = remote;
    if (m->lfrom[bs] == NONE) return;  /* the root: it was free */
    int bt = m->inb[m->lfrom[bs]];
    int sv = m->lfrom[bt], j = m->lto[bt];
    if (bt >= m->n) rotate_blossom(m, bt, j);
    m->mate[j] = sv;
    s = sv;
    remote = j;
  }
}

/* The next child of a blossom's cycle in direction fwd. */
static int step(const Matcher *m, int x, int fwd) { return fwd ? m->next[x] : m->prev[x]; }

/* Dissolve blossom b into its children. Mid-stage (a T-blossom whose dual
 * reached 0) the children on the even path from the entry child to the base
 * child are relabelled T, S, ..., T; the others stay free unless one of their
 * vertices was reached. At the end of a stage (endstage) children with a
 * zero dual are dissolved too. */
static void expand_blossom(Matcher *m, int b, int endstage) {
  int n = m->n, c0 = m->child[b], c = c0;
  do {
    m->parent[c] = NONE;
    if (c < n) {
      m->inb[c] = c;
    } else if (endstage && m->dual[c] == 0) {
      expand_blossom(m, c, 1);
    } else {
      int k = leaves(m, c, m->scratch);
      for (int i = 0; i < k; i++) m->inb[m->scratch[i]] = c;
    }
    c = m->next[c];
  } while (c != c0);
  if (!endstage && m->label[b] == LBL_T) {
    int entry = m->inb[m->lto[b]];
    int j = 0;
    for (int x = c0; x != entry; x = m->next[x]) j++;
    int fwd = j & 1;  /* the even path to c0: forward from an odd position */
    int p = m->lfrom[b], q = m->lto[b], x = entry;
    while (x != c0) {
      assign_label(m, q, LBL_T, p);  /* and its mate's child, next on the path, S */
      int x1 = step(m, x, fwd), x2 = step(m, x1, fwd);
      if (fwd) {
        p = m->elo[x1];
        q = m->ehi[x1];
      } else {
        p = m->ehi[x2];
        q = m->elo[x2];
      }
      x = x2;
    }
    /* The base child: T, its base's mate is already S outside b. */
    m->label[q] = m->label[x] = LBL_T;
    m->lfrom[q] = m->lfrom[x] = p;
    m->lto[x] = q;
    m->best_a[x] = NONE;
    for (x = step(m, c0, fwd); x != entry; x = step(m, x, fwd)) {
      if (m->label[x] == LBL_S) continue;  /* S already, as a neighbour's mate */
      int k = leaves(m, x, m->scratch), reached = NONE;
      for (int i = 0; i < k && reached == NONE; i++)
        if (m->label[m->scratch[i]] != FREE) reached = m->scratch[i];
      if (reached != NONE) assign_label(m, reached, LBL_T, m->lfrom[reached]);
    }
  }
  m->label[b] = FREE;
  m->lfrom[b] = m->lto[b] = NONE;
  m->base[b] = NONE;
  m->best_a[b] = NONE;
  m->lcnt[b - n] = NONE;
  m->freeb[m->nfree++] = b;
}

/* The tight edge (v, u) from S-vertex v to a vertex of another top-level
 * node: a new label, a new blossom or an augmentation. Returns 1 when it
 * augmented. */
static int tight_edge(Matcher *m, int v, int u) {
  int bu = m->inb[u];
  if (m->label[bu] == FREE) {
    assign_label(m, u, LBL_T, v);
  } else if (m->label[bu] == LBL_S) {
    int basev = scan_blossom(m, v, u);
    if (basev == NONE) {
      augment_side(m, v, u);
      augment_side(m, u, v);
      return 1;
    }
    add_blossom(m, basev, v, u);
  } else if (m->label[u] == FREE) {  /* inside a T-blossom: note it is reached */
    m->label[u] = LBL_T;
    m->lfrom[u] = v;
  }
  return 0;
}

/* S-vertex v's edge to u of weight wt > 0: a least-slack candidate or a
 * tight edge. *bv, *bvs: v's top-level node and its least slack, kept up to
 * date. Returns 1 when it augmented. */
static inline int scan_edge(Matcher *m, int v, int u, long long wt, long long dv, int *bv,
                            long long *bvs) {
  int bu = m->inb[u];
  long long s = dv + m->dual[u] - 2 * wt;
  if (s > 0) {
    if (m->label[bu] == LBL_S) {
      if (bu != *bv && s < *bvs) {
        set_best(m, *bv, v, u, wt);
        *bvs = s;
      }
    } else if (m->label[u] == FREE && (m->best_a[u] == NONE || s < best_slack(m, u))) {
      set_best(m, u, v, u, wt);
    }
    return 0;
  }
  if (bu == *bv) return 0;
  if (tight_edge(m, v, u)) return 1;
  *bv = m->inb[v];  /* it may have joined a new blossom */
  *bvs = m->best_a[*bv] == NONE ? LLONG_MAX : best_slack(m, *bv);
  return 0;
}

/* Scan every queued S-vertex's edges (each vertex's once a stage), by its
 * adjacency list or its whole row. Returns 1 when it augmented. */
static int scan_queue(Matcher *m) {
  int n = m->n;
  while (m->qhead < m->qtail) {
    int v = m->queue[m->qhead++], bv = m->inb[v];
    const long long *row = m->w + (size_t)v * n;
    long long dv = m->dual[v];
    long long bvs = m->best_a[bv] == NONE ? LLONG_MAX : best_slack(m, bv);
    if (m->adj) {
      for (int k = m->adj_start[v]; k < m->adj_start[v + 1]; k++)
        if (scan_edge(m, v, m->adj[k], row[m->adj[k]], dv, &bv, &bvs)) return 1;
      continue;
    }
    for (int u = 0; u < n; u++) { /* dense: scan_edge written out (a call here costs 10%) */
      long long wt = row[u];
      if (wt == 0) continue;
      int bu = m->inb[u];
      long long s = dv + m->dual[u] - 2 * wt;
      if (s > 0) {
        if (m->label[bu] == LBL_S) {
          if (bu != bv && s < bvs) {
            set_best(m, bv, v, u, wt);
            bvs = s;
          }
        } else if (m->label[u] == FREE && (m->best_a[u] == NONE || s < best_slack(m, u))) {
          set_best(m, u, v, u, wt);
        }
        continue;
      }
      if (bu == bv) continue;
      if (tight_edge(m, v, u)) return 1;
      bv = m->inb[v];
      bvs = m->best_a[bv] == NONE ? LLONG_MAX : best_slack(m, bv);
    }
  }
  return 0;
}

enum { D_NONE, D_FREE_VERTEX, D_FREE_EDGE, D_S_EDGE, D_T_BLOSSOM };

/* One stage: grow alternating trees from every free vertex, adjusting the
 * duals, until an augmentation. Returns 1 when it augmented, 0 when the
 * matching is optimal. */
static int stage(Matcher *m, int maxcard) {
  int n = m->n, nb = m->nb;
  for (int x = 0; x < nb; x++) {
    m->label[x] = FREE;
    m->best_a[x] = NONE;
  }
  for (int b = n; b < nb; b++) m->lcnt[b - n] = NONE;
  m->qhead = m->qtail = 0;
  for (int v = 0; v < n; v++)
    if (m->mate[v] == NONE && m->label[m->inb[v]] == FREE) assign_label(m, v, LBL_S, NONE);
  for (;;) {
    if (scan_queue(m)) return 1;
    int type = D_NONE, arg = NONE;
    long long delta = 0;
    if (!maxcard) {  /* an S-vertex's dual reaches 0: every free vertex's does */
      for (int v = 0; v < n; v++)
        if (m->label[m->inb[v]] == LBL_S && (type == D_NONE || m->dual[v] < delta)) {
          type = D_FREE_VERTEX;
          delta = m->dual[v];
        }
    }
    for (int v = 0; v < n; v++) {  /* an edge from an S-vertex to a free one gets tight */
      if (m->label[m->inb[v]] != FREE || m->best_a[v] == NONE) continue;
      long long s = best_slack(m, v);
      if (type == D_NONE || s < delta) {
        type = D_FREE_EDGE;
        delta = s;
        arg = v;
      }
    }
    for (int x = 0; x < nb; x++) {  /* an edge between two S-blossoms gets tight */
      if (m->parent[x] != NONE || (x >= n && m->base[x] == NONE)) continue;
      if (m->label[x] == LBL_S && m->best_a[x] != NONE) {
        long long s = best_slack(m, x) / 2;  /* even: see the top */
        if (type == D_NONE || s < delta) {
          type = D_S_EDGE;
          delta = s;
          arg = x;
        }
      } else if (x >= n && m->label[x] == LBL_T && (type == D_NONE || m->dual[x] < delta)) {
        type = D_T_BLOSSOM;  /* a T-blossom's dual reaches 0 */
        delta = m->dual[x];
        arg = x;
      }
    }
    if (type == D_NONE) return 0;  /* maximum cardinality: no augmenting path left */
    for (int v = 0; v < n; v++) {
      int l = m->label[m->inb[v]];
      if (l == LBL_S) m->dual[v] -= delta;
      else if (l == LBL_T) m->dual[v] += delta;
    }
    for (int b = n; b < nb; b++) {
      if (m->base[b] == NONE || m->parent[b] != NONE) continue;
      if (m->label[b] == LBL_S) m->dual[b] += delta;
      else if (m->label[b] == LBL_T) m->dual[b] -= delta;
    }
    switch (type) {
      case D_FREE_VERTEX: return 0;
      case D_FREE_EDGE:
        if (tight_edge(m, m->best_a[arg], arg)) return 1;
        break;
      case D_S_EDGE:
        if (tight_edge(m, m->best_a[arg], m->best_b[arg])) return 1;
        break;
      default: expand_blossom(m, arg, 0); break;
    }
  }
}

/* Every array in one allocation (the long long ones first, for alignment); returns
 * the block or NULL. */
static void *matcher_alloc(Matcher *m) {
  size_t n = (size_t)m->n, nb = (size_t)m->nb, nbl = nb - n;
  struct {
    int **p;
    size_t count;
  } a[] = {{&m->inb, n},     {&m->parent, nb},  {&m->child, nb},   {&m->next, nb},
           {&m->prev, nb},   {&m->elo, nb},     {&m->ehi, nb},     {&m->base, nb},
           {&m->label, nb},  {&m->lfrom, nb},   {&m->lto, nb},     {&m->best_a, nb},
           {&m->best_b, nb}, {&m->mark, nb},    {&m->queue, n},    {&m->freeb, nbl},
           {&m->lcnt, nbl},  {&m->lst, nbl * n * 2}, {&m->bt_a, nb}, {&m->bt_b, nb},
           {&m->touched, nb}, {&m->scratch, nb}, {&m->pv, nb},     {&m->pu, nb}};
  size_t ints = 0;
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) ints += a[i].count;
  char *block = malloc(2 * nb * sizeof(long long) + ints * sizeof(int));
  if (!block) return NULL;
  m->dual = (long long *)(void *)block;
  m->best_w = m->dual + nb;
  int *p = (int *)(void *)(m->best_w + nb);
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    *a[i].p = p;
    p += a[i].count;
  }
  return block;
}

int weft_max_weight_matching(int n, const long long *w, int max_cardinality, int *mate) {
  if (n < 0) return WEFT_EINVAL;
  if (n == 0) return WEFT_OK;
  if (!w || !mate) return WEFT_EINVAL;
  long long maxw = 0;
  size_t nnz = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      long long a = w[(size_t)i * n + j];
      if (a < 0 || a >= WEIGHT_LIMIT || a != w[(size_t)j * n + i]) return WEFT_EINVAL;
      if (a > maxw) maxw = a;
      nnz += a > 0;
    }
  if ((size_t)n > ((size_t)-1 / sizeof(int)) / (size_t)n / 2) return WEFT_ENOMEM;
  Matcher m;
  memset(&m, 0, sizeof m);
  m.n = n;
  m.nb = n + n / 2 + 1;  /* a laminar family of odd sets of >= 3 children: < n/2 blossoms */
  m.w = w;
  m.mate = mate;
  int sparse = nnz < (size_t)n * (size_t)n / SPARSE_SHARE;
  if (sparse) {
    m.adj_start = malloc(((size_t)n + 1) * sizeof *m.adj_start);
    m.adj = malloc((2 * nnz + 1) * sizeof *m.adj);
  }
  void *block = !sparse || (m.adj_start && m.adj) ? matcher_alloc(&m) : NULL;
  if (!block) {
    free(m.adj_start);
    free(m.adj);
    return WEFT_ENOMEM;
  }
  for (int i = 0, k = 0; sparse && i < n; i++) { /* ascending, as the dense scan meets them */
    m.adj_start[i] = k;
    for (int j = 0; j < n; j++)
      if (w[(size_t)i * n + j] > 0 && j != i) m.adj[k++] = j;
    m.adj_start[i + 1] = k;
  }
  for (int v = 0; v < n; v++) {
    mate[v] = NONE;
    m.inb[v] = v;
    m.dual[v] = maxw;  /* 2 u_v = max w: every edge has slack >= 0 */
  }
  for (int x = 0; x < m.nb; x++) {
    m.parent[x] = m.child[x] = NONE;
    m.base[x] = x < n ? x : NONE;
    m.lfrom[x] = m.lto[x] = NONE;
    m.mark[x] = 0;
    m.bt_a[x] = NONE;
  }
  m.nfree = 0;
  for (int b = m.nb - 1; b >= n; b--) {
    m.freeb[m.nfree++] = b;
    m.dual[b] = 0;
  }
  while (stage(&m, max_cardinality != 0)) {
    for (int b = n; b < m.nb; b++)  /* S-blossoms whose dual is 0 are not kept */
      if (m.base[b] != NONE && m.parent[b] == NONE && m.label[b] == LBL_S && m.dual[b] == 0)
        expand_blossom(&m, b, 1);
  }
  free(block);
  free(m.adj_start);
  free(m.adj);
  return WEFT_OK;
}
