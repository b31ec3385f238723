/* sim.c — the iteration simulator's driver: the training loop of each job
 * as a program (compute, blocking collectives, the overlap stream), the
 * chunk pipeline of each collective over its stages, and the event loop that
 * interleaves the event queue with the resources' completions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/limits.h"
#include "opt/exposed.h"
#include "sim/astra.h"
#include "sim/sim.h"

enum { EV_COMPUTE = 0, EV_DELAY = 1 };
#define NKEYS (WEFT_NPHASES + WEFT_MAX_GROUPS)
#define DONE_BATCH 256

const char *weft_algorithm_name(WeftAlgorithm a) {
  switch (a) {
    case WEFT_ALG_DEFAULT: return "default";
    case WEFT_ALG_RING: return "ring";
    case WEFT_ALG_DIRECT: return "direct";
    case WEFT_ALG_HD: return "hd";
  }
  return "?";
}

void weft_sim_settings_default(WeftSimSettings *s) {
  memset(s, 0, sizeof *s);
  s->fidelity = WEFT_FIDELITY_DIM;
  s->chunks = 64;
  s->in_flight = WEFT_SIM_IN_FLIGHT_ALL; /* NCCL's window outruns every preset's bandwidth-delay
                                           product: docs/simulate.md, "Pipelining" */
  s->sharing = WEFT_SHARE_MAXMIN;
  s->max_work = WEFT_SIM_MAX_WORK;
}

/* Progress over every job: work (events + flows) done before this job,
 * the total weft_sim_estimate counts, when the next call is due. */
typedef struct {
  const WeftSimSettings *set;
  size_t base, total, next;
} SimProgress;

static void progress_check(SimProgress *pg, size_t job_work) {
  size_t done = pg->base + job_work;
  if (done < pg->next) return;
  pg->next = done + WEFT_SIM_PROGRESS_EVERY;
  if (done >= pg->total) done = pg->total ? pg->total - 1 : 0; /* the end says total */
  pg->set->progress(pg->set->progress_ctx, done, pg->total);
}

/* One job's run. The main stream is a program counter over 6L ops: forward
 * (compute, collective) per layer, then backward per layer from the last
 * (input-grad compute, collective, weight-grad compute, collective). The
 * overlap loops queue some collectives, in program order, on a FIFO stream
 * that sends one at a time: weight-grad ones (tp-dp-overlap), forward and
 * input-grad ones (fwd-ig-overlap); the others block the main stream. */
typedef struct {
  const WeftSimSettings *set;
  const WeftNetwork *net;
  const double *bw;
  const WeftWorkload *wl;
  const int *group[NKEYS];
  int job, L, merge;
  WeftLoop loop;
  double delay_ns[WEFT_MAX_DIMS];
  SimHeap heap;
  SimRes *res;
  SimColl coll[2];      /* 0: the main stream's collective, 1: the overlap stream's */
  SimHeap ready[2][WEFT_MAX_DIMS]; /* per stream and dim: the collective's chunks waiting to
                                      send, keyed by ready_key */
  SimXfer *xf;
  int nxf, capxf, free_xf;
  int pc;               /* next op of the main stream */
  double op_start_ns;   /* when the running compute op began */
  int *queue;           /* the overlap stream's ops (main-stream op indices), FIFO */
  int q_enq, q_sent;    /* ops queued / taken by the stream */
  WeftSimJob *out;
  WeftError *err;
  SimProgress *pg;      /* NULL: no progress calls */
  /* Hidden collectives (plan_hidden): each main-stream op's compute, and the
   * compute a hidden collective's op runs beside it (0: it blocks). */
  double *comp, *hide;
  double hide_start_ns, hide_until_ns; /* the running hidden collective's compute */
  double saved[WEFT_NPHASES];          /* comm hidden behind compute, per phase */
} Run;

static void span(Run *r, WeftSpanKind kind, int layer, WeftPhase ph, WeftCollective c, int stream,
                 int dim, int chunk, double t0, double t1) {
  if (!r->set->on_span) return;
  WeftSimSpan s = {kind, r->job, layer, ph, c, stream, dim, chunk, t0, t1};
  r->set->on_span(r->set->span_ctx, &s);
}

