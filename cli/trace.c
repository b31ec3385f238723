/* trace.c — the simulated timeline as Chrome trace-event JSON (opens in
 * ui.perfetto.dev and chrome://tracing), streamed from the simulator's span
 * callback into an output file (files.c: a temporary renamed into place at
 * the end, or /dev/null and the like written through), capped in size. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim_opts.h"

/* Lanes (trace "threads") of a job's process. */
enum { LANE_COMPUTE = 0, LANE_BLOCKING = 1, LANE_WG = 2, LANE_DIM0 = 10 };

/* One event is formatted here before it is written, so the cap is checked
 * on its exact size: its names are at most WEFT_NAME_LEN + 64 bytes, at most
 * 6 bytes each once escaped, and the rest is under 400: under 2 KiB. */
#define EVENT_BUF 8192
/* Room kept under the cap for the closing brackets and the truncation note. */
#define TRAILER_BYTES 512

static const char HEAD[] = "{\"traceEvents\": [";

struct CliTrace {
  WeftOut *out;
  FILE *f;             /* out's stream */
  const char *path;
  const WeftSpec *spec;
  int chunks;
  int nevents;         /* written so far: a comma before every one after the first */
  FILE *ev;            /* fmemopen over evbuf: the event being formatted */
  double bytes, max_bytes;            /* written so far; the cap */
  int full;                           /* the cap was reached: no more events */
  unsigned long long spans, written;  /* spans reported; written */
  char evbuf[EVENT_BUF];
};

/* Start formatting an event (its separator first); ev_end writes it. */
static FILE *ev_begin(CliTrace *t) {
  rewind(t->ev);
  fputs(t->nevents ? ",\n" : "\n", t->ev);
  return t->ev;
}

/* Write the event formatted since ev_begin, unless the file would then pass
 * the cap less the trailer's room: from there on every event is dropped, so
 * the trace is a prefix of the run. */
static int ev_end(CliTrace *t) {
  fflush(t->ev);
  long n = ftell(t->ev);
  if (t->full || n < 0 || n >= EVENT_BUF - 1 ||
      t->bytes + (double)n + TRAILER_BYTES > t->max_bytes) {
    t->full = 1;
    return 0;
  }
  fwrite(t->evbuf, 1, (size_t)n, t->f);
  t->bytes += (double)n;
  t->nevents++;
  return 1;
}

/* A metadata event: what = process_name, thread_name, ..._sort_index. */
static void meta_name(CliTrace *t, const char *what, int pid, int tid, const char *name) {
  FILE *f = ev_begin(t);
  fprintf(f, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": ",
          what, pid, tid);
  cli_json_str(f, name);
  fputs("}}", f);
  ev_end(t);
}

static void meta_sort(CliTrace *t, const char *what, int pid, int tid, int index) {
  FILE *f = ev_begin(t);
  fprintf(f,
          "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": "
          "{\"sort_index\": %d}}",
          what, pid, tid, index);
  ev_end(t);
}

static void lane(CliTrace *t, int pid, int tid, const char *name) {
  meta_name(t, "thread_name", pid, tid, name);
  meta_sort(t, "thread_sort_index", pid, tid, tid);
}

static void trace_free(CliTrace *t) {
  if (t->ev) fclose(t->ev);
  free(t);
}

int cli_trace_open(const char *path, const WeftSpec *spec, const char *const *job_names,
                   const WeftSimSettings *s, double max_bytes, CliTrace **out) {
  *out = NULL;
  CliTrace *t = calloc(1, sizeof *t);
  if (t) t->ev = fmemopen(t->evbuf, sizeof t->evbuf, "w");
  if (!t || !t->ev) {
    if (t) trace_free(t);
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  int rc = cli_out_open(path, &t->out);  /* before simulating: found at once, still status 1 */
  if (rc) {
    trace_free(t);
    return rc;
  }
  FILE *f = weft_out_stream(t->out);
  t->f = f;
  t->path = path;
  t->spec = spec;
  t->chunks = s->chunks;
  t->max_bytes = max_bytes;
  fputs(HEAD, f);
  t->bytes = (double)strlen(HEAD);
  for (int j = 0; j < spec->njobs; j++) {
    char name[WEFT_NAME_LEN + 16];
    snprintf(name, sizeof name, "job %s", job_names[j] ? job_names[j] : "");
    meta_name(t, "process_name", j, 0, name);
    meta_sort(t, "process_sort_index", j, 0, j);
    lane(t, j, LANE_COMPUTE, "compute");
    lane(t, j, LANE_BLOCKING, "collectives (blocking)");
    if (spec->loop == WEFT_LOOP_TP_DP_OVERLAP) lane(t, j, LANE_WG, "weight-grad stream");
    if (spec->loop == WEFT_LOOP_FWD_IG_OVERLAP) lane(t, j, LANE_WG, "fwd/input-grad stream");
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

/* ts and dur in microseconds, as the format requires; ns resolution kept.
 * Every name from the inputs (layer, job) goes through cli_json_str. */
void cli_trace_span(void *ctx, const WeftSimSpan *sp) {
  CliTrace *t = ctx;
  t->spans++;
  if (t->full) return;  /* past the cap: counted, not formatted */
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
  FILE *f = ev_begin(t);
  fputs("{\"name\": ", f);
  cli_json_str(f, name);
  fprintf(f, ", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": %d, "
             "\"tid\": %d, \"args\": {\"layer\": ",
          cat[sp->kind <= WEFT_SPAN_STAGE ? sp->kind : WEFT_SPAN_STAGE], sp->start_ns / 1e3,
          (sp->end_ns - sp->start_ns) / 1e3, sp->job, tid);
  cli_json_str(f, lname);
  fprintf(f, ", \"layer_index\": %d, \"phase\": \"%s\"", sp->layer, phase);
  if (sp->kind != WEFT_SPAN_COMPUTE) {
    fprintf(f, ", \"collective\": \"%s\", \"size_bytes\": ", coll);
    cli_json_num(f, size);
  }
  if (sp->kind == WEFT_SPAN_STAGE) {
    fprintf(f, ", \"dim\": %d, \"chunk\": %d, \"chunk_bytes\": ", sp->dim + 1, sp->chunk);
    cli_json_num(f, size / t->chunks);
  }
  fputs("}}", f);
  t->written += (unsigned long long)ev_end(t);
}

int cli_trace_close(CliTrace *t, int ok) {
  if (!t) return 0;
  fputs("\n],\n\"displayTimeUnit\": \"ns\"", t->f);  /* (discarded when !ok) */
  if (t->full) {  /* a note in the trace's metadata, and on stderr */
    unsigned long long kept = t->written;
    fprintf(t->f, ",\n\"otherData\": {\"weft_truncated\": \"the trace reached its cap of %g MiB "
                  "(--trace-max-mib): %llu of %llu spans written, the later ones dropped; the "
                  "simulation itself ran to the end\"}",
            t->max_bytes / 1048576.0, kept, t->spans);
    if (ok)
      fprintf(stderr, "weft: warning: %s: trace stopped at its cap of %g MiB (--trace-max-mib): "
                      "%llu of %llu spans written\n",
              t->path, t->max_bytes / 1048576.0, kept, t->spans);
  }
  fputs("}\n", t->f);
  int rc = 0;
  if (ok) rc = cli_out_commit(t->out);
  else cli_out_discard(t->out);
  trace_free(t);
  return rc;
}
