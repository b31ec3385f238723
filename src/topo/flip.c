/* flip.c — which price flips the equal-cost conclusion of TopoOpt's
 * evaluation: each point's cost is linear in the prices (qty) and its time
 * does not depend on them, so the conclusion at other prices is read off
 * the same points, re-costed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

#define FLIP_RANGE 1000.0  /* factors searched: 1/1000 .. 1000 */
#define FLIP_STEPS 300     /* geometric steps each way: 2.3% apart */
#define FLIP_BISECT 50     /* then halvings of the step in log: far below printing */

typedef struct {
  const WeftEvalPoint *pts;
  WeftEvalPoint *work;  /* pts re-costed */
  int npts, topo;
  WeftEvalFabric base;
  WeftPrices p;
  WeftPriceKey k;
} Flip;

/* Who wins at price k x f: +1 TopoOpt (the baseline at its cost is
 * slower), -1 the baseline, 0 a tie; 2 when the baseline has no reading at
 * that cost. */
static int winner(Flip *fl, double f) {
  WeftPrices p = fl->p;
  *weft_price_field(&p, fl->k) *= f;
  for (int i = 0; i < fl->npts; i++) {
    double usd = 0;
    for (int k = 0; k < WEFT_NPRICES; k++)
      usd += *weft_price_field(&p, (WeftPriceKey)k) * fl->pts[i].qty[k];
    fl->work[i].cost_usd = usd;
  }
  const WeftEvalPoint *t = &fl->work[fl->topo];
  double tb = weft_eval_time_at_cost(fl->work, fl->npts, fl->base, t->cost_usd);
  if (isnan(tb)) return 2;
  return tb > t->time_ns ? 1 : tb < t->time_ns ? -1 : 0;
}

/* The factor in direction dir (+1 up, -1 down) nearest 1 where the winner
 * is no longer w0; NAN when none before the end of the range or of the
 * baseline's cost range. */
static double edge(Flip *fl, int w0, int dir) {
  double step = log(FLIP_RANGE) / FLIP_STEPS, lo = 0;
  for (int s = 1; s <= FLIP_STEPS; s++) {
    double hi = dir * step * s;
    int w = winner(fl, exp(hi));
    if (w == 2) return (double)NAN;
    if (w == w0) {
      lo = hi;
      continue;
    }
    for (int b = 0; b < FLIP_BISECT; b++) { /* w0 at lo, not at hi */
      double mid = (lo + hi) / 2;
      int wm = winner(fl, exp(mid));
      if (wm == w0) lo = mid;
      else hi = mid;
    }
    return exp(hi);
  }
  return (double)NAN;
}

double weft_eval_price_flip(const WeftEvalPoint *pts, int npts, const WeftPrices *p, int topo,
                            WeftEvalFabric baseline, WeftPriceKey k) {
  if (!pts || !p || topo < 0 || topo >= npts || pts[topo].fabric != WEFT_EVAL_TOPOOPT ||
      k < 0 || k >= WEFT_NPRICES)
    return (double)NAN;
  Flip fl = {pts, malloc((size_t)npts * sizeof *pts), npts, topo, baseline, *p, k};
  if (!fl.work) return (double)NAN;
  memcpy(fl.work, pts, (size_t)npts * sizeof *pts);
  double r = (double)NAN;
  int w0 = winner(&fl, 1.0);
  if (w0 != 2) {
    double up = edge(&fl, w0, 1), down = edge(&fl, w0, -1);
    if (isnan(up)) r = down;
    else if (isnan(down)) r = up;
    else r = fabs(log(up)) <= fabs(log(down)) ? up : down;
  }
  free(fl.work);
  return r;
}
