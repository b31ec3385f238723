/* codesign.c — `weft codesign`: for a model and an NPU count, every
 * parallelization on every network shape, solved exactly; best and Pareto. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "codesign.h"
#include "inputs.h"
#include "model_opts.h"
#include "mpi.h"
#include "opts.h"
#include "plot.h"
#include "progress.h"

#define CS_MAX_NETWORKS 256  /* --network files, and --cluster names */
#define CS_DEFAULT_TOP 10
#define CS_TOP_MIN_CAND 64  /* ranking candidates held at least (summary.c) */

/* One row per option: drives parsing and --help alike (cli_opts_parse). The
 * table is split in three parsing sets at --network and --cluster, so that
 * --network, --cluster and --constraint can each be repeated. */
enum { O_MODEL, O_WORKLOAD, O_NPUS, O_DEVICE, O_ZOO, O_NETWORK, O_CLUSTER, O_BLOCKS, O_DIMS, O_MAXDIM, O_COSTDIMS,
       O_PARTS_PER_DIM, O_PARTS, O_FABRIC, O_PLANES, O_COST, O_CONSTRAINT, O_OBJECTIVE, O_LOOP, O_TP, O_PP, O_MB, O_ORDER, O_ALLORDERS,
       O_SP, O_ZERO, O_RECOMPUTE, O_ZERO_LIST, O_SP_LIST, O_RC_LIST, O_VP_LIST, O_CP_LIST,
       O_EP_LIST, O_ATTN, O_FP8, O_GRAPHS, O_OGR, O_OPG, O_BUCKET, O_TPO, O_P2P, O_CPCOMM, O_ADROP, O_HDROP,
       O_MOEPF, O_MOERF, O_MOEA2A, O_MOEDFP8, O_AMAX, O_CE, O_ACTF, O_FP8PG, O_MOEDISP,
       O_MOEROUTE, O_GA, O_LAYERS, O_FSDP, O_NORMF, O_ROPEF, O_RESHARD, O_GRADB, O_MASTER, O_OPTSTATES,
       O_LORA, O_LORAT, O_PACK, O_EP, O_ETP, O_EFF, O_GAPTOL, O_THREADS, O_TOP, O_CSV, O_JSON, O_PLOT, O_PER_NETWORK, O_PROGRESS,
       O_HELP, O_COUNT };

