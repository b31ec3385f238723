/* codesign_nets.c — the networks `weft codesign` searches: LIBRA network
 * files (--network) and cluster presets (--cluster), or every shape over
 * building blocks (--blocks), each dim within its bound (--max-per-dim, or
 * the sizes real systems build). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "codesign.h"
#include "inputs.h"
#include "opts.h"

/* "Ring,FullyConnected": names of a comma-separated list into buf (one per
 * WEFT_NAME_LEN), at most max. */
static int name_list(const char *flag, const char *v, char (*buf)[WEFT_NAME_LEN], int max,
                     int *n) {
  *n = 0;
  for (const char *s = v;;) {
    size_t len = strcspn(s, ",");
    if (len == 0 || len >= WEFT_NAME_LEN || *n == max) {
      cli_fail("%s '%s': expected at most %d comma-separated names", flag, v, max);
      return -1;
    }
    memcpy(buf[*n], s, len);
    buf[(*n)++][len] = '\0';
    if (!s[len]) return 0;
    s += len + 1;
  }
}

static int same_ci(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

/* --fabric and --planes onto every network (nt[0..*n)): one that does not
 * fit them is an error, or with drop (shapes over blocks) left out; none
 * left is an error. *dropped: how many were left out. Returns 0 or an exit
 * code (printed). */
static int shape_all(WeftNetwork *nt, size_t *n, const CsPartsArgs *pa, int drop,
                     size_t *dropped) {
  char buf[CLI_PARTS_LIST_LEN];
  const char *names[WEFT_MAX_DIMS + 1];
  double planes[WEFT_MAX_DIMS];
  int nf = 0, np = 0;
  *dropped = 0;
  if (!pa->fabric && !pa->planes) return 0;
  if (pa->fabric) nf = cli_parts_list(pa->fabric, buf, names);
  if (pa->planes && (np = cli_numbers("--planes", pa->planes, planes)) < 0) return EXIT_USAGE;
  WeftError first;
  size_t kept = 0;
  for (size_t i = 0; i < *n; i++) {
    WeftError err;
    WeftNetwork t = nt[i];
    int rc = pa->fabric ? weft_network_set_fabric(&t, names, nf, "", NULL, "--fabric", &err) : 0;
    if (!rc && pa->planes) rc = weft_network_set_planes(&t, planes, np, "", NULL, "--planes", &err);
    if (rc && !drop) {
      cli_error(&err);
      return EXIT_USAGE;
    }
    if (rc && *dropped == 0) first = err;
    if (rc) (*dropped)++;
    else nt[kept++] = t;
  }
  if (kept == 0) {
    cli_fail("%s (every shape: none is left)", first.msg);
    return EXIT_USAGE;
  }
  *n = kept;
  return 0;
}

/* --parts-per-dim onto every network (nt[0..*n)), then, when some network
 * names a part, each bound (a choice expanded: *n grows) with --parts over
 * the catalog, their classes into cm; with dropped (shapes weft enumerates)
 * one its parts cannot build is left out, counted there. Returns 0 or an
 * exit code (printed). */
static int bind_all(WeftNetwork **nets, size_t *n, const char *zoo, const CsPartsArgs *pa,
                    WeftCostModel *cm, WeftDimParts (**parts)[WEFT_MAX_DIMS], int *dropped) {
  WeftError err;
  WeftNetwork *nt = *nets;
  int any = 0, rc = 0;
  if (pa->per_dim) {
    char buf[CLI_PARTS_LIST_LEN];
    const char *names[WEFT_MAX_DIMS + 1];
    int k = cli_parts_list(pa->per_dim, buf, names);
    for (size_t i = 0; i < *n && !rc; i++)
      rc = weft_network_set_parts(&nt[i], names, k, "--parts-per-dim", &err);
  }
  for (size_t i = 0; i < *n && !rc; i++) any |= weft_network_has_parts(&nt[i]);
  if (!rc && any) {
    WeftNetwork *bound;
    int nb;
    WeftError why;
    rc = dropped ? weft_codesign_parts_fit(nt, (int)*n, zoo, pa->file, cm, &bound, &nb, parts,
                                           dropped, &why, &err)
                 : weft_codesign_parts(nt, (int)*n, zoo, pa->file, cm, &bound, &nb, parts, &err);
    if (!rc) {
      free(nt);
      *nets = bound;
      *n = (size_t)nb;
    }
  }
  if (rc) cli_error(&err);
  return rc == WEFT_ENOMEM ? EXIT_RUNTIME : rc ? EXIT_USAGE : 0;
}

/* Every network priced: each dim by its part, or by its cost class in cm;
 * without --cost-model (pa->no_cost) a dim with no part is named. Returns
 * 0 or an exit code (printed). */
static int cost_check(const WeftNetwork *nt, size_t n, const WeftCostModel *cm,
                      const CsPartsArgs *pa) {
  for (size_t k = 0; k < n; k++) {
    for (int d = 0; d < nt[k].ndims && pa->no_cost; d++)
      if (!nt[k].part[d][0]) {
        cli_fail("missing --cost-model: %s%sdim %d has no part to price it (name one with "
                 "--parts-per-dim, or give a cost model)", nt[k].file,
                 nt[k].file[0] ? ": " : "", d + 1);
        return EXIT_USAGE;
      }
    WeftError err;
    double cpg[WEFT_MAX_DIMS];
    int rc = weft_cost_per_gbps(&nt[k], cm, cpg, &err);
    if (rc) {
      cli_error(&err);
      return rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    }
  }
  return 0;
}

/* "2 network files", "1 cluster (dgx-h100)", "1 network file, 2 clusters
 * (dgx-h100, h100-roce)": what was named, into desc; its length (at most
 * dsize - 1). */
static size_t named_desc(const CsNamed *named, char *desc, size_t dsize) {
  size_t at = 0;
  desc[0] = '\0';
  if (named->nfiles > 0)
    at += (size_t)snprintf(desc, dsize, "%d network file%s", named->nfiles,
                           named->nfiles > 1 ? "s" : "");
  if (named->nclusters > 0 && at < dsize)
    at += (size_t)snprintf(desc + at, dsize - at, "%s%d cluster%s (", at ? ", " : "",
                           named->nclusters, named->nclusters > 1 ? "s" : "");
  for (int k = 0; k < named->nclusters && at < dsize; k++)
    at += (size_t)snprintf(desc + at, dsize - at, "%s%s", k ? ", " : "", named->clusters[k]);
  if (named->nclusters > 0 && at < dsize) at += (size_t)snprintf(desc + at, dsize - at, ")");
  return at < dsize ? at : dsize - 1;
}

/* Networks named, files then clusters (CsNamed): each must have npus NPUs
 * and the same dim count; then their actives (part of a dim idle); a
 * network naming parts is bound to the catalog (a choice of parts: one
 * network per combination) and its classes added to cm
 * (weft_codesign_parts). Returns 0 or an exit code (printed). */
int cs_networks_from_files(const CsNamed *named, const char *zoo, const CsPartsArgs *pa,
                           int npus, WeftCostModel *cm, WeftNetwork **nets, size_t *nnets,
                           WeftDimParts (**parts)[WEFT_MAX_DIMS], char *desc, size_t dsize) {
  int nfiles = named->nfiles, nlisted = named->nfiles + named->nclusters;
  WeftNetwork *nt = *nets = calloc((size_t)nlisted, sizeof *nt);
  *nnets = (size_t)nlisted;
  *parts = NULL;
  if (!nt) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  char npus_text[24];
  snprintf(npus_text, sizeof npus_text, "%d", npus);
  for (int k = 0; k < nlisted; k++) {
    WeftError err;
    WeftNetwork *net = &nt[k];
    int rc = k < nfiles /* a Cluster: key: the zoo's */
                 ? weft_network_read_zoo(named->files[k], zoo, net, &err)
                 : cli_network_load(NULL, named->clusters[k - nfiles], npus_text, zoo, net, &err);
    if (rc) {
      cli_error(&err);
      return rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    }
    const char *name = k < nfiles ? named->files[k] : net->file;
    if (weft_network_npus_bought(net) != (double)npus) {  /* spares are the cluster's too */
      cli_fail("%s: the network has %.0f NPUs, --npus is %d", name,
               weft_network_npus_bought(net), npus);
      return EXIT_USAGE;
    }
    if (net->ndims != nt[0].ndims) {
      cli_fail("%s: %d dims, but %s has %d (constraints need one dim count)", name, net->ndims,
               nfiles > 0 ? named->files[0] : nt[0].file, nt[0].ndims);
      return EXIT_USAGE;
    }
  }
  WeftError err;
  WeftNetwork *all = NULL;
  size_t nall = 0;
  if (weft_network_actives(nt, (size_t)nlisted, &all, &nall, &err)) {
    cli_error(&err);
    return EXIT_RUNTIME;  /* out of memory: the only failure here */
  }
  free(nt);
  *nets = all;
  *nnets = nall;
  size_t dropped;
  int src = shape_all(*nets, nnets, pa, 0, &dropped);
  if (src) return src;
  int brc = bind_all(nets, nnets, zoo, pa, cm, parts, NULL); /* each choice a network of its own */
  if (brc) return brc;
  int crc = cost_check(*nets, *nnets, cm, pa);
  if (crc) return crc;
  size_t at = named_desc(named, desc, dsize);
  if (nall > (size_t)nlisted && at < dsize)
    at += (size_t)snprintf(desc + at, dsize - at, " and %zu with part of a dim idle (spares)",
                           nall - (size_t)nlisted);
  if (*nnets != nall && at < dsize)
    snprintf(desc + at, dsize - at, ", %zu networks with each choice of parts", *nnets);
  return 0;
}

/* 1 when --parts-per-dim names a part (not '-' or empty) for each of D dims. */
static int every_part(const char *list, int D) {
  char buf[CLI_PARTS_LIST_LEN];
  const char *names[WEFT_MAX_DIMS + 1];
  int n = cli_parts_list(list, buf, names);
  for (int d = 0; d < n; d++)
    if (!names[d][0] || !strcmp(names[d], "-")) return 0;
  return n == D;
}

/* --max-per-dim "16,-,0": per dim a bound (>= 2), 0 (no limit) or - (the
 * default, left as -1 in maxd). Returns 0 or prints why and returns -1. */
static int max_per_dim(const char *v, int D, int npus, int *maxd) {
  int n = 0, bad = 0;
  for (const char *s = v; !bad;) {
    const char *end = s + strcspn(s, ",");
    long long x;
    if (n == WEFT_MAX_DIMS) bad = 1;
    else if (end - s == 1 && *s == '-') maxd[n++] = -1;
    else if (cli_int_value(s, (size_t)(end - s), 0, npus, &x) || x == 1) bad = 1;
    else maxd[n++] = (int)x;
    if (!*end) break;
    s = end + 1;
  }
  if (!bad && n == D) return 0;
  cli_fail("--max-per-dim '%s': expected %d comma-separated values, each - (the default), 0 "
           "(no limit) or an integer in 2..%d", v, D, npus);
  return -1;
}

/* Every shape over --blocks, each dim within its bound (r->bounds). Returns
 * 0 or an exit code (printed). */
int cs_networks_from_blocks(const CsBlockArgs *a, const char *zoo, const CsPartsArgs *pa,
                            int npus, WeftCostModel *cm, WeftNetwork **nets, size_t *nnets,
                            WeftDimParts (**parts)[WEFT_MAX_DIMS], CsReport *r, char *desc,
                            size_t dsize) {
  char names[WEFT_MAX_DIMS][WEFT_NAME_LEN], cost_dim[WEFT_MAX_DIMS][WEFT_NAME_LEN];
  WeftTopology topo[WEFT_MAX_DIMS];
  int D, ndims, maxd[WEFT_MAX_DIMS];
  for (int d = 0; d < WEFT_MAX_DIMS; d++) maxd[d] = -1;
  if (name_list("--blocks", a->blocks, names, WEFT_MAX_DIMS, &D)) return EXIT_USAGE;
  for (int d = 0; d < D; d++) {
    int t = -1;
    for (int k = 0; k < 3; k++)
      if (same_ci(names[d], weft_topology_name((WeftTopology)k))) t = k;
    if (t < 0) {
      cli_fail("--blocks: unknown building block '%s' (Ring, FullyConnected or Switch)",
               names[d]);
      return EXIT_USAGE;
    }
    topo[d] = (WeftTopology)t;
  }
  if (a->dims) {
    long long x;
    if (cli_int_value(a->dims, strlen(a->dims), 1, WEFT_MAX_DIMS, &x)) {
      cli_fail("--dims must be an integer in 1..%d, got '%s'", WEFT_MAX_DIMS, a->dims);
      return EXIT_USAGE;
    }
    ndims = (int)x;
    if (ndims != D) {
      cli_fail("--dims %d, but --blocks names %d building blocks (one per dim)", ndims, D);
      return EXIT_USAGE;
    }
  }
  if (a->max_per_dim && max_per_dim(a->max_per_dim, D, npus, maxd)) return EXIT_USAGE;
  int nc = 0;
  if (a->cost_dims) {
    if (name_list("--cost-dims", a->cost_dims, cost_dim, WEFT_MAX_DIMS, &nc)) return EXIT_USAGE;
    if (nc != D) {
      cli_fail("--cost-dims names %d classes for %d dims", nc, D);
      return EXIT_USAGE;
    }
  } else if (cm->nclasses == D) {
    for (int d = 0; d < D; d++) memcpy(cost_dim[d], cm->cls[d].name, WEFT_NAME_LEN);
  } else if (pa->per_dim && every_part(pa->per_dim, D)) {  /* each dim priced by its part */
    for (int d = 0; d < D; d++) cost_dim[d][0] = '\0';
  } else if (pa->no_cost) { /* no cost model to take classes from */
    cli_fail("missing --cost-model: a dim without a part has no price (name a part for each of "
             "the %d dims with --parts-per-dim, or give a cost model)", D);
    return EXIT_USAGE;
  } else {
    cli_fail("%s: %d cost classes for %d dims: name one per dim with --cost-dims",
             cm->file, cm->nclasses, D);
    return EXIT_USAGE;
  }
  r->nbounds = D;
  for (int d = 0; d < D; d++) { /* the default where none is given */
    CsBound *b = &r->bounds[d];
    b->topo = topo[d];
    memcpy(b->cost_class, cost_dim[d], WEFT_NAME_LEN);
    b->why = NULL;
    if (maxd[d] < 0) maxd[d] = weft_block_default_max(topo[d], cost_dim[d], &b->why);
    b->max_npus = maxd[d];
  }
  WeftError err;
  int rc = weft_network_shapes(topo, (const char(*)[WEFT_NAME_LEN])cost_dim, D, npus, maxd,
                               nets, nnets, &err);
  if (rc) {
    cli_error(&err);
    return rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  if (*nnets == 0) {
    WeftNetwork *all = NULL;
    size_t nall = 0;
    weft_network_shapes(topo, NULL, D, npus, NULL, &all, &nall, NULL);
    free(all);
    if (nall == 0) {
      cli_fail("no network of %d dims (each at least 2 NPUs) has %d NPUs", D, npus);
      return EXIT_USAGE;
    }
    char lim[256] = "";
    for (int d = 0, k = 0; d < D && (size_t)k < sizeof lim; d++)
      k += maxd[d] ? snprintf(lim + k, sizeof lim - (size_t)k, "%s%d", k ? " x " : "", maxd[d])
                   : snprintf(lim + k, sizeof lim - (size_t)k, "%snone", k ? " x " : "");
    cli_fail("none of the %zu networks of %d dims with %d NPUs is within the bounds %s "
             "(--max-per-dim changes them)", nall, D, npus, lim);
    return EXIT_USAGE;
  }
  size_t dropped;
  int src = shape_all(*nets, nnets, pa, 1, &dropped);
  if (src) return src;
  size_t nshapes = *nnets;
  int unbuilt = 0; /* shapes x choices of parts the parts cannot build: left out */
  int brc = bind_all(nets, nnets, zoo, pa, cm, parts, &unbuilt);
  if (brc) return brc;
  int crc = cost_check(*nets, *nnets, cm, pa);  /* every shape shares the classes */
  if (crc) return crc;
  size_t k = (size_t)snprintf(desc, dsize, "%zu shape%s of", nshapes, nshapes > 1 ? "s" : "");
  for (int d = 0; d < D && k < dsize; d++)
    k += (size_t)snprintf(desc + k, dsize - k, "%s%s (%s)", d ? " x " : " ",
                          weft_topology_name(topo[d]), cost_dim[d][0] ? cost_dim[d] : "parts");
  if (pa->per_dim && k < dsize)
    k += (size_t)snprintf(desc + k, dsize - k, ", parts %s", pa->per_dim);
  if (pa->fabric && k < dsize)
    k += (size_t)snprintf(desc + k, dsize - k, ", fabric %s", pa->fabric);
  if (pa->planes && k < dsize)
    k += (size_t)snprintf(desc + k, dsize - k, ", planes %s", pa->planes);
  if (dropped && k < dsize)
    k += (size_t)snprintf(desc + k, dsize - k, " (%zu shape%s it does not fit left out)", dropped,
                          dropped > 1 ? "s" : "");
  if (unbuilt && k < dsize)
    k += (size_t)snprintf(desc + k, dsize - k, " (%d network%s its parts cannot build left out)",
                          unbuilt, unbuilt > 1 ? "s" : "");
  if (*nnets + (size_t)unbuilt != nshapes && k < dsize) /* a choice of parts made more */
    snprintf(desc + k, dsize - k, ": %zu networks with each choice of parts", *nnets);
  return 0;
}
