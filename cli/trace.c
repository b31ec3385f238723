/* trace.c — the simulated timeline as Chrome trace-event JSON (opens in
 * ui.perfetto.dev and chrome://tracing), streamed from the simulator's span
 * callback into an output file (files.c: a temporary renamed into place at
 * the end, or /dev/null and the like written through). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim_opts.h"

/* Lanes (trace "threads") of a job's process. */
enum { LANE_COMPUTE = 0, LANE_BLOCKING = 1, LANE_WG = 2, LANE_DIM0 = 10 };

struct CliTrace {
  WeftOut *out;
  FILE *f;             /* out's stream */
  const WeftSpec *spec;
  int chunks;
  int nevents;         /* written so far: a comma before every one after the first */
};

static void sep(CliTrace *t) { fputs(t->nevents++ ? ",\n" : "\n", t->f); }

/* A metadata event: what = process_name, thread_name, ..._sort_index. */
static void meta_name(CliTrace *t, const char *what, int pid, int tid, const char *name) {
  sep(t);
  fprintf(t->f, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": ",
          what, pid, tid);
  cli_json_str(t->f, name);
  fputs("}}", t->f);
}

static void meta_sort(CliTrace *t, const char *what, int pid, int tid, int index) {
  sep(t);
  fprintf(t->f,
          "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": "
          "{\"sort_index\": %d}}",
          what, pid, tid, index);
}

static void lane(CliTrace *t, int pid, int tid, const char *name) {
  meta_name(t, "thread_name", pid, tid, name);
  meta_sort(t, "thread_sort_index", pid, tid, tid);
}

int cli_trace_open(const char *path, const WeftSpec *spec, const char *const *job_names,
                   const WeftSimSettings *s, CliTrace **out) {
  *out = NULL;
  CliTrace *t = calloc(1, sizeof *t);
  if (!t) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  int rc = cli_out_open(path, &t->out);  /* before simulating: found at once, still status 1 */
  if (rc) {
    free(t);
    return rc;
  }
  FILE *f = weft_out_stream(t->out);
  t->f = f;
  t->spec = spec;
  t->chunks = s->chunks;
  fputs("{\"traceEvents\": [", f);
  for (int j = 0; j < spec->njobs; j++) {
    char name[WEFT_NAME_LEN + 16];
    snprintf(name, sizeof name, "job %s", job_names[j] ? job_names[j] : "");
    meta_name(t, "process_name", j, 0, name);
    meta_sort(t, "process_sort_index", j, 0, j);
    lane(t, j, LANE_COMPUTE, "compute");
    lane(t, j, LANE_BLOCKING, "collectives (blocking)");
    if (spec->loop == WEFT_LOOP_TP_DP_OVERLAP) lane(t, j, LANE_WG, "weight-grad stream");
    for (int d = 0; s->stage_spans && d < spec->net->ndims; d++) {
      char dn[64];
      snprintf(dn, sizeof dn, "B%d stages (%s, %d NPUs)", d + 1,
               weft_topology_name(spec->net->topology[d]), spec->net->npus[d]);
      lane(t, j, LANE_DIM0 + d, dn);
    }
  }
  *out = t;
  return 0;
}

/* ts and dur in microseconds, as the format requires; ns resolution kept. */
void cli_trace_span(void *ctx, const WeftSimSpan *sp) {
  CliTrace *t = ctx;
  const WeftSpec *spec = t->spec;
  const WeftLayer *layer = NULL;
  if (sp->job >= 0 && sp->job < spec->njobs) {
    const WeftWorkload *wl = spec->jobs[sp->job].workload;
    if (sp->layer >= 0 && sp->layer < wl->nlayers) layer = &wl->layers[sp->layer];
  }
  const char *lname = layer ? layer->name : "?";
  const char *phase = weft_phase_name(sp->phase);
  const char *coll = weft_collective_name(sp->coll);
  double size = layer && sp->phase >= 0 && sp->phase < WEFT_NPHASES
                    ? layer->phase[sp->phase].size_bytes
                    : 0.0;
  int tid = sp->kind == WEFT_SPAN_COMPUTE      ? LANE_COMPUTE
            : sp->kind == WEFT_SPAN_COLLECTIVE ? (sp->stream ? LANE_WG : LANE_BLOCKING)
                                               : LANE_DIM0 + sp->dim;
  static const char *cat[] = {"compute", "collective", "stage"};
  char name[WEFT_NAME_LEN + 64];
  if (sp->kind == WEFT_SPAN_COMPUTE) snprintf(name, sizeof name, "%s %s", lname, phase);
  else if (sp->kind == WEFT_SPAN_COLLECTIVE) snprintf(name, sizeof name, "%s %s", lname, coll);
  else snprintf(name, sizeof name, "%s %s chunk %d", lname, coll, sp->chunk);
  sep(t);
  fputs("{\"name\": ", t->f);
  cli_json_str(t->f, name);
  fprintf(t->f, ", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": %d, "
                "\"tid\": %d, \"args\": {\"layer\": ",
          cat[sp->kind <= WEFT_SPAN_STAGE ? sp->kind : WEFT_SPAN_STAGE], sp->start_ns / 1e3,
          (sp->end_ns - sp->start_ns) / 1e3, sp->job, tid);
  cli_json_str(t->f, lname);
  fprintf(t->f, ", \"layer_index\": %d, \"phase\": \"%s\"", sp->layer, phase);
  if (sp->kind != WEFT_SPAN_COMPUTE) {
    fprintf(t->f, ", \"collective\": \"%s\", \"size_bytes\": ", coll);
    cli_json_num(t->f, size);
  }
  if (sp->kind == WEFT_SPAN_STAGE) {
    fprintf(t->f, ", \"dim\": %d, \"chunk\": %d, \"chunk_bytes\": ", sp->dim + 1, sp->chunk);
    cli_json_num(t->f, size / t->chunks);
  }
  fputs("}}", t->f);
}

int cli_trace_close(CliTrace *t, int ok) {
  if (!t) return 0;
  int rc = 0;
  if (ok) {
    fputs("\n],\n\"displayTimeUnit\": \"ns\"}\n", t->f);
    rc = cli_out_commit(t->out);
  } else {
    cli_out_discard(t->out);
  }
  free(t);
  return rc;
}