static const CliOpt opts[O_COUNT] = {
    [O_MODEL] = {"--model", "NAME", "model from the zoo (weft zoo lists them) or a model .yml;\n"
                 "                        several, comma-separated, searched in one run"},
    [O_WORKLOAD] = {"--workload", "TRACE",
                    "instead of --model: a Chakra trace set (a directory or\n"
                    "                        PREFIX of P.RANK.et), its parallelization fixed:\n"
                    "                        only the network and bandwidth are searched"},
    [O_NPUS] = {"--npus", "N", "total NPU count (required; with --workload default\n"
                "                        the trace's ranks)"},
    [O_DEVICE] = {"--device", "NAME", "accelerator preset (default: the GPU of the network\n"
                  "                        files' cluster or of --cluster, else a100)"},
    [O_ZOO] = {"--zoo", "DIR", "model zoo directory (default: $WEFT_ZOO or data/zoo)"},
    [O_NETWORK] = {"--network", "FILE", "a LIBRA network yml to consider (repeatable)"},
    [O_CLUSTER] = {"--cluster", "NAME",
                   "a cluster preset's network of --npus GPUs to consider\n"
                   "                        (repeatable; weft zoo lists them); or:"},
    [O_BLOCKS] = {"--blocks", "LIST", "building block per dim, innermost first, e.g.\n"
                  "                        Ring,FullyConnected,Ring,Switch: every shape is tried"},
    [O_DIMS] = {"--dims", "D", "number of dims (default: the number of --blocks)"},
    [O_MAXDIM] = {"--max-per-dim", "LIST", "largest NPU count per dim: N, 0 (no limit) or - (the\n"
                  "                        default: the sizes real systems have, by the cost\n"
                  "                        class's tier or the topology; docs/search.md)"},
    [O_COSTDIMS] = {"--cost-dims", "LIST", "cost class per dim (default: the cost model's\n"
                    "                        classes in file order, when there are D of them)"},
    [O_PARTS_PER_DIM] = {"--parts-per-dim", "LIST",
                         "catalog part per dim for every network or shape, a\n"
                         "                        choice as 'ndr|xdr' ('-': the dim as it is;\n"
                         "                        docs/parts.md \"Co-design with parts\")"},
    [O_PARTS] = {"--parts", "FILE", "a parts catalog over the built-in data/parts"},
    [O_FABRIC] = {"--fabric", "LIST",
                  "fabric shape per dim for every network or shape:\n"
                  "                        fat-tree, rail-optimized, rail-only, torus ('-':\n"
                  "                        as it is; a shape it does not fit is dropped)"},
    [O_PLANES] = {"--planes", "LIST",
                  "planes per Switch dim for every network or shape (0: as\n"
                  "                        it is; docs/model.md \"Fabric shapes\")"},
    [O_COST] = {"--cost-model", "FILE", "LIBRA cost-model yml ($ per GB/s of Link, Switch, Nic);\n"
                "                        not needed when parts price every dim"},
    [O_CONSTRAINT] = {"--constraint", "EXPR", "linear constraint over B1..BD, sum, cost (repeatable)"},
    [O_OBJECTIVE] = {"--objective", "perf|perf-per-cost|cost-per-iteration",
                     "minimise time, time x cost, or $ per iteration (default perf)"},
    [O_LOOP] = {"--loop", "no-overlap|tp-dp-overlap|fwd-ig-overlap",
                "training loop (default no-overlap)"},
    [O_TP] = {"--tp", "LIST", "tensor-parallel degrees (default: every divisor of N)"},
    [O_PP] = {"--pp", "LIST", "pipeline degrees (default: every divisor of N); with a\n"
              "                        list given, a pair whose tp x pp does not divide N is\n"
              "                        a point counted invalid"},
    [O_MB] = {"--mb", "LIST", "micro-batch sizes (default 1,2,4,8)"},
    [O_ORDER] = {"--order", "TP,PP,DP", "groups laid on dims innermost first (default TP,PP,DP)"},
    [O_ALLORDERS] = {"--all-orders", NULL, "try all 6 orders of TP, PP, DP"},
    [O_SP] = {"--sp", NULL, "sequence parallelism (reduce-scatter + all-gather for TP)"},
    [O_ZERO] = {"--zero", "0..3", "ZeRO stage (default 0)"},
    [O_RECOMPUTE] = {"--recompute", "[none|selective|full]",
                     "activation recomputation (alone: full; default none)"},
    [O_ZERO_LIST] = {"--zero-list", "LIST", "ZeRO stages to search, e.g. 0,1,3 (instead of --zero)"},
    [O_SP_LIST] = {"--sp-list", "LIST", "sequence parallelism to search: 0,1 (instead of --sp)"},
    [O_RC_LIST] = {"--recompute-list", "LIST", "recomputation to search, e.g. none,selective,full"},
    [O_VP_LIST] = {"--interleave", "LIST", "model chunks per stage to search, e.g. 1,2 (default 1)"},
    [O_CP_LIST] = {"--cp-list", "LIST", "context-parallel degrees to search, e.g. 1,2,4 (default 1)"},
    [O_EP_LIST] = {"--ep-list", "LIST", "expert-parallel degrees to search, e.g. 8,16,64\n"
                   "                        (instead of --ep)"},
    [O_ATTN] = {"--attention", "standard|flash|fa2|flex", CLI_ATTN_HELP},
    [O_FP8] = {"--fp8", CLI_FP8_ARG, CLI_FP8_HELP},
    [O_GRAPHS] = {"--cuda-graphs", NULL, CLI_GRAPHS_HELP},
    [O_OGR] = {"--overlap-grad-reduce", "on|off", CLI_OGR_HELP},
    [O_OPG] = {"--overlap-param-gather", "on|off", CLI_OPG_HELP},
    [O_BUCKET] = {"--ddp-bucket-size", "N", CLI_BUCKET_HELP},
    [O_TPO] = {"--tp-comm-overlap", "on|off", CLI_TPO_HELP},
    [O_P2P] = {"--overlap-p2p-communication", "on|off", CLI_P2P_HELP},
    [O_CPCOMM] = {"--cp-comm", "p2p|all_gather|torch_allgather|torch_alltoall", CLI_CPCOMM_HELP},
    [O_ADROP] = {"--attention-dropout", "P", CLI_ADROP_HELP},
    [O_HDROP] = {"--hidden-dropout", "P", CLI_HDROP_HELP},
    [O_MOEPF] = {"--moe-permute-fusion", "on|off", CLI_MOEPF_HELP},
    [O_MOERF] = {"--moe-router-fusion", "on|off", CLI_MOERF_HELP},
    [O_MOEA2A] = {"--moe-a2a-overlap", "on|off", CLI_MOEA2A_HELP},
    [O_MOEDFP8] = {"--moe-dispatch-fp8", "on|off", CLI_MOEDFP8_HELP},
    [O_AMAX] = {"--fp8-amax-reduce", "stage|tp|off", CLI_AMAX_HELP},
    [O_CE] = {"--cross-entropy", "fused|megatron|te|torch|torch_nocast", CLI_CE_HELP},
    [O_ACTF] = {"--activation-fusion", "on|off", CLI_ACTF_HELP},
    [O_FP8PG] = {"--fp8-param-gather", "on|off", CLI_FP8PG_HELP},
    [O_MOEDISP] = {"--moe-dispatcher", "alltoall|deepep|hybridep", CLI_MOEDISP_HELP},
    [O_MOEROUTE] = {"--moe-routing", "random|blocked", CLI_MOEROUTE_HELP},
    [O_LAYERS] = {"--layer-impl", "megatron|torch", CLI_LAYERS_HELP},
    [O_GA] = {"--ga-steps", "N", CLI_GA_HELP},
    [O_LORA] = {"--lora-rank", "N", CLI_LORA_HELP},
    [O_LORAT] = {"--lora-targets", "LIST", CLI_LORAT_HELP},
    [O_PACK] = {"--packed-sample-len", "N", CLI_PACK_HELP},
    [O_FSDP] = {"--fsdp", "flat|fsdp2", CLI_FSDP_HELP},
    [O_NORMF] = {"--norm-fusion", "on|off", CLI_NORMF_HELP},
    [O_ROPEF] = {"--rope-fusion", "on|off", CLI_ROPEF_HELP},
    [O_RESHARD] = {"--reshard-after-forward", "on|off", CLI_RESHARD_HELP},
    [O_GRADB] = {"--grad-bytes", "2|4", "bytes per gradient element: 2 (bf16, default) or 4 (fp32)"},
    [O_MASTER] = {"--master-weights", "fp32|bf16|none|remainder",
                  "optimizer's master weights (default fp32; none: the\n"
                  "                        bf16 parameters updated in place; remainder: the\n"
                  "                        bf16 parameters and their fp32 low bits, apex's\n"
                  "                        store_param_remainders)"},
    [O_OPTSTATES] = {"--optimizer-states", "fp32|bf16", "Adam's two moments (default fp32)"},
    [O_EP] = {"--ep", "N", "expert-parallel degree for MoE models (default: every\n"
              "                        divisor of the experts, searched; dense models 1)"},
    [O_ETP] = {"--etp", "N", CLI_ETP_HELP},
    [O_EFF] = {"--efficiency", "X", "flat fraction of peak FLOP/s, 1e-6 <= X <= 1 (default: per-operator model)"},
    [O_GAPTOL] = {"--gap-tol", "X", "target relative optimality gap per solve (default 1e-9)"},
    [O_THREADS] = {"--threads", "N", "worker threads (default: every core); results do not depend on it"},
    [O_TOP] = {"--top", "K", "designs listed (default 10)"},
    [O_CSV] = {"--csv", "FILE", "every point, one row each, in enumeration order"},
    [O_JSON] = {"--json", NULL, "print one JSON object instead of the table"},
    [O_PLOT] = {"--plot", "FILE",
                "Pareto front and the best design: .png, .svg or .pdf (gnuplot);\n"
                "                        with --per-network, the best time per network file"},
    [O_PER_NETWORK] = {"--per-network", NULL,
                       "the best design of each model on each network file (its\n"
                       "                        variants with spares together): a domain sweep"},
    [O_PROGRESS] = {"--progress", "S", "seconds between progress lines when stderr is not a\n"
                    "                        terminal (default 5; 0: no progress at all)"},
    [O_HELP] = {"--help", NULL, "this help"},
};