static int xfer_alloc(Run *r) {
  if (r->free_xf >= 0) {
    int id = r->free_xf;
    r->free_xf = r->xf[id].next_free;
    return id;
  }
  if (r->nxf == r->capxf) {
    int nc = r->capxf ? 2 * r->capxf : 16;
    SimXfer *nx = realloc(r->xf, (size_t)nc * sizeof *nx);
    if (!nx) return WEFT_ENOMEM;
    r->xf = nx;
    r->capxf = nc;
  }
  return r->nxf++;
}

static void xfer_release(Run *r, int id) {
  r->xf[id].next_free = r->free_xf;
  r->free_xf = id;
}

static int start_step(Run *r, int id, double t) {
  SimXfer *x = &r->xf[id];
  const Stage *s = &r->coll[x->coll].st[x->stage];
  x->merged = r->merge && r->delay_ns[s->dim] == 0.0 && x->step == 0;
  return r->res->start(r->res, id, x, s, t);
}

/* A collective's chunks send on a dim one at a time (a channel's FIFO);
 * the waiting ones by the latest stage first, then the oldest chunk, so
 * chunks drain before new ones go on. The key is exact in a double. */
static double ready_key(const SimXfer *x) {
  return (double)(SIM_MAX_STAGES - x->stage) * 2147483648.0 + x->chunk;
}

static int make_ready(Run *r, int id) {
  const SimXfer *x = &r->xf[id];
  return sim_heap_push(&r->ready[x->coll][r->coll[x->coll].st[x->stage].dim], ready_key(x), 0, id);
}

/* Let waiting chunks into their stages on dim d while the collective has
 * room there (in_flight; 0: no limit), then start the first waiting one
 * when none of the collective's is sending on d. A chunk waiting out a
 * step's latency holds its place in the stage but not the dim. */
static int fill_dim(Run *r, int slot, int d, double t) {
  SimColl *c = &r->coll[slot];
  int k = r->set->in_flight, rc;
  while (k == WEFT_SIM_IN_FLIGHT_ALL || c->busy[d] < k) {
    int s = c->nstages - 1;
    while (s >= 0 && !(c->st[s].dim == d && c->arrived[s] > c->started[s])) s--;
    if (s < 0) break;
    int id = xfer_alloc(r);
    if (id < 0) return id;
    r->xf[id] = (SimXfer){slot, s, 0, c->started[s]++, t, 0, -1};
    c->busy[d]++;
    if ((rc = make_ready(r, id))) return rc;
  }
  SimEvent ev;
  if (c->sending[d] || !sim_heap_pop(&r->ready[slot][d], &ev)) return WEFT_OK;
  c->sending[d] = 1;
  if (r->xf[ev.id].step == 0) r->xf[ev.id].stage_start_ns = t; /* a stage span: from its first send */
  return start_step(r, ev.id, t);
}

static int run_main(Run *r, double t);
static int stream_next(Run *r, double t);

/* Start the collective of (layer, phase) in a stream slot. *started = 0
 * when it moves no bytes. */
static int coll_start(Run *r, int slot, int layer, WeftPhase ph, double t, int *started) {
  const WeftPhaseSpec *p = &r->wl->layers[layer].phase[ph];
  SimColl *c = &r->coll[slot];
  *started = 0;
  if (p->coll == WEFT_COLL_NONE || !(p->size_bytes > 0)) return WEFT_OK;
  const int *g = r->group[p->group ? WEFT_NPHASES + p->group - 1 : (int)ph];
  int ns = stage_build(p->coll, p->size_bytes / r->set->chunks, g, r->net, r->set->algorithm,
                       c->st, r->err);
  if (ns < 0) return ns;
  if (ns == 0) return WEFT_OK;
  for (int s = 0; s < ns; s++)
    if (!(r->bw[c->st[s].dim] > 0))
      return weft_error_set(r->err, WEFT_EINPUT, r->net->file, r->net->line[c->st[s].dim], 0,
                            "bw_gbps", "dim %d carries layer %s's %s collective but has no "
                            "bandwidth",
                            c->st[s].dim + 1, r->wl->layers[layer].name, weft_phase_name(ph));
  for (int s = 0; s < ns && r->set->fidelity == WEFT_FIDELITY_LINK; s++) {
    int d = c->st[s].dim;
    if (r->net->npus[d] % c->st[s].n)
      return weft_error_set(r->err, WEFT_EINPUT, r->net->file, r->net->line[d], 0, "npus_count",
                            "dim %d (%d NPUs): layer %s's %s group spans %d, which does not "
                            "divide the dim (link fidelity lays groups as blocks)",
                            d + 1, r->net->npus[d], r->wl->layers[layer].name,
                            weft_phase_name(ph), c->st[s].n);
  }
  c->used = 1;
  c->stream = slot;
  c->layer = layer;
  c->phase = ph;
  c->coll = p->coll;
  c->nstages = ns;
  c->chunks = r->set->chunks;
  c->done = 0;
  memset(c->arrived, 0, sizeof c->arrived);
  memset(c->started, 0, sizeof c->started);
  memset(c->busy, 0, sizeof c->busy);
  memset(c->sending, 0, sizeof c->sending);
  c->arrived[0] = c->chunks;
  c->start_ns = t;
  c->calls = weft_phase_calls(p);
  *started = 1;
  return fill_dim(r, slot, c->st[0].dim, t);
}

