/* codesign.h — internal to `weft codesign`: what the flow (codesign.c) hands
 * the writers (codesign_report.c: table, JSON, CSV, plot). */
#ifndef WEFT_CLI_CODESIGN_H
#define WEFT_CLI_CODESIGN_H

#include <stdio.h>

#include "weft.h"

#define CS_NSTATUS WEFT_POINT_NSTATUS

/* The bound on a building block's NPU count (--blocks): its default
 * (weft_block_default_max) or --max-per-dim's. */
typedef struct {
  WeftTopology topo;
  char cost_class[WEFT_NAME_LEN];
  int max_npus;      /* 0: no limit */
  const char *why;   /* the default's basis ("chiplets per package"), or NULL when given */
} CsBound;

/* --per-network (codesign_pernet.c): the best OK design (by the objective,
 * the first point on a tie) of each model on each group of networks, a
 * group being a network file's own network, its variants with spares and
 * its choices of parts (the same file), or one --blocks shape. */
typedef struct {
  int ngroups;
  int *group;              /* per network: its group */
  int *first;              /* per group: its first network (the file's own) */
  int nmodels;
  WeftIndexedPoint *best;  /* [model x ngroups + group] */
  unsigned char *has;      /* 1 where best holds a design */
} CsPerNet;

typedef struct {
  const WeftCodesignSpec *spec;
  WeftCodesignSummary *sum;   /* what the stream kept (borrowed) */
  const CsPerNet *pn;         /* --per-network; NULL without */
  size_t n;                   /* points */
  int npus;
  const char *networks;       /* how the shapes came about, one line */
  int nbounds;                /* --blocks: one bound per dim; 0 with --network files */
  CsBound bounds[WEFT_MAX_DIMS];
  const char *const *cons;    /* constraint texts */
  int ncons;
  int top;                    /* designs listed */
  int ndims;                  /* most dims over the networks (CSV columns) */
  const WeftDimParts (*parts)[WEFT_MAX_DIMS]; /* per network, its dims' parts; NULL: none */
  int system;                 /* show the system cost (docs/model.md "System cost") */
  int clusters;               /* the networks name different presets: a point's shape
                                 reads its cluster's name first (cs_clusters_differ) */
  WeftSystemCost sys;         /* defaults filled in */
  /* Filled by cs_summarize from sum (views into it). */
  size_t count[CS_NSTATUS];
  const WeftIndexedPoint *example[CS_NSTATUS];  /* first point of each status, NULL when none */
  size_t nok;
  size_t ntop;
  const WeftIndexedPoint *best;   /* the top designs, best first */
  size_t nfront;
  const WeftIndexedPoint *front;  /* Pareto front, by increasing cost */
} CsReport;

/* The networks to search (codesign_nets.c); each returns 0 or an exit code
 * (printed), *nets malloc'd (the caller frees it, also on failure). From
 * files (a Cluster: key resolved in the zoo): each must have npus NPUs
 * (bought, spares included) and all the same dim count; each followed by its
 * variants with part of a dim idle (weft_network_actives); networks naming
 * parts are bound (a choice of parts expanded, *nnets counting each), their
 * classes added to cm and *parts (malloc'd, one row per network; NULL when no
 * network names a part). */
typedef struct {
  const char *per_dim;  /* --parts-per-dim, NULL when absent */
  const char *file;     /* --parts, NULL when absent */
  const char *fabric;   /* --fabric, NULL when absent: onto every network (a file it does
                           not fit is an error; a shape it does not fit is dropped) */
  const char *planes;   /* --planes, NULL when absent: the same */
  int no_cost;          /* no --cost-model: every dim must be priced by its part */
} CsPartsArgs;
/* The networks named: --network files, then --cluster presets (each the
 * preset's network of npus GPUs, weft_cluster_network; its file name
 * "--cluster NAME --npus N"). */
typedef struct {
  const char *const *files;
  int nfiles;
  const char *const *clusters;
  int nclusters;
} CsNamed;
int cs_networks_from_files(const CsNamed *named, const char *zoo, const CsPartsArgs *pa,
                           int npus, WeftCostModel *cm, WeftNetwork **nets, size_t *nnets,
                           WeftDimParts (**parts)[WEFT_MAX_DIMS], char *desc, size_t dsize);
/* Every shape over --blocks (option values, NULL when absent), each dim
 * within its bound, the bounds into r->bounds; desc says how many of what.
 * Both take --parts-per-dim onto every network and bind the parts (--parts
 * over the catalog) as above; with --blocks a dim given a part needs no
 * cost class (--cost-dims or the cost model's, when every dim has one). */
