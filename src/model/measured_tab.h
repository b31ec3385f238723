/* measured_tab.h — internal to measured.c and measured_csv.c: the tables of
 * one device as read from its CSV files. */
#ifndef WEFT_MODEL_MEASURED_TAB_H
#define WEFT_MODEL_MEASURED_TAB_H

#include <stddef.h>
#include <sys/types.h>

#include "model/measured.h"

#define WM_MAX_GEMM 16384  /* GEMM rows of one device (all types) */
#define WM_MAX_ATTN 1024   /* attention rows */
#define WM_MAX_MEM 1024    /* memory rows */
#define WM_NFILES 8        /* gemm, attention, memory, launch, sustained, attention_dropout,
                            * fp8_layer_gemms, fp8_layer_gemms_each (weft_measured_suffix) */
#define WM_FILE_SEQ 6      /* fp8_layer_gemms: its index there */
#define WM_MAX_DROP 256    /* attention-with-dropout rows */
#define WM_MAX_SUSTAINED 512 /* seconds of a sustained run per type */
#define WM_MAX_LAYERS 16   /* layers of DEVICE_fp8_layer_gemms.csv */
#define WM_LAYER_GEMMS 32  /* GEMMs of one of them (DEVICE_fp8_layer_gemms_each.csv) */

typedef struct {
  double m, n, k;
  int dt;         /* WeftMeasuredDtype */
  double ns;      /* the mean of the rows of this shape */
  double ratio;   /* ns over the fitted shape model's time */
  double lm, ln, lk; /* ln m, ln n, ln k: the space neighbours are found in */
} WmGemm;

typedef struct {
  int backend;    /* WeftMeasuredAttn: flash or cudnn */
  int bwd, causal;
  double b_heads, seq, head_dim;
  double rate;    /* FLOP/s in weft's count (opcost.c's causal fraction) */
} WmAttn;

/* A row of DEVICE_attention_dropout.csv: one shape's forward and backward
 * at one dropout probability; after the load (measured_drop.c) one per
 * (backend, head width, seq): the median over its batch x heads rows of the
 * dropout / no-dropout time ratios (p 0 in the fwd and bwd fields). */
typedef struct {
  int backend;    /* WeftMeasuredAttn: flash or cudnn */
  double b_heads, seq, head_dim, p;
  double fwd, bwd; /* ns as read; ratios after the load */
} WmDrop;

/* A layer of scripts/measure/fp8_layer_gemms.py: its GEMMs run as one
 * sequence in BF16 and in FP8, the runs' times summed per type
 * (DEVICE_fp8_layer_gemms.csv), and the GEMMs' shapes and passes
 * (DEVICE_fp8_layer_gemms_each.csv, whose times weft does not read). */
typedef struct {
  char name[64];
  double seq_ns[2];  /* per type, BF16 and FP8: the sum of the runs' times */
  int nseq[2];       /* and how many runs */
  int line;          /* the first line naming it in the sequence file (0: none) */
  int ng;
  double m[WM_LAYER_GEMMS], n[WM_LAYER_GEMMS], k[WM_LAYER_GEMMS];
  int pass[WM_LAYER_GEMMS]; /* 0 forward (fast accumulation in FP8), 1 data-, 2 weight-gradient */
} WmLayer;

typedef struct {
  int kind;       /* WeftMeasuredMem */
  double elems, bytes, ns;
} WmMem;

typedef struct {
  char file[WEFT_PATH_LEN];
  char date[64];  /* the "# date:" comment ("" none) */
  long long size; /* bytes and mtime when read: a changed file is read again */
  long long mtime;
  int rows;
} WmFile;

/* The rows' arrays come last: a set is cleared up to `gemm` (WM_HEAD) and
 * its rows written as read (the counts say how many). */
struct WeftMeasured {
  char prefix[WEFT_PATH_LEN];
  int sms, tile_m, tile_n;       /* the device the fit is to (with peak[]) */
  WmFile file[WM_NFILES];
  int ngemm, nattn, nmem, ndrop;
  int gemm_from[WM_NDTYPES + 1]; /* rows of type dt: [gemm_from[dt], gemm_from[dt + 1]) */
  double fit[WM_NDTYPES][3];     /* gemm_eff_max, gemm_k0, gemm_t0_ns (0: no rows) */
  WeftDevice fitdev[WM_NDTYPES]; /* what gemm_eff.c reads of each fit */
  double peak[WM_NDTYPES];       /* the rate the fit is relative to (FLOP/s) */
  double best[WM_NDTYPES];       /* the fastest row's rate (FLOP/s): no shape beats it */
  double launch_us[2];           /* per kernel: eager, graph (< 0: not measured) */
  /* The sustained run (DEVICE_sustained.csv): achieved FLOP/s per second of
   * a GEMM run back to back, per type; and the factor on the tables' burst
   * times it gives (1: none measured). */
  int nsus[WM_NDTYPES];
  double slow[WM_NDTYPES];
  /* FP8 GEMMs' time in a layer's sequence over the tables' (docs/zoo.md,
   * "FP8 GEMMs in a layer"): the device's measured_fp8_layer, else worked
   * out from the layer files (1: none); both FP8 types' lookups multiply by
   * it, apart from slow[] (which weft_measured_info reports as sustained). */
  double fp8_layer, fp8_given;   /* fp8_given: the device's measured_fp8_layer (0: none) */
  int nlayer;
  /* The device reading the tables (WeftDevice.measured_clock and
   * measured_hbm_bytes_per_s): its sustained clock over the tables' (in
   * slow[]) and its memory-bound kernels' time over the tables'. */
  double clock, mem_time;
  WmGemm gemm[WM_MAX_GEMM];      /* sorted by (dt, n, k, m) */
  int by_lm[WM_MAX_GEMM];        /* gemm's indices, each type's range sorted by ln m
                                  * (ties by index): the neighbour search's order */
  WmAttn attn[WM_MAX_ATTN];
  WmMem mem[WM_MAX_MEM];         /* sorted by (kind, elems) */
  double sus[WM_NDTYPES][WM_MAX_SUSTAINED];
  WmDrop drop[WM_MAX_DROP];
  WmLayer layer[WM_MAX_LAYERS];
};
#define WM_HEAD offsetof(WeftMeasured, gemm)

/* The files' suffixes: t->prefix + "_" + suffix + ".csv". */
extern const char *const weft_measured_suffix[WM_NFILES];

/* The files of t->prefix into t (t->prefix set, the rest up to WM_HEAD
 * zero); a layer of the FP8 sequence file without its GEMMs' shapes is an
 * error at its line. Rows only: the caller sorts, merges and fits. */
int weft_measured_read(WeftMeasured *t, WeftError *err);
/* The attention-dropout rows read into ratio rows (measured_drop.c). */
void weft_measured_finish_drop(WeftMeasured *t);

/* The median of v[0..n), n > 0 (v sorted in place). */
double weft_measured_median(double *v, int n);

#endif