static int coll_done(Run *r, int slot, double t) {
  SimColl *c = &r->coll[slot];
  c->used = 0;
  r->out->t.comm_ns[c->phase] += t - c->start_ns;
  r->out->ncollectives++;
  span(r, WEFT_SPAN_COLLECTIVE, c->layer, c->phase, c->coll, slot, -1, -1, c->start_ns, t);
  if (slot == 1) return stream_next(r, t);
  if (r->hide_until_ns > r->hide_start_ns) { /* a hidden collective: its compute beside it */
    double until = r->hide_until_ns;
    r->saved[c->phase] += fmin(t, until) - c->start_ns;
    r->hide_until_ns = r->hide_start_ns = 0.0;
    r->op_start_ns = c->start_ns;
    if (until > t) return sim_heap_push(&r->heap, until, EV_COMPUTE, 0); /* compute_done: on */
    span(r, WEFT_SPAN_COMPUTE, c->layer, c->phase, WEFT_COLL_NONE, 0, -1, -1, c->start_ns, until);
  }
  r->pc++;
  return run_main(r, t);
}

static int stage_done(Run *r, int id, double t) {
  SimXfer x = r->xf[id];
  SimColl *c = &r->coll[x.coll];
  int d = c->st[x.stage].dim, rc;
  if (r->set->stage_spans)
    span(r, WEFT_SPAN_STAGE, c->layer, c->phase, c->coll, x.coll, d, x.chunk, x.stage_start_ns, t);
  xfer_release(r, id);
  c->busy[d]--;
  if (x.stage + 1 < c->nstages) {
    c->arrived[x.stage + 1]++;
    if ((rc = fill_dim(r, x.coll, c->st[x.stage + 1].dim, t))) return rc;
  } else {
    c->done++;
  }
  if ((rc = fill_dim(r, x.coll, d, t))) return rc;
  return c->done == c->chunks ? coll_done(r, x.coll, t) : WEFT_OK;
}

/* The step of transfer id is over (its bytes sent, its latency waited):
 * the chunk's next step waits for the dim, or its stage is done. */
static int step_done(Run *r, int id, double t) {
  SimXfer *x = &r->xf[id];
  const Stage *s = &r->coll[x->coll].st[x->stage];
  if (x->merged || ++x->step >= s->nsteps) return stage_done(r, id, t);
  int rc = make_ready(r, id);
  return rc ? rc : fill_dim(r, x->coll, s->dim, t);
}

/* A resource finished transfer id: the dim is free for the collective's
 * next chunk, and the step ends after the dim's delay, once per call the
 * entry stands for (its calls run back to back: exact with one chunk,
 * where a step's bytes split over the calls take the same time). */
static int xfer_done(Run *r, int id, double t) {
  SimXfer *x = &r->xf[id];
  SimColl *c = &r->coll[x->coll];
  int d = c->st[x->stage].dim, slot = x->coll, rc;
  c->sending[d] = 0;
  if (r->delay_ns[d] > 0.0 && !x->merged) {
    if ((rc = sim_heap_push(&r->heap, t + c->calls * r->delay_ns[d], EV_DELAY, id))) return rc;
    return fill_dim(r, slot, d, t);
  }
  return step_done(r, id, t);
}

