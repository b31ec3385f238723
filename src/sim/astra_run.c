/* astra_run.c — a training iteration as ASTRA-sim 1.0 runs a
 * HYBRID_TRANSFORMER workload (`--like astra-sim`): its loop (forward
 * collectives blocking; an input-grad collective running under the same
 * layer's weight-grad compute; weight-grad collectives running on to the
 * end; 1 ns between loop steps; each collective done its layer's update
 * time after its last chunk), and one queue per logical dim that serves one
 * chunk phase at a time (active-chunks-per-dimension) in priority order,
 * first come first served within a priority. Priorities come from one
 * counter: input-grad collectives take it and add one, weight-grad
 * collectives take it and subtract one, forward collectives add one under
 * the LIFO scheduling policy and subtract one under FIFO. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/astra.h"

enum { EV_LOOP = 0, EV_STAGE = 1, EV_COLL = 2 };
enum { W_FWD, W_FWD_WAIT, W_IG, W_WG, W_WG_WAIT, W_END };
#define NQUEUES (2 * WEFT_MAX_DIMS)

typedef struct {
  int active;                 /* chunks still running or its update delay pending */
  int layer, prio;
  WeftPhase phase;
  int nstages;
  AstraStage st[SIM_MAX_STAGES];
  long long nchunks, done;
  double start_ns, update_ns;
  int next_free;
} ACol;

typedef struct {            /* a chunk waiting for, or running, one phase */
  int prio, coll, stage;
  unsigned long long seq;
  long long chunk;
} AEntry;

typedef struct {
  AEntry *w;                  /* waiting: a heap, best first */
  size_t n, cap;
  int running;
} AQueue;

typedef struct {
  const WeftSimSettings *set;
  const WeftWorkload *wl;
  AstraJob job;
  SimHeap heap;
  AQueue q[NQUEUES];
  ACol *col;
  int ncol, capcol, free_col;
  AEntry *run;                /* running phases, by slot */
  int nrun, caprun, free_run;
  int *run_next;
  unsigned long long seq;
  int prio_counter;
  int state, index, loaded, wait_col, ig_col;
  double loop_end_ns, last_ns, wait_start_ns;
  int dim_running[WEFT_MAX_DIMS];
  double dim_since[WEFT_MAX_DIMS];
  int jobno;
  WeftSimJob *out;
  WeftError *err;
} ARun;

static void span(ARun *r, WeftSpanKind kind, int layer, WeftPhase ph, WeftCollective c, int stream,
                 int dim, int chunk, double t0, double t1) {
  if (!r->set->on_span) return;
  WeftSimSpan s = {kind, r->jobno, layer, ph, c, stream, dim, chunk, t0, t1};
  r->set->on_span(r->set->span_ctx, &s);
}

/* ------------------------------------------------------------ queues */

static int better(const AEntry *a, const AEntry *b) {
  return a->prio > b->prio || (a->prio == b->prio && a->seq < b->seq);
}