typedef struct {
  const char *val[O_COUNT];
  const char *cons[WEFT_MAX_CONSTRAINTS];
  int ncons;
  const char *nets[CS_MAX_NETWORKS];
  int nnets;
  const char *clusters[CS_MAX_NETWORKS];
  int nclusters;
  const char *sysval[CLI_SYSTEM_OPTS]; /* --npu-usd .. --lifetime-years (inputs.h) */
} Args;

/* Options up to --network (repeatable), --cluster (repeatable), the rest
 * (--constraint repeatable), then the system cost's (optimize's rows). */
static void option_sets(Args *a, CliOptSet sets[4]) {
  sets[0] = (CliOptSet){opts, O_NETWORK + 1, a->val, O_NETWORK, a->nets, CS_MAX_NETWORKS,
                        &a->nnets};
  sets[1] = (CliOptSet){opts + O_CLUSTER, 1, a->val + O_CLUSTER, 0, a->clusters, CS_MAX_NETWORKS,
                        &a->nclusters};
  sets[2] = (CliOptSet){opts + O_BLOCKS, O_COUNT - O_BLOCKS, a->val + O_BLOCKS,
                        O_CONSTRAINT - O_BLOCKS, a->cons, WEFT_MAX_CONSTRAINTS, &a->ncons};
  sets[3] = (CliOptSet){cli_input_opts + CLI_IN_NPU_USD, CLI_SYSTEM_OPTS, a->sysval, -1, NULL, 0,
                        NULL};
}

static void help(FILE *out) {
  fputs("usage: weft codesign (--model NAME --npus N | --workload TRACE) [--cost-model C.yml]\n"
        "                     (--network F.yml ... | --cluster NAME ... | --blocks LIST\n"
        "                     [--dims D]) [options]\n\n"
        "Co-design: every parallelization (tp x pp x dp, micro-batch, order) on every\n"
        "network shape, each bandwidth problem solved exactly under the constraints;\n"
        "the best designs and the Pareto front of (network cost, iteration time).\n"
        "Points that do not fit (memory, divisibility, constraints) are counted with a\n"
        "reason. Exit 0 when some design is feasible, 1 when none (nothing written),\n"
        "2 bad input.\n\n"
        "options:\n",
        out);
  Args a;
  CliOptSet sets[4];
  option_sets(&a, sets);
  cli_opts_help(out, sets, 4);
}


static int parse_args(int argc, char **argv, Args *a) {
  CliOptSet sets[4];
  int npos;
  memset(a, 0, sizeof *a);
  option_sets(a, sets);
  return cli_opts_parse(argc, argv, sets, 4, NULL, 0, &npos);
}

/* An integer option value in lo..hi, strictly. */
static int int_opt(int k, const char *v, long lo, long hi, int *out) {
  long long x;
  if (cli_int_value(v, strlen(v), lo, hi, &x)) {
    cli_fail("%s must be an integer in %ld..%ld, got '%s'", opts[k].name, lo, hi, v);
    return -1;
  }
  *out = (int)x;
  return 0;
}

/* "1,2,4,8": distinct integers in lo..hi, at most max of them. */
static int int_list(int k, const char *v, long lo, long hi, int max, int *out, int *n) {
  *n = 0;
  const char *s = v;
  for (;;) {
    const char *end = s + strcspn(s, ",");
    long long x;
    if (cli_int_value(s, (size_t)(end - s), lo, hi, &x)) {
      cli_fail("%s '%s': expected a comma-separated list of integers in %ld..%ld", opts[k].name,
               v, lo, hi);
      return -1;
    }
    for (int j = 0; j < *n; j++)
      if (out[j] == x) {
        cli_fail("%s '%s': %lld is listed twice", opts[k].name, v, x);
        return -1;
      }
    if (*n == max) {
      cli_fail("%s '%s': at most %d values", opts[k].name, v, max);
      return -1;
    }
    out[(*n)++] = (int)x;
    if (!*end) return 0;
    s = end + 1;
  }
}

/* Everything codesign owns; freed in one place. */
typedef struct {
  WeftNetwork *nets;
  WeftDimParts (*parts)[WEFT_MAX_DIMS]; /* per network, when some names parts */
  WeftCodesignSummary *sum;
  CsCsv csv;
  FILE *plot_points;  /* (cost_usd, time_ns) of every OK point, for --plot */
  CsReport rep;
  CsPerNet pn;        /* --per-network */
  WeftModel *models;  /* --model's, one or several */
  WeftWorkload **traces; /* --workload's, one per network */
  WeftCommunicator *comms;
  int ntraces;
} State;

static int finish(State *st, int code) {
  cs_csv_discard(&st->csv);  /* renamed already when the run succeeded */
  if (st->plot_points) fclose(st->plot_points);
  weft_codesign_summary_free(st->sum);
  cs_per_network_free(&st->pn);
  free(st->models);
  weft_codesign_trace_free(st->traces, st->comms, st->ntraces);
  free(st->nets);
  free(st->parts);
  cli_mpi_finalize();
  return code;
}

