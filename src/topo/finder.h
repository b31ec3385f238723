/* finder.h — internal to topo/: TopologyFinder with a memo of its matching
 * rounds, so the port-split candidates of one job (weft_topo_build_split)
 * share the rounds they have in common instead of each matching again. */
#ifndef WEFT_TOPO_FINDER_H
#define WEFT_TOPO_FINDER_H

#include "weft.h"

/* The routing index holds n^2 hop counts and a matching round n^2 weights
 * (8 bytes): 8192 servers take 256 MiB and 512 MiB. */
#define TOPO_MAX_SERVERS 8192

/* A server pair with model-parallel demand, as a matching round sees it. */
typedef struct {
  long long key;  /* lo * n + hi */
  double bytes;   /* both directions */
  int links;      /* links between the pair so far */
} FinderPair;

/* Matchings by their input: a round's pairs (keys, bytes, links so far)
 * determine its weights, and the matcher is deterministic, so a round met
 * again has the same matching. */
typedef struct FinderMemo FinderMemo;
FinderMemo *finder_memo_create(void);      /* NULL when out of memory */
void finder_memo_free(FinderMemo *memo);   /* NULL is fine */
/* The mates (mate[n], -1 = none) of the round over p[np]: 1 when known. */
int finder_memo_find(const FinderMemo *memo, const FinderPair *p, int np, int n, int *mate);
/* Remember them. WEFT_ENOMEM. */
int finder_memo_add(FinderMemo *memo, const FinderPair *p, int np, int n, const int *mate);
/* Rounds remembered (each a matching computed). */
int finder_memo_size(const FinderMemo *memo);

/* weft_topo_build, its matching rounds looked up in and added to memo
 * (NULL: none); the fabric is the same either way. */
int finder_build(const WeftTraffic *t, const WeftTopoSettings *s, FinderMemo *memo,
                 WeftFabric **out, WeftError *err);

#endif