static int decode(int p, int L, int *layer, WeftPhase *ph);

/* The overlap stream: take the next queued collective when idle. */
static int stream_next(Run *r, double t) {
  while (!r->coll[1].used && r->q_sent < r->q_enq) {
    int layer, started, rc;
    WeftPhase ph;
    decode(r->queue[r->q_sent++], r->L, &layer, &ph);
    if ((rc = coll_start(r, 1, layer, ph, t, &started))) return rc;
  }
  return WEFT_OK;
}

/* Does the loop queue phase ph's collectives on the overlap stream? */
static int queued(WeftLoop loop, WeftPhase ph) {
  if (loop == WEFT_LOOP_TP_DP_OVERLAP) return ph == WEFT_PHASE_WG;
  if (loop == WEFT_LOOP_FWD_IG_OVERLAP) return ph != WEFT_PHASE_WG;
  return 0;
}

/* Op p of the main stream: its layer, phase and whether it is the compute
 * (0) or the collective (1) of that phase. */
static int decode(int p, int L, int *layer, WeftPhase *ph) {
  if (p < 2 * L) {
    *layer = p / 2;
    *ph = WEFT_PHASE_FWD;
    return p % 2;
  }
  int q = p - 2 * L;
  *layer = L - 1 - q / 4;
  *ph = q % 4 < 2 ? WEFT_PHASE_IG : WEFT_PHASE_WG;
  return q % 2;
}

/* Run the main stream from op pc until it waits (compute or a blocking
 * collective) or ends. */
static int run_main(Run *r, double t) {
  while (r->pc < 6 * r->L) {
    int layer;
    WeftPhase ph;
    if (!decode(r->pc, r->L, &layer, &ph)) { /* compute */
      double c = r->comp[r->pc];
      if (c > 0) {
        r->out->t.compute_ns += c;
        r->op_start_ns = t;
        return sim_heap_push(&r->heap, t + c, EV_COMPUTE, 0);
      }
      r->pc++;
      continue;
    }
    if (queued(r->loop, ph)) { /* the stream sends it */
      r->queue[r->q_enq++] = r->pc++;
      int rc = stream_next(r, t);
      if (rc) return rc;
      continue;
    }
    int started, rc = coll_start(r, 0, layer, ph, t, &started);
    double h = r->hide[r->pc];
    if (h > 0) r->out->t.compute_ns += h;
    if (!rc && started && h > 0) { /* runs beside h of compute (coll_done) */
      r->hide_start_ns = t;
      r->hide_until_ns = t + h;
    } else if (!rc && h > 0) { /* no bytes moved: the compute alone */
      r->op_start_ns = t;
      return sim_heap_push(&r->heap, t + h, EV_COMPUTE, 0);
    }
    if (rc || started) return rc;
    r->pc++;
  }
  return WEFT_OK;
}

/* Hidden collectives (WeftPhaseSpec.overlap_ns, forward and input-grad, not
 * under fwd-ig-overlap, which queues them): each runs beside up to overlap_ns
 * of the main stream's compute, taken from the compute ops of its pass
 * (forward, or backward), the nearest before it first, then after it; the
 * compute ops keep the rest. Alone on the network this is the analytic
 * model's max(0, comm - overlap_ns) exactly, when the pass has that much
 * compute (docs/simulate.md). */
static void plan_hidden(Run *r) {
  int n = 6 * r->L;
  for (int p = 0; p < n; p++) {
    int layer;
    WeftPhase ph;
    r->hide[p] = 0.0;
    r->comp[p] = decode(p, r->L, &layer, &ph) ? 0.0 : r->wl->layers[layer].phase[ph].compute_ns;
  }
  if (r->loop == WEFT_LOOP_FWD_IG_OVERLAP) return;
  for (int q = 0; q < n; q++) {
    int layer;
    WeftPhase ph;
    if (!decode(q, r->L, &layer, &ph) || ph == WEFT_PHASE_WG) continue;
    const WeftPhaseSpec *s = &r->wl->layers[layer].phase[ph];
    if (!(s->overlap_ns > 0) || s->coll == WEFT_COLL_NONE || !(s->size_bytes > 0)) continue;
    int lo = q < 2 * r->L ? 0 : 2 * r->L, hi = q < 2 * r->L ? 2 * r->L : n;
    double need = s->overlap_ns;
    for (int dir = -1; dir <= 1; dir += 2)
      for (int k = q + dir; k >= lo && k < hi && need > 0; k += dir) {
        double x = fmin(need, r->comp[k]);
        r->comp[k] -= x;
        need -= x;
      }
    r->hide[q] = s->overlap_ns - need;
  }
}