/* --recompute: absent none, alone full, else the mode named. */
static int recompute_opt(const char *flag, const char *v, int *out) {
  WeftError err;
  *out = WEFT_RECOMPUTE_NONE;
  if (!v) return 0;
  if (!*v) {
    *out = WEFT_RECOMPUTE_FULL;
    return 0;
  }
  if (weft_recompute_parse(v, out, &err)) {
    cli_fail("%s '%s': expected none, selective or full", flag, v);
    return -1;
  }
  return 0;
}

/* The knob lists of the search (--zero-list, --sp-list, --recompute-list,
 * --interleave, --cp-list, --ep-list), each refused next to its single-value option. */
static int knob_lists(const Args *a, WeftCodesignSpec *spec) {
  static const struct {
    int list, one;
  } pair[] = {{O_ZERO_LIST, O_ZERO}, {O_SP_LIST, O_SP}, {O_RC_LIST, O_RECOMPUTE},
               {O_EP_LIST, O_EP}};
  for (size_t i = 0; i < sizeof pair / sizeof pair[0]; i++)
    if (a->val[pair[i].list] && a->val[pair[i].one]) {
      cli_fail("%s and %s: give one", opts[pair[i].list].name, opts[pair[i].one].name);
      return -1;
    }
  if ((a->val[O_ZERO_LIST] &&
       int_list(O_ZERO_LIST, a->val[O_ZERO_LIST], 0, 3, 4, spec->zero, &spec->nzero)) ||
      (a->val[O_SP_LIST] && int_list(O_SP_LIST, a->val[O_SP_LIST], 0, 1, 2, spec->sp, &spec->nsp)) ||
      (a->val[O_VP_LIST] &&
       int_list(O_VP_LIST, a->val[O_VP_LIST], 1, 1 << 16, WEFT_MAX_CHOICES, spec->vp, &spec->nvp)) ||
      (a->val[O_CP_LIST] &&
       int_list(O_CP_LIST, a->val[O_CP_LIST], 1, 1 << 24, WEFT_MAX_CHOICES, spec->cp,
                &spec->ncp)) ||
      (a->val[O_EP_LIST] &&
       int_list(O_EP_LIST, a->val[O_EP_LIST], 1, 1 << 24, WEFT_MAX_CHOICES, spec->ep,
                &spec->nep)))
    return -1;
  const char *v = a->val[O_RC_LIST];
  for (const char *s = v; s;) {
    char word[16];
    size_t len = strcspn(s, ",");
    snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1), s);
    int mode = 0, dup = 0;
    if (len >= sizeof word || recompute_opt(opts[O_RC_LIST].name, word, &mode) || !*word) {
      if (!*word) cli_fail("%s '%s': expected a list of none, selective, full", opts[O_RC_LIST].name, v);
      return -1;
    }
    for (int j = 0; j < spec->nrc; j++) dup |= spec->rc[j] == mode;
    if (dup || spec->nrc == 3) {
      cli_fail("%s '%s': %s is listed twice", opts[O_RC_LIST].name, v, word);
      return -1;
    }
    spec->rc[spec->nrc++] = mode;
    s = s[len] ? s + len + 1 : NULL;
  }
  return 0;
}

/* The parallel knobs that are not searched, from the options. */
static int base_parallel(const Args *a, WeftParallel *p) {
  weft_parallel_default(p);
  if (a->val[O_ZERO] && int_opt(O_ZERO, a->val[O_ZERO], 0, 3, &p->zero_stage)) return -1;
  if (a->val[O_EP] && int_opt(O_EP, a->val[O_EP], 1, 1 << 24, &p->ep)) return -1;
  if (a->val[O_ETP] && int_opt(O_ETP, a->val[O_ETP], 1, 1 << 24, &p->expert_tp)) return -1;
  if (a->val[O_GA] && int_opt(O_GA, a->val[O_GA], 1, 1 << 24, &p->ga_steps)) return -1;
  if (a->val[O_PACK] && int_opt(O_PACK, a->val[O_PACK], 1, 1 << 24, &p->packed_sample_len))
    return -1;
  p->sequence_parallel = a->val[O_SP] != NULL;
  if (cli_opt_fp8(a->val[O_FP8], &p->fp8)) return -1;
  p->cuda_graphs = a->val[O_GRAPHS] != NULL;
  if (cli_opt_overlap(a->val[O_OGR], a->val[O_OPG], a->val[O_BUCKET], p)) return -1;
  if (cli_opt_comm_overlap(a->val[O_TPO], a->val[O_P2P], p)) return -1;
  if (cli_opt_cp_comm(a->val[O_CPCOMM], p)) return -1;
  if (cli_opt_dropout(a->val[O_ADROP], a->val[O_HDROP], p)) return -1;
  if (cli_opt_moe_fusion(a->val[O_MOEPF], a->val[O_MOERF], p)) return -1;
  if (cli_opt_moe_a2a(a->val[O_MOEA2A], a->val[O_MOEDFP8], p)) return -1;
  if (cli_opt_fp8_amax(a->val[O_AMAX], p)) return -1;
  if (cli_opt_cross_entropy(a->val[O_CE], p)) return -1;
  if (cli_opt_activation_fusion(a->val[O_ACTF], p)) return -1;
  if (cli_opt_fp8_param_gather(a->val[O_FP8PG], p)) return -1;
  if (cli_opt_moe_dispatcher(a->val[O_MOEDISP], p)) return -1;
  if (cli_opt_moe_routing(a->val[O_MOEROUTE], p)) return -1;
  if (cli_opt_layer_impl(a->val[O_LAYERS], p)) return -1;
  if (cli_opt_fsdp(a->val[O_FSDP], p)) return -1;
  if (cli_opt_norm_rope_fusion(a->val[O_NORMF], a->val[O_ROPEF], p)) return -1;
  if (cli_opt_reshard(a->val[O_RESHARD], p)) return -1;
  if (cli_opt_lora(a->val[O_LORA], a->val[O_LORAT], p)) return -1;
  if (recompute_opt(opts[O_RECOMPUTE].name, a->val[O_RECOMPUTE], &p->recompute)) return -1;
  if (a->val[O_ATTN]) {
    WeftError err;
    if (weft_attention_parse(a->val[O_ATTN], &p->attention, &err)) {
      cli_fail("--attention '%s': expected standard, flash, fa2 or flex", a->val[O_ATTN]);
      return -1;
    }
  }
  if (a->val[O_GRADB]) {
    if (cli_opt_grad_bytes(a->val[O_GRADB], &p->grad_bytes)) return -1;
  }
  if (a->val[O_MASTER] || a->val[O_OPTSTATES]) {
    WeftError err;
    if (weft_optimizer_precision(a->val[O_MASTER], a->val[O_OPTSTATES], &p->optimizer_bytes,
                                 &err)) {
      int m = !strcmp(err.field, "master_weights");
      cli_fail("%s '%s': expected %s", opts[m ? O_MASTER : O_OPTSTATES].name,
               a->val[m ? O_MASTER : O_OPTSTATES], m ? "fp32, bf16, none or remainder" : "fp32 or bf16");
      return -1;
    }
  }
  if (a->val[O_ORDER]) {
    WeftError err;
    if (weft_parallel_order_parse(a->val[O_ORDER], p->order, &err)) {
      cli_fail("--order '%s': %s", a->val[O_ORDER], err.msg);
      return -1;
    }
  }
  if (a->val[O_EFF] && cli_opt_efficiency(a->val[O_EFF], &p->efficiency)) return -1;
  return 0;
}

