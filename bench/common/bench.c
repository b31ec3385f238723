/* bench.c — shared by the benches: clock, medians, PASS/MISS, and the
 * synthetic problem (built in memory and written as files). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_report(const char *name, double median_ns, double target_ns) {
  int pass = median_ns <= target_ns;
  printf("  %-44s %10.1f us   target <= %8.1f us   %s\n", name, median_ns / 1e3,
         target_ns / 1e3, pass ? "PASS" : "MISS");
  return pass;
}

uint32_t bench_rng_next(BenchRng *r) {
  r->state = r->state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(r->state >> 33);  /* the high bits: the low ones cycle fast */
}

double bench_rng_unif(BenchRng *r) { return (double)bench_rng_next(r) / 2147483648.0; }

/* ------------------------------------------------------------ synthetic problem */
static const char *const SYNTH_CONS[] = {"sum = 4000", "B1 >= B2 >= B3", "B8 <= B7 <= B6"};

int synth_build(Synth *s, uint64_t seed, WeftError *err) {
  BenchRng rng = {seed};
  memset(s, 0, sizeof *s);
  s->net.ndims = SYNTH_DIMS;
  s->cost.nclasses = SYNTH_DIMS;
  s->comm.ndims = SYNTH_DIMS;
  for (int d = 0; d < SYNTH_DIMS; d++) {
    s->net.topology[d] = (WeftTopology)(bench_rng_next(&rng) % 3);
    s->net.npus[d] = 2 + (int)(bench_rng_next(&rng) % 7);  /* 2..8 */
    snprintf(s->net.cost_dim[d], WEFT_NAME_LEN, "Dim%d", d + 1);
    WeftCostClass *c = &s->cost.cls[d];
    snprintf(c->name, sizeof c->name, "Dim%d", d + 1);
    /* whole cents, so the yml written later reads back the same doubles */
    c->link_usd_per_gbps = (double)(100 + 200 * d + (int)(bench_rng_next(&rng) % 100)) / 100.0;
    c->switch_usd_per_gbps = (double)(800 + 100 * d) / 100.0;
    c->nic_usd_per_gbps = (double)(1600 + 200 * d) / 100.0;
    c->has_link = c->has_switch = c->has_nic = 1;
    for (int ph = 0; ph < WEFT_NPHASES; ph++)
      s->comm.group[ph][d] = ph == WEFT_PHASE_WG || d < SYNTH_INNER_DIMS ? s->net.npus[d] : -1;
  }
  if (!(s->wl = weft_workload_create()))
    return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  for (int l = 0; l < SYNTH_LAYERS; l++) {
    WeftLayer layer;
    memset(&layer, 0, sizeof layer);
    snprintf(layer.name, sizeof layer.name, "layer%d", l + 1);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      WeftPhaseSpec *p = &layer.phase[ph];
      p->compute_ns = (double)(10000 + bench_rng_next(&rng) % 2000000);  /* 10 us .. 2 ms */
      p->coll = (WeftCollective)(bench_rng_next(&rng) % WEFT_NCOLL);   /* NONE..ALLTOALL */
      /* 1 kB .. 10 MB, log-uniform, whole bytes */
      p->size_bytes = p->coll == WEFT_COLL_NONE ? 0.0 : floor(1e3 * pow(10.0, 4.0 * bench_rng_unif(&rng)));
    }
    layer.update_ns = 1000;
    int rc = weft_workload_add(s->wl, &layer);
    if (rc) return weft_error_set(err, rc, "", 0, 0, NULL, "cannot add a layer");
  }
  for (size_t i = 0; i < sizeof SYNTH_CONS / sizeof SYNTH_CONS[0]; i++) {
    s->cons_text[s->ncons++] = SYNTH_CONS[i];
    int rc = weft_constraints_parse(&s->cons, SYNTH_CONS[i], SYNTH_DIMS, err);
    if (rc) return rc;
  }
  return WEFT_OK;
}

void synth_free(Synth *s) {
  if (!s) return;
  weft_workload_free(s->wl);
  s->wl = NULL;
}