static int compute_done(Run *r, double t) {
  int layer;
  WeftPhase ph;
  decode(r->pc, r->L, &layer, &ph);
  span(r, WEFT_SPAN_COMPUTE, layer, ph, WEFT_COLL_NONE, 0, -1, -1, r->op_start_ns, t);
  r->pc++;
  return run_main(r, t);
}

/* Process every transfer the resources finished by t. */
static int drain(Run *r, double t, unsigned long long *events) {
  int done[DONE_BATCH], n, rc;
  do {
    n = r->res->advance(r->res, t, done, DONE_BATCH);
    for (int i = 0; i < n; i++) {
      (*events)++;
      if ((rc = xfer_done(r, done[i], t))) return rc;
    }
  } while (n == DONE_BATCH);
  return WEFT_OK;
}

static int event_loop(Run *r, double *end_ns, unsigned long long *events) {
  double t = 0.0;
  int rc = run_main(r, 0.0);
  while (!rc) {
    double th = sim_heap_top(&r->heap), tr = r->res->next(r->res);
    if (th == HUGE_VAL && tr == HUGE_VAL) break;
    if (tr <= th) {
      /* next() promised a completion. A link step is many flows and only
       * the last one ends the transfer, so count what the resource
       * completed, not the transfers: never spin, but flows finishing at
       * different times are progress. */
      unsigned long long before = r->res->completions;
      t = tr;
      rc = drain(r, t, events);
      if (!rc && r->res->completions == before)
        rc = weft_error_set(r->err, WEFT_ESOLVER, "", 0, 0, NULL,
                            "simulator made no progress at %.17g ns", t);
      if (r->pg) progress_check(r->pg, (size_t)(*events + r->res->flows));
      continue;
    }
    SimEvent ev;
    sim_heap_pop(&r->heap, &ev);
    t = ev.t_ns;
    (*events)++;
    if ((rc = drain(r, t, events))) break;
    rc = ev.kind == EV_COMPUTE ? compute_done(r, t) : step_done(r, ev.id, t);
    if (r->pg) progress_check(r->pg, (size_t)(*events + r->res->flows));
  }
  *end_ns = t;
  if (!rc && (r->pc < 6 * r->L || r->coll[0].used || r->coll[1].used || r->q_sent < r->q_enq))
    rc = weft_error_set(r->err, WEFT_ESOLVER, "", 0, 0, NULL,
                        "simulation ended with work left (internal error)");
  return rc;
}

static int resolve_groups(Run *r, const WeftJob *job) {
  const WeftCommunicator *cm = job->comm;
  for (int ph = 0; ph < WEFT_NPHASES; ph++) r->group[ph] = cm->group[ph];
  for (int k = 0; k < r->wl->ngroups && k < WEFT_MAX_GROUPS; k++)
    if (!(r->group[WEFT_NPHASES + k] = weft_communicator_find(cm, r->wl->group_name[k])))
      return weft_error_set(r->err, WEFT_EINPUT, r->wl->file, 0, 0, r->wl->group_name[k],
                            "the workload uses group '%s', which the communicator does not "
                            "name",
                            r->wl->group_name[k]);
  for (int l = 0; l < r->wl->nlayers; l++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *p = &r->wl->layers[l].phase[ph];
      if (p->coll != WEFT_COLL_NONE && p->size_bytes > 0 &&
          (p->group < 0 || p->group > r->wl->ngroups || (unsigned)p->coll >= WEFT_NCOLL))
        return weft_error_set(r->err, WEFT_EINVAL, r->wl->file, r->wl->layers[l].line, 0,
                              "group", "layer %s: bad collective or group index",
                              r->wl->layers[l].name);
      if (!(weft_phase_calls(p) <= WEFT_MAX_CALLS))
        return weft_error_set(r->err, WEFT_EINVAL, r->wl->file, r->wl->layers[l].line, 0,
                              "calls", "layer %s: %g calls, at most " WEFT_LIMIT_TEXT(
                                  WEFT_MAX_CALLS) " are allowed",
                              r->wl->layers[l].name, p->calls);
    }
  return WEFT_OK;
}