/* Where the stream's chunks go: gathered on rank 0, then the summary, the
 * CSV rows and the plot's points. */
typedef struct {
  CsReport *r;
  CsPerNet *pn;       /* NULL without --per-network */
  size_t rank;
  CsCsv *csv;
  FILE *plot_points;  /* NULL without --plot */
  int failed;         /* 1: take_chunk printed why it stopped */
} Sink;

static int take_chunk(void *ctx, size_t first, WeftDesignPoint *pts, size_t n) {
  Sink *k = ctx;
  if (cli_mpi_gather(pts, n, sizeof *pts)) {
    k->failed = 1;
    return -1;
  }
  if (k->rank > 0) return 0;
  for (size_t j = 0; j < n; j++) {
    if (k->pn) cs_per_network_add(k->pn, first + j, &pts[j]);
    if (weft_codesign_summary_add(k->r->sum, first + j, &pts[j])) {
      cli_fail("out of memory keeping the best designs and the Pareto front");
      k->failed = 1;
      return -1;
    }
    if (k->plot_points && pts[j].status == WEFT_POINT_OK) {
      double v[2] = {pts[j].cost_usd, pts[j].time_ns};
      if (fwrite(v, sizeof v[0], 2, k->plot_points) != 2) {
        cli_fail("--plot: cannot write a temporary file: %s", strerror(errno));
        k->failed = 1;
        return -1;
      }
    }
  }
  cs_csv_rows(k->csv, k->r, first, pts, n);
  return 0;
}

/* The size of the search and the memory it takes, before the work: a
 * chunk of points in flight (on rank 0 twice more under MPI: the gather's
 * buffers), the ranking's candidates (2 top, at least CS_TOP_MIN_CAND, held
 * before a pruning, never more than the points, in an array of 16 doubled
 * as it grows); the front and the threads' workload buffers add little. */
static void announce(const CsReport *r, size_t nnets, int threads, size_t nranks) {
  size_t chunk = weft_codesign_chunk_size(0, nranks);
  size_t flight = r->n < chunk ? r->n : chunk;
  double per = (double)sizeof(WeftDesignPoint);
  double bytes = (double)flight * per * (nranks > 1 ? 2.0 + 1.0 / (double)nranks : 1.0);
  double held = r->top > CS_TOP_MIN_CAND / 2 ? 2.0 * r->top : CS_TOP_MIN_CAND;
  if (held > (double)r->n) held = (double)r->n; /* --top 1e8 of 180 points: 180 */
  double cap = 16.0;                             /* the array as summary.c grows it */
  while (cap < held) cap *= 2.0;
  bytes += cap * (double)sizeof(WeftIndexedPoint);
  char th[32] = "every core", mem[32];
  if (threads > 0) snprintf(th, sizeof th, "%d thread%s", threads, threads > 1 ? "s" : "");
  fprintf(stderr,
          "weft: codesign: %zu design point%s on %zu network%s, %s%s; the search holds about %s "
          "(%zu point%s in flight at a time), flat in the number of points\n",
          r->n, r->n == 1 ? "" : "s", nnets, nnets == 1 ? "" : "s", th,
          nranks > 1 ? " per rank" : "", cli_format_bytes(mem, sizeof mem, bytes), flight,
          flight == 1 ? "" : "s");
}

/* --workload: the options a model's search takes, refused (the trace fixes
 * the model, the parallelization and the per-rank work). */
