/* fuzz_measured_csv.c — a measured kernel table (weft_measured_read,
 * data/measured/DEVICE_*.csv). Input: one byte choosing the table (one of
 * weft_measured_suffix: gemm ... fp8_layer_gemms_each), then the CSV. 0 or
 * an error with a reason naming the file; every row read has finite figures
 * > 0 (a causal flag 0 or 1, GEMM dims whole and below 2^24, a layer GEMM's
 * pass 0-2) and counts within the tables' room. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "model/measured_tab.h"

static int pos_finite(double x) { return isfinite(x) && x > 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int which = data[0] % WM_NFILES;
  char name[32];
  for (int i = 0; i < WM_NFILES; i++) {
    snprintf(name, sizeof name, "dev_%s.csv", weft_measured_suffix[i]);
    unlink(fuzz_path(name));
  }
  snprintf(name, sizeof name, "dev_%s.csv", weft_measured_suffix[which]);
  fuzz_write(name, data + 1, size - 1);
  static WeftMeasured t; /* large: the rows' arrays */
  memset(&t, 0, WM_HEAD);
  snprintf(t.prefix, sizeof t.prefix, "%s", fuzz_path("dev"));
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_measured_read(&t, &err);
  fuzz_check_result(rc, &err, "weft_measured_read");
  if (rc) {
    FUZZ_CHECK(strstr(err.file, "dev") != NULL, "the error names the file", &err);
    return 0;
  }
  FUZZ_CHECK(t.ngemm >= 0 && t.ngemm <= WM_MAX_GEMM, "gemm rows", NULL);
  FUZZ_CHECK(t.nattn >= 0 && t.nattn <= WM_MAX_ATTN, "attention rows", NULL);
  FUZZ_CHECK(t.nmem >= 0 && t.nmem <= WM_MAX_MEM, "memory rows", NULL);
  for (int i = 0; i < t.ngemm; i++) {
    const WmGemm *g = &t.gemm[i];
    FUZZ_CHECK(g->dt >= 0 && g->dt < WM_NDTYPES, "gemm dtype", NULL);
    FUZZ_CHECK(pos_finite(g->m) && pos_finite(g->n) && pos_finite(g->k) && g->m < 16777216.0 &&
                   g->n < 16777216.0 && g->k < 16777216.0 && g->m == floor(g->m) &&
                   g->n == floor(g->n) && g->k == floor(g->k),
               "gemm dims", NULL);
    FUZZ_CHECK(pos_finite(g->ns), "gemm time", NULL);
  }
  for (int i = 0; i < t.nattn; i++) {
    const WmAttn *a = &t.attn[i];
    FUZZ_CHECK(a->backend == WM_ATTN_FLASH || a->backend == WM_ATTN_CUDNN, "attention backend", NULL);
    FUZZ_CHECK((a->bwd == 0 || a->bwd == 1) && (a->causal == 0 || a->causal == 1), "flags", NULL);
    FUZZ_CHECK(pos_finite(a->b_heads) && pos_finite(a->seq) && pos_finite(a->head_dim) &&
                   pos_finite(a->rate),
               "attention figures", NULL);
  }
  for (int i = 0; i < t.nmem; i++) {
    const WmMem *m = &t.mem[i];
    FUZZ_CHECK(m->kind > WM_MEM_NONE && m->kind < WM_NMEM, "memory op", NULL);
    FUZZ_CHECK(pos_finite(m->elems) && pos_finite(m->bytes) && pos_finite(m->ns), "memory figures",
               NULL);
  }
  for (int g = 0; g < 2; g++)
    FUZZ_CHECK(t.launch_us[g] == -1 || pos_finite(t.launch_us[g]), "launch", NULL);
  FUZZ_CHECK(t.nlayer >= 0 && t.nlayer <= WM_MAX_LAYERS, "layers", NULL);
  for (int l = 0; l < t.nlayer; l++) {
    const WmLayer *y = &t.layer[l];
    FUZZ_CHECK(y->name[0] && y->ng >= 0 && y->ng <= WM_LAYER_GEMMS, "layer", NULL);
    FUZZ_CHECK(y->nseq[0] == 0 || y->ng > 0, "a layer measured has its shapes", NULL);
    for (int s = 0; s < 2; s++)
      FUZZ_CHECK(y->nseq[s] == 0 ? y->seq_ns[s] == 0 : pos_finite(y->seq_ns[s]), "layer time",
                 NULL);
    for (int g = 0; g < y->ng; g++)
      FUZZ_CHECK(pos_finite(y->m[g]) && y->m[g] < 16777216.0 && y->m[g] == floor(y->m[g]) &&
                     pos_finite(y->n[g]) && pos_finite(y->k[g]) && y->pass[g] >= 0 &&
                     y->pass[g] <= 2,
                 "layer GEMM", NULL);
  }
  for (int dt = 0; dt < WM_NDTYPES; dt++) {
    FUZZ_CHECK(t.nsus[dt] >= 0 && t.nsus[dt] <= WM_MAX_SUSTAINED, "sustained rows", NULL);
    for (int i = 0; i < t.nsus[dt]; i++) FUZZ_CHECK(pos_finite(t.sus[dt][i]), "sustained", NULL);
  }
  return 0;
}