typedef struct {
  const char *blocks, *dims, *max_per_dim, *cost_dims;
} CsBlockArgs;
int cs_networks_from_blocks(const CsBlockArgs *a, const char *zoo, const CsPartsArgs *pa,
                            int npus, WeftCostModel *cm, WeftNetwork **nets, size_t *nnets,
                            WeftDimParts (**parts)[WEFT_MAX_DIMS], CsReport *r, char *desc,
                            size_t dsize);

/* Most dims over the networks (the CSV's bw columns); call before streaming. */
int cs_ndims(const WeftCodesignSpec *spec);
/* Counts, ranking and front from r->sum once every point is in. */
void cs_summarize(CsReport *r);

void cs_table(FILE *out, const CsReport *r);
void cs_json(FILE *out, const CsReport *r);

/* The CSV, written as the points stream in (enumeration order) through the
 * shared output writer (a temporary beside path, renamed by cs_csv_commit or
 * removed by cs_csv_discard). */
typedef struct {
  WeftOut *out;  /* NULL when not open */
  FILE *f;       /* out's stream */
} CsCsv;

/* Open the output and write the header; 0, or prints why and returns the
 * exit status (1: the file system refused the path). */
int cs_csv_open(CsCsv *c, const char *path, const CsReport *r);
void cs_csv_rows(CsCsv *c, const CsReport *r, size_t first, const WeftDesignPoint *pts,
                 size_t n);
/* Close and rename over path, then say on stderr what it holds (rows,
 * columns); 0, or prints why and returns EXIT_RUNTIME. */
int cs_csv_commit(CsCsv *c, const CsReport *r);
void cs_csv_discard(CsCsv *c);  /* close and remove; fine when not open */

/* The Pareto plot of the best design. points: (cost_usd, time_ns) pairs of
 * doubles of every OK point, binary, r->nok of them, from the start. 0 or an
 * exit code (printed). */
int cs_plot(const char *path, const CsReport *r, FILE *points);

/* "R4xFC8xR4xSW32" */
void cs_shape(const WeftNetwork *net, char *buf, size_t size);
/* 1 when the spec's networks do not all name the same cluster preset (one
 * naming none counts as its own): a point's shape then names its cluster. */
int cs_clusters_differ(const WeftCodesignSpec *spec);
/* A network's shape after its cluster's name when clusters
 * (cs_clusters_differ; "-" for a network naming none): "gb200-nvl72
 * SW64/72xSW256". */
void cs_net_shape(const WeftNetwork *net, int clusters, char *buf, size_t size);
/* A point's network shape (cs_net_shape), after the model's name when the
 * spec has several: "deepseek-v3 gb200-nvl72 SW64/72xSW256". */
void cs_point_shape(const WeftCodesignSpec *spec, int clusters, const WeftDesignPoint *p,
                    char *buf, size_t size);
/* The model's name, or the models' joined by ',' ("llama3-405b,deepseek-v3"). */
void cs_model_names(const WeftCodesignSpec *spec, char *buf, size_t size);
/* The order and the searched knobs of par: "TP-PP-DP z1 ep8". */
void cs_order_knobs(const WeftCodesignSpec *spec, const WeftParallel *par, char *buf,
                    size_t size);

/* --per-network: 0, or -1 out of memory (then free it). */
int cs_per_network_init(CsPerNet *pn, const WeftCodesignSpec *spec);
void cs_per_network_free(CsPerNet *pn);
/* Point index (added in increasing index order) into its cell. */
void cs_per_network_add(CsPerNet *pn, size_t index, const WeftDesignPoint *p);
void cs_per_network_table(FILE *out, const CsReport *r);
void cs_per_network_json(FILE *out, const CsReport *r);  /* "per_network": [...], */
/* On out, a line per model and network file with no feasible design on it
 * (nor on its variants with spares): "weft: codesign: no feasible design of
 * deepseek-v3 on net.yml (SW72xSW256, nor with spares)". */
void cs_per_network_unused(FILE *out, const CsReport *r, const CsPerNet *pn);
/* The figure: best time against the files' dim-1 size, a curve per model. */
int cs_per_network_plot(const char *path, const CsReport *r);
/* "TP-PP-DP" */
void cs_order(const WeftParDim order[3], char *buf, size_t size);

#endif