static int trace_refusals(const Args *a) {
  static const int model_only[] = {
      O_MODEL, O_TP, O_PP, O_MB, O_ORDER, O_ALLORDERS, O_SP, O_ZERO, O_RECOMPUTE, O_ZERO_LIST,
      O_SP_LIST, O_RC_LIST, O_VP_LIST, O_CP_LIST, O_EP_LIST, O_ATTN, O_FP8, O_GRAPHS, O_OGR,
      O_OPG, O_BUCKET, O_TPO, O_P2P, O_CPCOMM, O_ADROP, O_HDROP, O_MOEPF, O_MOERF, O_MOEA2A, O_MOEDFP8, O_AMAX,
      O_CE, O_ACTF, O_FP8PG, O_MOEDISP, O_MOEROUTE, O_GA, O_LAYERS, O_FSDP, O_NORMF, O_ROPEF, O_RESHARD, O_GRADB,
      O_MASTER, O_OPTSTATES, O_LORA, O_LORAT, O_PACK, O_EP, O_ETP, O_EFF};
  if (a->val[O_MODEL]) {
    cli_fail("--model and --workload: give one (a trace is the model's work already)");
    return -1;
  }
  for (size_t i = 1; i < sizeof model_only / sizeof model_only[0]; i++)
    if (a->val[model_only[i]]) {
      cli_fail("%s goes with --model, not --workload: the trace fixes the parallelization "
               "and the per-rank work (only the network and bandwidth are searched)",
               opts[model_only[i]].name);
      return -1;
    }
  return 0;
}

/* The job's name: the trace set's prefix, its last part ("w" of run/w.0.et). */
static void trace_name(const char *path, char *name, size_t size) {
  size_t len = strlen(path);
  while (len > 1 && path[len - 1] == '/') len--;
  const char *s = path;
  for (size_t i = 0; i < len; i++)
    if (path[i] == '/') s = path + i + 1;
  size_t n = (size_t)(path + len - s);
  if (n > 5 && !strncmp(s + n - 5, ".0.et", 5)) n -= 5;
  snprintf(name, size, "trace %.*s", (int)n, s);
}

/* The trace read on every network: those it cannot be laid on are left out
 * (said on stderr); none left is bad input, with the first one's reason. */
static int read_trace(const char *trace, State *st, size_t *nnets, char *desc, size_t size) {
  int n = (int)*nnets, dropped = 0;
  WeftError why, err;
  int rc = weft_codesign_trace_read(trace, st->nets, &n, &st->traces, &st->comms, &dropped,
                                    &why, &err);
  if (rc) {
    if (rc == WEFT_ENOMEM) {
      cli_error(&err);
      return EXIT_RUNTIME;
    }
    cli_error(&err);
    cli_fail("--workload %s: it fits none of the %zu network%s", trace, *nnets,
             *nnets == 1 ? "" : "s");
    return EXIT_USAGE;
  }
  if (dropped > 0 && st->parts) {
    cli_fail("--workload %s fits %d of the %zu networks, and parts are bound to each: give "
             "the networks it fits (the first left out: %s%s%s)", trace, n, *nnets, why.file,
             why.file[0] ? ": " : "", why.msg);
    st->ntraces = n;
    return EXIT_USAGE;
  }
  if (dropped > 0) { /* "3 shapes of ...; the trace fits 2" */
    size_t len = strlen(desc);
    snprintf(desc + len, size - len, "; the trace fits %d", n);
  }
  if (dropped > 0)
    fprintf(stderr, "weft: codesign: --workload %s fits %d of the %zu networks; left out %d, "
            "the first because: %s%s%s\n", trace, n, *nnets, dropped, why.file,
            why.file[0] ? ": " : "", why.msg);
  st->ntraces = n;
  *nnets = (size_t)n;
  return 0;
}