static int simulate_job(const WeftSpec *spec, int j, const double *bw, const WeftSimSettings *s,
                        SimProgress *pg, WeftSimResult *res, WeftError *err) {
  Run r;
  memset(&r, 0, sizeof r);
  r.set = s;
  r.pg = pg;
  r.net = spec->net;
  r.bw = bw;
  r.wl = spec->jobs[j].workload;
  r.job = j;
  r.L = r.wl->nlayers;
  r.loop = spec->loop;
  r.merge = s->fidelity == WEFT_FIDELITY_DIM;
  r.free_xf = -1;
  r.out = &res->job[j];
  r.err = err;
  for (int d = 0; d < spec->net->ndims; d++) r.delay_ns[d] = s->latency_ns[d] + s->endpoint_delay_ns;
  sim_heap_init(&r.heap);
  for (int k = 0; k < 2; k++)
    for (int d = 0; d < WEFT_MAX_DIMS; d++) sim_heap_init(&r.ready[k][d]);
  /* at most 2 queued collectives per layer (tp-dp-overlap: 1, fwd-ig-overlap: 2) */
  r.queue = malloc((2 * (size_t)r.L + 1) * sizeof *r.queue);
  r.comp = malloc((12 * (size_t)r.L + 1) * sizeof *r.comp);
  r.hide = r.comp ? r.comp + 6 * (size_t)r.L : NULL;
  int rc = r.queue && r.comp ? resolve_groups(&r, &spec->jobs[j]) : WEFT_ENOMEM;
  if (!rc) plan_hidden(&r);
  if (!rc)
    rc = s->fidelity == WEFT_FIDELITY_DIM ? dimres_create(spec->net, bw, &r.res)
                                           : linkres_create(spec->net, bw, s->sharing, &r.res, err);
  double end_ns = 0.0;
  unsigned long long events = 0;
  if (!rc) rc = event_loop(&r, &end_ns, &events);
  if (!rc && r.res->finish) r.res->finish(r.res);
  if (!rc) {
    WeftSimJob *o = r.out;
    o->t.time_ns = end_ns;
    weft_loop_exposed_saved(r.loop, end_ns, o->t.compute_ns, o->t.comm_ns, r.saved,
                            o->t.exposed_comm_ns);
    for (int d = 0; d < spec->net->ndims; d++) {
      o->dim_bytes[d] = r.res->dim_bytes[d];
      o->dim_busy_ns[d] = r.res->dim_busy_ns[d];
      o->dim_util[d] = bw[d] > 0 && end_ns > 0 ? o->dim_bytes[d] / (bw[d] * end_ns) : 0.0;
    }
    res->events += events;
    res->flows += r.res->flows;
    if (pg) pg->base += (size_t)(events + r.res->flows);
    if (r.heap.peak > res->peak_events) res->peak_events = r.heap.peak;
    if (r.res->peak_flows > res->peak_flows) res->peak_flows = r.res->peak_flows;
  }
  if (rc && (!err || !err->msg[0])) /* a resource's own failure: never without a reason */
    rc = rc == WEFT_ENOMEM
             ? weft_error_set(err, rc, "", 0, 0, NULL, "out of memory simulating job %d", j + 1)
             : weft_error_set(err, WEFT_ESOLVER, "", 0, 0, NULL,
                              "%s fidelity simulation of job %d failed: %s (internal error)",
                              s->fidelity == WEFT_FIDELITY_LINK ? "link" : "dim", j + 1,
                              weft_strerror(rc));
  if (r.res) r.res->free(r.res);
  sim_heap_free(&r.heap);
  for (int k = 0; k < 2; k++)
    for (int d = 0; d < WEFT_MAX_DIMS; d++) sim_heap_free(&r.ready[k][d]);
  free(r.xf);
  free(r.queue);
  free(r.comp);
  return rc;
}