static int q_push(AQueue *q, AEntry e) {
  if (q->n == q->cap) {
    size_t nc = q->cap ? 2 * q->cap : 16;
    AEntry *nw = realloc(q->w, nc * sizeof *nw);
    if (!nw) return WEFT_ENOMEM;
    q->w = nw;
    q->cap = nc;
  }
  size_t i = q->n++;
  while (i > 0 && better(&e, &q->w[(i - 1) / 2])) {
    q->w[i] = q->w[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  q->w[i] = e;
  return WEFT_OK;
}

static AEntry q_pop(AQueue *q) {
  AEntry top = q->w[0], e = q->w[--q->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= q->n) break;
    if (c + 1 < q->n && better(&q->w[c + 1], &q->w[c])) c++;
    if (!better(&q->w[c], &e)) break;
    q->w[i] = q->w[c];
    i = c;
  }
  if (q->n) q->w[i] = e;
  return top;
}

static void dim_busy(ARun *r, int d, int delta, double t) {
  if (r->dim_running[d] == 0 && delta > 0) r->dim_since[d] = t;
  r->dim_running[d] += delta;
  if (r->dim_running[d] == 0) r->out->dim_busy_ns[d] += t - r->dim_since[d];
}

/* Start waiting phases on queue qi while it has room. */
static int q_start(ARun *r, int qi, double t) {
  AQueue *q = &r->q[qi];
  int cap = r->set->in_flight ? r->set->in_flight : WEFT_SIM_ASTRA_IN_FLIGHT;
  while (q->running < cap && q->n > 0) {
    AEntry e = q_pop(q);
    int slot;
    if (r->free_run >= 0) {
      slot = r->free_run;
      r->free_run = r->run_next[slot];
    } else {
      if (r->nrun == r->caprun) {
        int nc = r->caprun ? 2 * r->caprun : 16;
        AEntry *nr = realloc(r->run, (size_t)nc * sizeof *nr);
        if (!nr) return WEFT_ENOMEM;
        r->run = nr;
        int *nn = realloc(r->run_next, (size_t)nc * sizeof *nn);
        if (!nn) return WEFT_ENOMEM;
        r->run_next = nn;
        r->caprun = nc;
      }
      slot = r->nrun++;
    }
    r->run[slot] = e;
    q->running++;
    const ACol *c = &r->col[e.coll];
    const AstraStage *s = &c->st[e.stage];
    int last = e.chunk == c->nchunks - 1;
    r->out->dim_bytes[s->dim] += s->bytes[last];
    dim_busy(r, s->dim, 1, t);
    int rc = sim_heap_push(&r->heap, t + s->dur_ns[last], EV_STAGE, slot);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* ------------------------------------------------------------ collectives */

/* Issue (layer, phase)'s collective at t with priority counter step dp.
 * *id = the collective, or -1 when it sends nothing. */
static int coll_issue(ARun *r, int layer, WeftPhase ph, int dp, double t, int *id) {
  const WeftPhaseSpec *p = &r->wl->layers[layer].phase[ph];
  *id = -1;
  if (p->coll == WEFT_COLL_NONE || !(astra_whole(p->size_bytes) > 0)) return WEFT_OK;
  int prio = r->prio_counter;
  r->prio_counter += dp;
  AstraStage st[SIM_MAX_STAGES];
  long long nchunks;
  int ns = astra_stages(&r->job, p->coll, (int)ph, p->size_bytes, r->set->chunks, st, &nchunks,
                        r->err);
  if (ns < 0) {
    if (ns == WEFT_EINPUT && r->err && !r->err->file[0])
      snprintf(r->err->file, sizeof r->err->file, "%s", r->wl->file);
    if (r->err) r->err->line = r->wl->layers[layer].line;
    return ns;
  }
  if (ns == 0) return WEFT_OK;
  int c;
  if (r->free_col >= 0) {
    c = r->free_col;
    r->free_col = r->col[c].next_free;
  } else {
    if (r->ncol == r->capcol) {
      int nc = r->capcol ? 2 * r->capcol : 8;
      ACol *n = realloc(r->col, (size_t)nc * sizeof *n);
      if (!n) return WEFT_ENOMEM;
      r->col = n;
      r->capcol = nc;
    }
    c = r->ncol++;
  }
  ACol *a = &r->col[c];
  memset(a, 0, sizeof *a);
  a->active = 1;
  a->layer = layer;
  a->phase = ph;
  a->prio = prio;
  a->nstages = ns;
  memcpy(a->st, st, (size_t)ns * sizeof *st);
  a->nchunks = nchunks;
  a->start_ns = t;
  a->update_ns = astra_whole(r->wl->layers[layer].update_ns);
  a->next_free = -1;
  for (long long k = 0; k < nchunks; k++) {
    int rc = q_push(&r->q[st[0].queue], (AEntry){prio, c, 0, r->seq++, k});
    if (rc) return rc;
  }
  *id = c;
  return q_start(r, st[0].queue, t);
}

static int stage_done(ARun *r, int slot, double t) {
  AEntry e = r->run[slot];
  r->run_next[slot] = r->free_run;
  r->free_run = slot;
  ACol *c = &r->col[e.coll];
  const AstraStage *s = &c->st[e.stage];
  int rc, qold = s->queue;
  r->q[qold].running--;
  dim_busy(r, s->dim, -1, t);
  if (r->set->stage_spans)
    span(r, WEFT_SPAN_STAGE, c->layer, c->phase, r->wl->layers[c->layer].phase[c->phase].coll,
         c->phase == WEFT_PHASE_WG, s->dim, (int)e.chunk, t - s->dur_ns[e.chunk == c->nchunks - 1],
         t);
  if (e.stage + 1 < c->nstages) {
    e.stage++;
    e.seq = r->seq++;
    if ((rc = q_push(&r->q[c->st[e.stage].queue], e))) return rc;
  } else if (++c->done == c->nchunks) {
    if ((rc = sim_heap_push(&r->heap, t + c->update_ns, EV_COLL, e.coll))) return rc;
  }
  if ((rc = q_start(r, qold, t))) return rc;
  return e.stage < c->nstages ? q_start(r, c->st[e.stage].queue, t) : WEFT_OK;
}

/* ------------------------------------------------------------ the loop */

static int loop_step(ARun *r, double t);

/* A compute of c ns before the step goes on: 1 when it must wait. */
static int compute(ARun *r, double c, double t) {
  if (r->loaded || !(c > 0)) return 0;
  r->loaded = 1;
  return sim_heap_push(&r->heap, t + c, EV_LOOP, 0) ? -1 : 1;
}

static int next_step(ARun *r, double t) {
  r->loaded = 0;
  return sim_heap_push(&r->heap, t + 1.0, EV_LOOP, 0);
}

/* After a forward layer: the next one, or the backward pass. */
static int fwd_next(ARun *r, double t) {
  if (++r->index >= r->wl->nlayers) {
    r->index = r->wl->nlayers - 1;
    r->state = W_IG;
  } else {
    r->state = W_FWD;
  }
  return next_step(r, t);
}

/* After a backward layer (its input-grad collective done): the layer below,
 * or the end of the pass. */
static int bwd_next(ARun *r, double t) {
  if (r->state == W_WG_WAIT) r->out->t.exposed_comm_ns[WEFT_PHASE_IG] += t - r->wait_start_ns;
  r->ig_col = -1;
  if (--r->index < 0) {
    r->index = 0;
    r->state = W_END;
  } else {
    r->state = W_IG;
  }
  return next_step(r, t);
}

static int loop_step(ARun *r, double t) {
  const WeftLayer *l = &r->wl->layers[r->index];
  int w, rc, id;
  switch (r->state) {
    case W_FWD:
      if ((w = compute(r, astra_whole(l->phase[WEFT_PHASE_FWD].compute_ns), t))) return w < 0 ? WEFT_ENOMEM : 0;
      if ((rc = coll_issue(r, r->index, WEFT_PHASE_FWD,
                           r->set->astra_policy == WEFT_ASTRA_FIFO ? -1 : 1, t, &id)))
        return rc;
      if (id < 0) return fwd_next(r, t);
      r->state = W_FWD_WAIT;
      r->wait_col = id;
      return WEFT_OK;
    case W_FWD_WAIT: return fwd_next(r, t);
    case W_IG:
      if ((w = compute(r, astra_whole(l->phase[WEFT_PHASE_IG].compute_ns), t))) return w < 0 ? WEFT_ENOMEM : 0;
      if ((rc = coll_issue(r, r->index, WEFT_PHASE_IG, 1, t, &r->ig_col))) return rc;
      r->state = W_WG;
      return next_step(r, t);
    case W_WG:
      if ((w = compute(r, astra_whole(l->phase[WEFT_PHASE_WG].compute_ns), t))) return w < 0 ? WEFT_ENOMEM : 0;
      if ((rc = coll_issue(r, r->index, WEFT_PHASE_WG, -1, t, &id))) return rc;
      if (r->ig_col < 0) return bwd_next(r, t);
      r->state = W_WG_WAIT;
      r->wait_start_ns = t;
      return WEFT_OK;
    case W_WG_WAIT: return bwd_next(r, t);
    default: /* W_END: the pass is over */
      r->loop_end_ns = t;
      return WEFT_OK;
  }
}

static int coll_done(ARun *r, int c, double t) {
  ACol *a = &r->col[c];
  const WeftLayer *l = &r->wl->layers[a->layer];
  a->active = 0;
  r->out->t.comm_ns[a->phase] += t - a->start_ns;
  r->out->ncollectives++;
  span(r, WEFT_SPAN_COLLECTIVE, a->layer, a->phase, l->phase[a->phase].coll,
       a->phase == WEFT_PHASE_WG, -1, -1, a->start_ns, t);
  a->next_free = r->free_col;
  r->free_col = c;
  if (r->state == W_FWD_WAIT && r->wait_col == c) {
    r->out->t.exposed_comm_ns[WEFT_PHASE_FWD] += t - a->start_ns;
    return loop_step(r, t);
  }
  if (r->state == W_WG_WAIT && r->ig_col == c) return loop_step(r, t);
  if (r->ig_col == c) r->ig_col = -1; /* done before its layer's weight-grad compute ended */
  return WEFT_OK;
}

int astra_simulate_job(const WeftSpec *spec, int j, const double *bw, const WeftSimSettings *s,
                       WeftSimResult *res, WeftError *err) {
  ARun r;
  memset(&r, 0, sizeof r);
  r.set = s;
  r.wl = spec->jobs[j].workload;
  r.jobno = j;
  r.out = &res->job[j];
  r.err = err;
  r.free_col = r.free_run = -1;
  r.ig_col = r.wait_col = -1;
  r.state = W_FWD;
  sim_heap_init(&r.heap);
  int rc = astra_job(spec->net, r.wl, spec->jobs[j].comm, bw, s, &r.job, err);
  for (int l = 0; l < r.wl->nlayers && !rc; l++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++)
      r.out->t.compute_ns += astra_whole(r.wl->layers[l].phase[ph].compute_ns);
  unsigned long long events = 0;
  double t = 0.0;
  if (!rc && r.wl->nlayers > 0) rc = loop_step(&r, 0.0);
  SimEvent ev;
  while (!rc && sim_heap_pop(&r.heap, &ev)) {
    t = ev.t_ns;
    events++;
    rc = ev.kind == EV_LOOP ? loop_step(&r, t) : ev.kind == EV_STAGE ? stage_done(&r, ev.id, t)
                                                                     : coll_done(&r, ev.id, t);
  }
  if (!rc && (r.state != W_END || r.loop_end_ns <= 0.0 || r.ig_col >= 0))
    rc = weft_error_set(err, WEFT_ESOLVER, "", 0, 0, NULL,
                        "ASTRA-sim-like run of job %d ended with work left (internal error)", j + 1);
  if (!rc) {
    WeftSimJob *o = r.out;
    o->t.time_ns = fmax(t, r.loop_end_ns);
    o->t.exposed_comm_ns[WEFT_PHASE_WG] = fmax(0.0, o->t.time_ns - r.loop_end_ns);
    for (int d = 0; d < spec->net->ndims; d++)
      o->dim_util[d] = bw[d] > 0 && o->t.time_ns > 0 ? o->dim_bytes[d] / (bw[d] * o->t.time_ns) : 0.0;
    res->events += events;
    if (r.heap.peak > res->peak_events) res->peak_events = r.heap.peak;
  }
  for (int q = 0; q < NQUEUES; q++) free(r.q[q].w);
  free(r.col);
  free(r.run);
  free(r.run_next);
  sim_heap_free(&r.heap);
  return rc;
}
