/* workload.c — `weft workload`: derive a model's per-NPU workload and its
 * communicator from the zoo and write them as ASTRA-sim 1.0 text and a LIBRA
 * communicator yml, with weft's @group and *calls extensions where needed
 * (--export-astra1 writes what ASTRA-sim itself reads). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inputs.h"
#include "model_opts.h"

enum { W_NETWORK, W_CLUSTER, W_NPUS, W_ACTIVE, W_OUT, W_FULL, W_CHAKRA, W_LOOP, W_CHUNKS, W_JSON, W_HELP,
       W_COUNT };

static const CliOpt wopts[W_COUNT] = {
    [W_NETWORK] = {"--network", "FILE", "LIBRA network yml the groups are laid on"},
    [W_CLUSTER] = {"--cluster", "NAME",
                   "the network of a cluster preset instead of --network\n"
                   "                        (weft zoo lists them; needs --npus)"},
    [W_NPUS] = {"--npus", "N", "GPUs of the --cluster network"},
    [W_ACTIVE] = {"--active", "A1,...,AD",
                  "NPUs of each dim that work (0: all); the rest are spares,\n"
                  "                        idle: the groups are laid on the working NPUs"},
    [W_OUT] = {"-o", "PREFIX", "write PREFIX.txt and PREFIX.comm.yml (required)"},
    [W_FULL] = {"--compact", NULL, "merge identical layers (same analytic time, fewer lines)"},
    [W_CHAKRA] = {"--chakra", "DIR",
                  "also write Chakra execution traces for ASTRA-sim 2.0/3.0: DIR/P.RANK.et\n"
                  "                        per rank and DIR/P.comm_groups.json (P: PREFIX's last\n"
                  "                        part); with a network that carries a design (a\n"
                  "                        --cluster, or --export-astra's yml) network.yml,\n"
                  "                        system.json and memory.json for it"},
    [W_LOOP] = {"--loop", "no-overlap|tp-dp-overlap|fwd-ig-overlap",
                "the training loop the traces' dependencies follow\n"
                "                        (default no-overlap, as simulate)"},
    [W_CHUNKS] = {"--chunks", "C",
                  "chunks per collective in --chakra's system.json (default 64, as simulate)"},
    [W_JSON] = {"--json", NULL, "print the summary as JSON"},
    [W_HELP] = {"--help", NULL, "this help"},
};

static void help(FILE *out, CliOptSet *sets) {
  fputs("usage: weft workload --model NAME (--network N.yml | --cluster NAME --npus N)\n"
        "                     -o PREFIX [options]\n\n"
        "Derive the per-NPU, per-iteration workload of a zoo model under a\n"
        "parallelization (docs/zoo.md has every formula) and write it as ASTRA-sim 1.0\n"
        "workload text (PREFIX.txt) with its LIBRA communicator (PREFIX.comm.yml).\n"
        "Pipeline, ZeRO-3 and expert groups use weft's '@group' extension, entries\n"
        "standing for several collectives (one per micro-batch) its '*calls' one, so\n"
        "the file solves like the model (docs/scenario.md); for ASTRA-sim itself use\n"
        "'weft optimize --export-astra1 DIR'. Exit 0\n"
        "written, 1 a file could not be written (both files or neither), 2 bad input\n"
        "or a configuration that does not fit.\n\noptions:\n",
        out);
  cli_opts_help(out, sets, 2);
}

static void gb(FILE *out, const char *k, double bytes, int json, int last) {
  if (json) fprintf(out, "\"%s\": %.0f%s", k, bytes, last ? "" : ", ");
  else fprintf(out, "  %-22s %10.2f GiB\n", k, bytes / 1073741824.0);
}

static void summary(FILE *out, const CliModel *cm, const WeftWorkload *wl, const WeftGenInfo *gi,
                    const char *txt, const char *comm, int json) {
  const WeftParallel *p = &cm->par;
  if (json) {
    fputs("{\"model\": ", out);
    cli_json_str(out, cm->model.name);
    fputs(", \"device\": ", out);
    cli_json_str(out, cm->device.name);
    fprintf(out,
            ", \"tp\": %d, \"cp\": %d, \"pp\": %d, \"dp\": %d, "
            "\"ep\": %d, \"micro_batch\": %d, \"microbatches\": %d, \"layers\": %d, "
            "\"schedule\": \"%s\", \"bubble_fraction\": %.6g, \"tokens\": %.0f, "
            "\"model_flops\": %.10g, \"hw_flops\": %.10g, \"memory_bytes\": {",
            p->tp, p->cp, p->pp, p->dp, p->ep, p->micro_batch, gi->microbatches, wl->nlayers,
            weft_schedule_name(p->schedule), gi->bubble_fraction, gi->tokens, gi->model_flops, gi->hw_flops);
    gb(out, "params", gi->mem.params_bytes, 1, 0);
    gb(out, "grads", gi->mem.grads_bytes, 1, 0);
    gb(out, "optimizer", gi->mem.optimizer_bytes, 1, 0);
    gb(out, "activations", gi->mem.activations_bytes, 1, 0);
    gb(out, "total", gi->mem.total_bytes, 1, 0);
    gb(out, "capacity", gi->mem.capacity_bytes, 1, 1);
    fputs("}, \"workload\": ", out);
    cli_json_str(out, txt);
    fputs(", \"communicator\": ", out);
    cli_json_str(out, comm);
    fputs("}\n", out);
    return;
  }
  fprintf(out, "%s on %s: TP-%d", cm->model.title[0] ? cm->model.title : cm->model.name,
          cm->device.name, p->tp);
  if (p->cp > 1) fprintf(out, " CP-%d", p->cp);
  fprintf(out, " PP-%d DP-%d", p->pp, p->dp);
  if (p->ep > 1) fprintf(out, " EP-%d", p->ep);
  if (p->expert_tp > 0 && p->expert_tp != p->tp) fprintf(out, " ETP-%d", p->expert_tp);
  if (p->attention == WEFT_ATTENTION_FLASH) fputs(", flash attention", out);
  if (p->attention == WEFT_ATTENTION_FA2) fputs(", flash attention (FA2)", out);
  if (p->attention == WEFT_ATTENTION_FLEX) fputs(", FlexAttention", out);
  if (p->schedule == WEFT_SCHEDULE_DUALPIPE) fputs(", DualPipe", out);
  fprintf(out, ", micro-batch %d x %d, bubble %.1f%%\n", p->micro_batch, gi->microbatches,
          100.0 * gi->bubble_fraction);
  fprintf(out, "  %-22s %10.4g PFLOP per iteration (%.4g with recomputation)\n", "model FLOPs",
          gi->model_flops / 1e15, gi->hw_flops / 1e15);
  fputs("memory per NPU:\n", out);
  gb(out, "params", gi->mem.params_bytes, 0, 0);
  gb(out, "grads", gi->mem.grads_bytes, 0, 0);
  gb(out, "optimizer states", gi->mem.optimizer_bytes, 0, 0);
  gb(out, "activations", gi->mem.activations_bytes, 0, 0);
  gb(out, "total", gi->mem.total_bytes, 0, 0);
  gb(out, "HBM", gi->mem.capacity_bytes, 0, 0);
  fprintf(out, "wrote %s (%d layers) and %s\n", txt, wl->nlayers, comm);
}

/* --chakra DIR: the traces, and the design's ASTRA-sim 2.0 files when the
 * network carries one (every dim's design_gbps). */