static int check_settings(const WeftSpec *spec, const double *bw, const WeftSimSettings *s,
                          WeftError *err) {
  if (!spec || !spec->net || !bw || !s || spec->njobs < 1 || spec->njobs > WEFT_MAX_JOBS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "bad simulation arguments");
  if (s->chunks < 1)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "chunks", "chunks must be at least 1");
  if (s->in_flight < 0)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "in_flight",
                          "in_flight must be at least 1, or 0 for every chunk");
  if ((unsigned)s->fidelity > WEFT_FIDELITY_LINK || (unsigned)s->sharing > WEFT_SHARE_FIFO ||
      (unsigned)s->like > WEFT_LIKE_ASTRA1 || (unsigned)s->astra_policy > WEFT_ASTRA_FIFO)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "bad fidelity, sharing, semantics or scheduling policy");
  if (s->like == WEFT_LIKE_ASTRA1 && s->fidelity != WEFT_FIDELITY_DIM)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "fidelity",
                          "ASTRA-sim semantics run at dim fidelity (its analytical backend "
                          "shares no link)");
  if (!(s->max_work >= 0))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "max_work", "max_work must be >= 0");
  if (!(s->endpoint_delay_ns >= 0 && s->endpoint_delay_ns <= WEFT_MAX_TIME_NS))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "endpoint_delay_ns",
                          "endpoint delay must be 0 to " WEFT_LIMIT_TEXT(WEFT_MAX_TIME_NS) " ns");
  for (int d = 0; d < spec->net->ndims; d++) {
    if (!(s->latency_ns[d] >= 0 && s->latency_ns[d] <= WEFT_MAX_TIME_NS))
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "latency_ns",
                            "dim %d: latency must be 0 to " WEFT_LIMIT_TEXT(WEFT_MAX_TIME_NS) " ns",
                            d + 1);
    if ((unsigned)s->algorithm[d] >= WEFT_NALG)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "algorithm", "dim %d: bad algorithm",
                            d + 1);
    if (!(bw[d] == 0 || (bw[d] >= WEFT_MIN_BW_GBPS && bw[d] <= WEFT_MAX_BW_GBPS)))
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "bw_gbps",
                            "dim %d: bandwidth must be 0 or from " WEFT_LIMIT_TEXT(WEFT_MIN_BW_GBPS)
                            " to " WEFT_LIMIT_TEXT(WEFT_MAX_BW_GBPS) " GB/s", d + 1);
  }
  return WEFT_OK;
}

int weft_simulate(const WeftSpec *spec, const double *bw_gbps, const WeftSimSettings *s,
                  WeftSimResult *res, WeftError *err) {
  weft_error_clear(err);
  int rc = check_settings(spec, bw_gbps, s, err);
  WeftSimWork w; /* one estimate: the work limit and the progress total */
  int estimated = 0;
  if (!rc && (s->max_work > 0 || s->progress)) {
    rc = weft_sim_estimate(spec, s, &w, err);
    estimated = !rc;
  }
  if (!rc && estimated) rc = sim_check_work(&w, s, err);
  if (rc) return rc;
  memset(res, 0, sizeof *res);
  res->njobs = spec->njobs;
  res->ndims = spec->net->ndims;
  double bw[WEFT_MAX_DIMS]; /* the bandwidth each dim achieves */
  for (int d = 0; d < spec->net->ndims; d++)
    bw[d] = bw_gbps[d] * (spec->net->efficiency[d] > 0.0 ? spec->net->efficiency[d] : 1.0);
  SimProgress pg = {s, 0, 0, WEFT_SIM_PROGRESS_EVERY}, *pgp = NULL;
  if (s->progress && estimated) { /* the total: the estimate's events and flows, exact */
    pg.total = (size_t)(w.events + w.flows);
    pgp = &pg;
  }
  for (int j = 0; j < spec->njobs && !rc; j++) {
    rc = s->like == WEFT_LIKE_ASTRA1 ? astra_simulate_job(spec, j, bw, s, res, err)
                                     : simulate_job(spec, j, bw, s, pgp, res, err);
    res->time_ns += spec->jobs[j].weight * res->job[j].t.time_ns;
  }
  if (!rc && pgp) s->progress(s->progress_ctx, pg.total, pg.total);
  return rc;
}
