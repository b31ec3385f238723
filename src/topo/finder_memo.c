/* finder_memo.c — the matching rounds of TopologyFinder remembered by their
 * input (finder.h): the port-split candidates of one job repeat the rounds
 * they share (the model-parallel pairs do not depend on the ring strides). */
#include <stdlib.h>
#include <string.h>

#include "topo/finder.h"

typedef struct {
  int np, n;
  FinderPair *p;  /* the round's input, copied */
  int *mate;      /* its matching */
} Entry;

struct FinderMemo {
  Entry *e;
  int ne, cap;
};

FinderMemo *finder_memo_create(void) { return calloc(1, sizeof(FinderMemo)); }

void finder_memo_free(FinderMemo *memo) {
  if (!memo) return;
  for (int i = 0; i < memo->ne; i++) {
    free(memo->e[i].p);
    free(memo->e[i].mate);
  }
  free(memo->e);
  free(memo);
}

int finder_memo_size(const FinderMemo *memo) { return memo ? memo->ne : 0; }

/* Field by field: a struct's padding bytes are not part of its value. */
static int same_pairs(const FinderPair *a, const FinderPair *b, int np) {
  for (int i = 0; i < np; i++)
    if (a[i].key != b[i].key || a[i].bytes != b[i].bytes || a[i].links != b[i].links) return 0;
  return 1;
}

int finder_memo_find(const FinderMemo *memo, const FinderPair *p, int np, int n, int *mate) {
  for (int i = 0; memo && i < memo->ne; i++) {
    const Entry *e = &memo->e[i];
    if (e->np == np && e->n == n && same_pairs(e->p, p, np)) {
      memcpy(mate, e->mate, (size_t)n * sizeof *mate);
      return 1;
    }
  }
  return 0;
}

int finder_memo_add(FinderMemo *memo, const FinderPair *p, int np, int n, const int *mate) {
  if (memo->ne == memo->cap) {
    int cap = memo->cap ? 2 * memo->cap : 8;
    Entry *e = realloc(memo->e, (size_t)cap * sizeof *e);
    if (!e) return WEFT_ENOMEM;
    memo->e = e;
    memo->cap = cap;
  }
  Entry *e = &memo->e[memo->ne];
  e->np = np;
  e->n = n;
  e->p = malloc(((size_t)np + 1) * sizeof *e->p);
  e->mate = malloc((size_t)n * sizeof *e->mate);
  if (!e->p || !e->mate) {
    free(e->p);
    free(e->mate);
    return WEFT_ENOMEM;
  }
  if (np) memcpy(e->p, p, (size_t)np * sizeof *p);
  memcpy(e->mate, mate, (size_t)n * sizeof *mate);
  memo->ne++;
  return WEFT_OK;
}