static int write_chakra(const char *dir, const char *out_prefix, const WeftNetwork *net,
                        const WeftWorkload *wl, const WeftCommunicator *comm, int loop,
                        int chunks) {
  const char *slash = strrchr(out_prefix, '/');
  const char *prefix = slash ? slash + 1 : out_prefix;
  int design = 1;
  for (int d = 0; d < net->ndims; d++) design &= net->design_gbps[d] > 0.0;
  WeftSimSettings s;
  WeftError err;
  weft_sim_settings_default(&s);
  if (chunks > 0) s.chunks = chunks;
  int rc = weft_chakra_export(dir, prefix, net, wl, comm, loop, design ? net->design_gbps : NULL,
                              &s, &err);
  if (rc) cli_error(&err);
  return rc == WEFT_EIO || rc == WEFT_ENOMEM ? EXIT_RUNTIME : rc ? EXIT_USAGE : EXIT_OK;
}

int cmd_workload(int argc, char **argv) {
  const char *mval[CLI_MO_COUNT], *wval[W_COUNT], *pos[1];
  int npos;
  CliOptSet sets[2] = {{cli_model_opts, CLI_MO_COUNT, mval, -1, NULL, 0, NULL},
                       {wopts, W_COUNT, wval, -1, NULL, 0, NULL}};
  if (cli_opts_parse(argc, argv, sets, 2, pos, 0, &npos)) return EXIT_USAGE;
  if (wval[W_HELP]) {
    help(stdout, sets);
    return EXIT_OK;
  }
  if (!mval[CLI_MO_MODEL] || !(wval[W_NETWORK] || wval[W_CLUSTER]) || !wval[W_OUT] ||
      !*wval[W_OUT]) {
    cli_fail("workload needs --model, --network (or --cluster and --npus) and -o PREFIX (try "
             "'weft workload --help')");
    return EXIT_USAGE;
  }
  const char *o = wval[W_OUT];
  if (o[strlen(o) - 1] == '/') { /* 'dir/' would write the hidden dir/.txt and dir/.comm.yml */
    cli_fail("-o PREFIX must end in a name, got '%s' (e.g. %sgpt3)", o, o);
    return EXIT_USAGE;
  }
  if (cli_network_check(wval[W_NETWORK], wval[W_CLUSTER], wval[W_NPUS])) return EXIT_USAGE;
  double act[WEFT_MAX_DIMS];
  if (wval[W_ACTIVE] && cli_numbers("--active", wval[W_ACTIVE], act) < 0) return EXIT_USAGE;
  int loop = WEFT_LOOP_NO_OVERLAP;
  if (wval[W_LOOP] && cli_opt_loop(wopts[W_LOOP].name, wval[W_LOOP], &loop)) return EXIT_USAGE;
  int chunks = 0;
  if (wval[W_CHUNKS] && cli_opt_int(wopts[W_CHUNKS].name, wval[W_CHUNKS], 1, 1000000, &chunks)) /* as simulate --chunks */
    return EXIT_USAGE;
  CliModel *cm = calloc(1, sizeof *cm);
  WeftNetwork net;
  WeftCommunicator comm;
  WeftGenInfo gi;
  WeftError err;
  WeftWorkload *wl = weft_workload_create();
  int code = EXIT_USAGE;
  if (!cm || !wl) {
    cli_fail("out of memory");
    code = EXIT_RUNTIME;
    goto done;
  }
  if (cli_model_opts_apply(mval, cm)) goto done;
  if (cli_network_load(wval[W_NETWORK], wval[W_CLUSTER], wval[W_NPUS], cm->zoo_dir, &net, &err) ||
      cli_active_apply(wval[W_ACTIVE], &net, &err) || cli_model_load(cm, &net, &err) ||
      weft_generate(&cm->model, &cm->device, &cm->par, &net, wval[W_FULL] != NULL, wl, &comm,
                    &gi, &err)) {
    cli_error(&err);
    goto done;
  }
  size_t n = strlen(wval[W_OUT]) + 16;
  char *txt = malloc(n), *cyml = malloc(n);
  if (!txt || !cyml) {
    free(txt);
    free(cyml);
    cli_fail("out of memory");
    code = EXIT_RUNTIME;
    goto done;
  }
  snprintf(txt, n, "%s.txt", wval[W_OUT]);
  snprintf(cyml, n, "%s.comm.yml", wval[W_OUT]);
  /* Both files or neither: each written to a temporary, then renamed
   * together; a failure leaves the old files as they were. The traces
   * (--chakra, every file or none) come before the rename: a set of traces
   * that cannot be written leaves the text files as they were too. */
  WeftOut *out[2] = {NULL, NULL};
  if ((code = cli_out_open(txt, &out[0])) || (code = cli_out_open(cyml, &out[1]))) {
    cli_out_discard(out[0]);
  } else if (weft_workload_emit(out[0], wl, &err) || weft_communicator_emit(out[1], &comm, &err)) {
    cli_error(&err);
    cli_out_discard(out[0]);
    cli_out_discard(out[1]);
    code = EXIT_RUNTIME;
  } else if (wval[W_CHAKRA] &&
             (code = write_chakra(wval[W_CHAKRA], wval[W_OUT], &net, wl, &comm, loop, chunks))) {
    cli_out_discard(out[0]);
    cli_out_discard(out[1]);
  } else {
    code = cli_out_commit_all(out, 2);
  }
  if (!code) summary(stdout, cm, wl, &gi, txt, cyml, wval[W_JSON] != NULL);
  free(txt);
  free(cyml);
done:
  weft_workload_free(wl);
  free(cm);
  return code;
}