void synth_spec(const Synth *s, WeftObjective obj, WeftLoop loop, WeftSpec *spec) {
  memset(spec, 0, sizeof *spec);
  spec->net = &s->net;
  spec->cost = &s->cost;
  spec->njobs = 1;
  spec->jobs[0].workload = s->wl;
  spec->jobs[0].comm = &s->comm;
  spec->jobs[0].weight = 1.0;
  snprintf(spec->jobs[0].name, sizeof spec->jobs[0].name, "synth");
  spec->cons = &s->cons;
  spec->objective = obj;
  spec->loop = loop;
}

static const char *const SYNTH_FILES[] = {"net.yml", "cost.yml", "comm.yml", "synth.txt",
                                          "scenario.yml"};
enum { F_NET, F_COST, F_COMM, F_WL, F_SC, F_COUNT };

static FILE *open_in(const char *dir, int f) {
  char path[WEFT_PATH_LEN];
  snprintf(path, sizeof path, "%s/%s", dir, SYNTH_FILES[f]);
  return fopen(path, "w");
}

/* "[ a, b, ... ]" of one int per dim. */
static void write_ints(FILE *out, const char *key, const int *v, int n) {
  fprintf(out, "%s: [", key);
  for (int d = 0; d < n; d++) fprintf(out, "%s %d", d ? "," : "", v[d]);
  fputs(" ]\n", out);
}

int synth_write(const Synth *s, const char *dir) {
  static const char *const phase_key[WEFT_NPHASES] = {"Forward", "InputGrad", "WeightGrad"};
  FILE *f[F_COUNT] = {0};
  int bad = 0;
  for (int i = 0; i < F_COUNT; i++)
    if (!(f[i] = open_in(dir, i))) bad = 1;
  if (!bad) {
    const WeftNetwork *n = &s->net;
    fputs("# synthetic bench network\nTopology: [", f[F_NET]);
    for (int d = 0; d < n->ndims; d++)
      fprintf(f[F_NET], "%s %s", d ? "," : "", weft_topology_name(n->topology[d]));
    fputs(" ]\n", f[F_NET]);
    write_ints(f[F_NET], "NpusCount", n->npus, n->ndims);
    fputs("CostDimension: [", f[F_NET]);
    for (int d = 0; d < n->ndims; d++) fprintf(f[F_NET], "%s %s", d ? "," : "", n->cost_dim[d]);
    fputs(" ]\n", f[F_NET]);
    for (int c = 0; c < s->cost.nclasses; c++) {
      const WeftCostClass *k = &s->cost.cls[c];
      fprintf(f[F_COST], "%s:\n  Link: %.2f\n  Switch: %.2f\n  Nic: %.2f\n", k->name,
              k->link_usd_per_gbps, k->switch_usd_per_gbps, k->nic_usd_per_gbps);
    }
    for (int ph = 0; ph < WEFT_NPHASES; ph++)
      write_ints(f[F_COMM], phase_key[ph], s->comm.group[ph], s->comm.ndims);
    for (int l = 0; l < s->wl->nlayers; l++) {
      const WeftLayer *L = &s->wl->layers[l];
      fprintf(f[F_WL], "%s -1", L->name);
      for (int ph = 0; ph < WEFT_NPHASES; ph++)
        fprintf(f[F_WL], " %.0f %s %.0f", L->phase[ph].compute_ns,
                weft_collective_name(L->phase[ph].coll), L->phase[ph].size_bytes);
      fprintf(f[F_WL], " %.0f\n", L->update_ns);
    }
    fputs("# synthetic bench scenario\nnetwork: net.yml\ncost_model: cost.yml\n"
          "workload: synth.txt\ncommunicator: comm.yml\nconstraints:\n", f[F_SC]);
    for (int i = 0; i < s->ncons; i++) fprintf(f[F_SC], "  - \"%s\"\n", s->cons_text[i]);
  }
  for (int i = 0; i < F_COUNT; i++)
    if (f[i] && (ferror(f[i]) | fclose(f[i]))) bad = 1;
  return bad ? -1 : 0;
}

void synth_remove(const char *dir) {
  char path[WEFT_PATH_LEN];
  for (int i = 0; i < F_COUNT; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, SYNTH_FILES[i]);
    unlink(path);
  }
  rmdir(dir);
}