int cmd_codesign(int argc, char **argv) {
  if (cli_mpi_init(&argc, &argv)) return EXIT_RUNTIME;
  size_t rank = cli_mpi_rank(), nranks = cli_mpi_size();
  if (rank > 0) {  /* rank 0 speaks for all; the others see the same inputs and errors */
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
      return cli_mpi_abort(EXIT_RUNTIME);
  }
  Args a;
  State st;
  memset(&st, 0, sizeof st);
  if (parse_args(argc, argv, &a)) return finish(&st, EXIT_USAGE);
  if (a.val[O_HELP]) {
    help(stdout);
    return finish(&st, EXIT_OK);
  }
  const char *trace = a.val[O_WORKLOAD];
  if (trace && trace_refusals(&a)) return finish(&st, EXIT_USAGE);
  char missing[128] = "";
  static const int need[] = {O_MODEL, O_NPUS, O_COST};
  /* --cost-model may be left out when parts price the network, as optimize's
   * rule: --parts-per-dim, or a network file's Parts (checked once read) */
  int priced = a.val[O_PARTS_PER_DIM] || a.nnets > 0;
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!a.val[need[i]] && !(trace && need[i] != O_COST) && !(need[i] == O_COST && priced)) {
      strcat(missing, missing[0] ? ", " : "");
      strcat(missing, opts[need[i]].name);
    }
  if (missing[0]) {
    cli_fail("missing %s (see 'weft codesign --help')", missing);
    return finish(&st, EXIT_USAGE);
  }
  int listed = a.nnets + a.nclusters; /* networks named: files, then clusters */
  if ((listed > 0) == (a.val[O_BLOCKS] != NULL)) {
    cli_fail("give --network files (or --cluster names) or --blocks, one of the two");
    return finish(&st, EXIT_USAGE);
  }
  if (listed > CS_MAX_NETWORKS) {
    cli_fail("at most %d networks: %d --network and %d --cluster given", CS_MAX_NETWORKS,
             a.nnets, a.nclusters);
    return finish(&st, EXIT_USAGE);
  }
  if (listed > 0 && (a.val[O_DIMS] || a.val[O_MAXDIM] || a.val[O_COSTDIMS])) {
    cli_fail("--dims, --max-per-dim and --cost-dims go with --blocks, not --network or "
             "--cluster");
    return finish(&st, EXIT_USAGE);
  }
  WeftCodesignSpec spec;
  memset(&spec, 0, sizeof spec);
  int npus = 0, threads = 0, top = CS_DEFAULT_TOP;
  if (trace && !a.val[O_NPUS]) {  /* the trace's ranks */
    long long nr = weft_chakra_ranks(trace);
    if (nr < 2 || nr > 1L << 30) {
      cli_fail("--workload %s: %s", trace,
               nr ? "a trace set of 2..2^30 ranks expected"
                  : "not a Chakra trace set: no PREFIX.0.et (a directory must hold "
                    "exactly one)");
      return finish(&st, EXIT_USAGE);
    }
    npus = (int)nr;
  }
  if ((a.val[O_NPUS] && int_opt(O_NPUS, a.val[O_NPUS], 2, 1L << 30, &npus)) ||
      (a.val[O_THREADS] && int_opt(O_THREADS, a.val[O_THREADS], 1, 4096, &threads)) ||
      (a.val[O_TOP] && int_opt(O_TOP, a.val[O_TOP], 0, 1 << 30, &top)) ||
      (a.val[O_TP] && int_list(O_TP, a.val[O_TP], 1, npus, WEFT_MAX_CHOICES, spec.tp, &spec.ntp)) ||
      (a.val[O_PP] && int_list(O_PP, a.val[O_PP], 1, npus, WEFT_MAX_CHOICES, spec.pp, &spec.npp)) ||
      (a.val[O_MB] && int_list(O_MB, a.val[O_MB], 1, 1 << 24, WEFT_MAX_CHOICES, spec.mb, &spec.nmb)) ||
      base_parallel(&a, &spec.base) || knob_lists(&a, &spec))
    return finish(&st, EXIT_USAGE);
  weft_settings_default(&spec.settings);
  if (a.val[O_GAPTOL]) {
    if (cli_number(a.val[O_GAPTOL], strlen(a.val[O_GAPTOL]), WEFT_MIN_GAP_TOL, 0,
                   &spec.settings.gap_tol) || spec.settings.gap_tol > 1.0) {
      cli_fail("--gap-tol '%s': expected a number in [" CLI_TEXT(WEFT_MIN_GAP_TOL) ", 1]",
               a.val[O_GAPTOL]);
      return finish(&st, EXIT_USAGE);
    }
  }
  int obj = 0, loop = 0;
  if ((a.val[O_OBJECTIVE] &&  /* names as scenario files take them: any case, _ or - */
       cli_opt_objective(opts[O_OBJECTIVE].name, a.val[O_OBJECTIVE], &obj)) ||
      (a.val[O_LOOP] && cli_opt_loop(opts[O_LOOP].name, a.val[O_LOOP], &loop)))
    return finish(&st, EXIT_USAGE);
  spec.objective = (WeftObjective)obj;
  spec.loop = (WeftLoop)loop;
  spec.all_orders = a.val[O_ALLORDERS] != NULL;
  double progress_s = -1.0;
  if (a.val[O_PROGRESS] && cli_progress_option(a.val[O_PROGRESS], &progress_s))
    return finish(&st, EXIT_USAGE);
  const char *const onames[2] = {"--csv", "--plot"}, *opaths[2] = {a.val[O_CSV], a.val[O_PLOT]};
  if (cli_out_check("--csv", a.val[O_CSV]) || cli_out_check("--plot", a.val[O_PLOT]) ||
      cli_out_distinct(2, onames, opaths))
    return finish(&st, EXIT_USAGE);
  int rc = a.val[O_PLOT] ? cli_plot_check(a.val[O_PLOT]) : 0;
  if (rc) return finish(&st, rc);

  /* Inputs: model, device, cost model, networks, constraints. */
  int nmodels = 1;
  for (const char *c = a.val[O_MODEL]; c && (c = strchr(c, ',')); c++) nmodels++;
  WeftModel *model = st.models = calloc((size_t)nmodels, sizeof *model);
  WeftDevice device;
  WeftCostModel cost;
  WeftConstraints cons;
  WeftError err;
  memset(&cons, 0, sizeof cons);
  if (!model) {
    cli_fail("out of memory");
    return finish(&st, EXIT_RUNTIME);
  }
  const char *zoo = a.val[O_ZOO] ? a.val[O_ZOO] : cli_zoo_dir();
  rc = 0;
  if (trace) trace_name(trace, model[0].name, sizeof model[0].name);
  for (int m = 0, at = 0; m < nmodels && !rc && !trace; m++) { /* "a,b": each from the zoo or a file */
    const char *s = a.val[O_MODEL] + at;
    size_t len = strcspn(s, ",");
    char name[WEFT_PATH_LEN];
    if (len == 0 || len >= sizeof name) {
      cli_fail("--model '%s': expected model names (or files) separated by ','", a.val[O_MODEL]);
      return finish(&st, EXIT_USAGE);
    }
    memcpy(name, s, len);
    name[len] = '\0';
    at += (int)len + 1;
    rc = weft_zoo_model(zoo, name, &model[m], &err);
    for (int j = 0; j < m && !rc; j++)
      if (!strcmp(model[j].name, model[m].name)) {
        cli_fail("--model '%s': %s is listed twice", a.val[O_MODEL], model[m].name);
        return finish(&st, EXIT_USAGE);
      }
  }
  memset(&cost, 0, sizeof cost); /* no --cost-model: the parts' prices alone */
  if (!rc && a.val[O_COST]) rc = weft_cost_model_read(a.val[O_COST], &cost, &err);
  if (rc) {
    cli_error(&err);
    return finish(&st, rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE);
  }
  if (cli_system_apply(a.sysval, &cost)) return finish(&st, EXIT_USAGE); /* over the file's */
  char networks[512];
  size_t nnets = (size_t)listed;
  CsBlockArgs ba = {a.val[O_BLOCKS], a.val[O_DIMS], a.val[O_MAXDIM], a.val[O_COSTDIMS]};
  CsPartsArgs pa = {a.val[O_PARTS_PER_DIM], a.val[O_PARTS], a.val[O_FABRIC], a.val[O_PLANES],
                    !a.val[O_COST]};
  CsNamed named = {a.nets, a.nnets, a.clusters, a.nclusters};
  rc = listed > 0
           ? cs_networks_from_files(&named, zoo, &pa, npus, &cost, &st.nets, &nnets, &st.parts,
                                    networks, sizeof networks)
           : cs_networks_from_blocks(&ba, zoo, &pa, npus, &cost, &st.nets, &nnets, &st.parts,
                                     &st.rep, networks, sizeof networks);
  if (!rc && trace) rc = read_trace(trace, &st, &nnets, networks, sizeof networks);
  if (!rc) {  /* the device as every command takes it: --device, the clusters' GPU, a100 */
    const char *dev = weft_job_device(st.nets, (int)nnets, a.val[O_DEVICE], &err);
    int drc = dev ? weft_zoo_device(zoo, dev, &device, &err) : WEFT_EINPUT;
    if (drc) {
      cli_error(&err);
      rc = drc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    }
  }
  for (int i = 0; i < a.ncons && !rc; i++)
    if (weft_constraints_parse(&cons, a.cons[i], st.nets[0].ndims, &err)) {
      cli_fail("--constraint '%s': column %d: %s", a.cons[i], err.col, err.msg);
      rc = EXIT_USAGE;
    }
  if (rc) {
    return finish(&st, rc);
  }
  spec.model = model;
  if (nmodels > 1) spec.nmodels = nmodels, spec.models = model;
  if (trace) spec.workloads = st.traces, spec.comms = st.comms;
  if (!a.val[O_EP] && !a.val[O_EP_LIST] && !trace) /* an MoE model: every EP its experts allow */
    spec.nep = weft_codesign_default_ep(model, nmodels, spec.ep, WEFT_MAX_CHOICES);
  spec.device = &device;
  cost.sys.device_power_w = device.power_w;  /* NpuPowerW when none is given */
  spec.nnets = (int)nnets;
  spec.nets = st.nets;
  spec.cost = &cost;
  spec.cons = &cons;

  /* Count, say what it takes, then stream: each chunk evaluated (this rank's
   * share, on its threads), gathered on rank 0, and kept only as the report
   * needs it (counts, top, front; CSV rows and plot points go to files). */
  CsReport *r = &st.rep;
  r->spec = &spec;
  r->npus = npus;
  r->parts = (const WeftDimParts(*)[WEFT_MAX_DIMS])st.parts;
  r->system = weft_cost_model_has_system(&cost) || spec.objective == WEFT_OBJ_COST_PER_ITERATION;
  r->clusters = cs_clusters_differ(&spec);
  weft_system_cost_resolved(&cost, &r->sys);
  r->networks = networks;
  r->cons = a.cons;
  r->ncons = a.ncons;
  r->top = top;
  r->ndims = cs_ndims(&spec);
  rc = weft_codesign_count(&spec, &r->n, &err);
  if (rc) {
    cli_error(&err);
    return finish(&st, rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE);
  }
  if ((size_t)top > r->n) r->top = top = (int)r->n; /* no more designs to list than points */
  if (rank == 0 && !(st.sum = weft_codesign_summary_create((size_t)top))) {
    cli_fail("out of memory");
    return finish(&st, cli_mpi_abort(EXIT_RUNTIME));
  }
  if (rank == 0 && a.val[O_PLOT] && !(st.plot_points = tmpfile())) {
    cli_fail("--plot: cannot create a temporary file: %s", strerror(errno));
    return finish(&st, cli_mpi_abort(EXIT_RUNTIME));
  }
  if (rank == 0 && a.val[O_CSV] && (rc = cs_csv_open(&st.csv, a.val[O_CSV], r))) {
    return finish(&st, cli_mpi_abort(rc));
  }
  r->sum = st.sum;
  /* the best per network file (or cluster): --per-network reports it; with
   * networks named, one on which no design is feasible is said on stderr
   * (never dropped silently) */
  if (rank == 0 && (a.val[O_PER_NETWORK] || listed > 0)) {
    if (cs_per_network_init(&st.pn, &spec)) {
      cli_fail("out of memory");
      return finish(&st, cli_mpi_abort(EXIT_RUNTIME));
    }
    if (a.val[O_PER_NETWORK]) r->pn = &st.pn;
  }
  announce(r, nnets, threads, nranks);
  WeftRunSettings rs;
  weft_run_settings_default(&rs);
  CliProgress pg;
  cli_progress_start(&pg, "pts", progress_s);
  rs.threads = threads;
  rs.rank = rank;
  rs.nranks = nranks;
  rs.progress = cli_progress_update;
  rs.progress_ctx = &pg;
  Sink sink = {r, st.pn.group ? &st.pn : NULL, rank, &st.csv, st.plot_points, 0};
  rc = weft_codesign_stream(&spec, &rs, 0, take_chunk, &sink, &err);
  cli_progress_end(&pg);
  if (rc) {
    if (!sink.failed) cli_error(&err);  /* else take_chunk said why */
    return finish(&st, cli_mpi_abort(EXIT_RUNTIME));
  }
  if (rank > 0) {
    return finish(&st, EXIT_OK);
  }

  /* Report (rank 0). */
  cs_summarize(r);
  if (listed > 0 && r->nok > 0) cs_per_network_unused(stderr, r, &st.pn);
  if (a.val[O_JSON]) cs_json(stdout, r);
  else cs_table(stdout, r);
  fflush(stdout);
  int code = EXIT_OK;
  if (r->nok == 0) {  /* a failure: nothing written, as for any failing command */
    cli_fail("no feasible design among %zu points%s", r->n,
             a.val[O_CSV] || a.val[O_PLOT] ? " (nothing written)" : "");
    code = EXIT_RUNTIME;
  } else if (a.val[O_CSV] && (rc = cs_csv_commit(&st.csv, r))) {
    code = rc;
  } else if (a.val[O_PLOT] && r->pn && (rc = cs_per_network_plot(a.val[O_PLOT], r))) {
    code = rc;
  } else if (a.val[O_PLOT] && !r->pn && (rc = cs_plot(a.val[O_PLOT], r, st.plot_points))) {
    code = rc;
  }
  return finish(&st, code);
}
