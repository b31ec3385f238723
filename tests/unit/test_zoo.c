/* test_zoo.c — the model zoo: shipped models' parameter counts and FLOPs
 * against hand computation and published totals, devices, listing, errors. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "weft.h"

#define ZOO "data/zoo"
#define FIX "tests/fixtures/zoo/"

/* Parameter and FLOP counts are whole numbers far below 2^53: exact in a
 * double, so compared with a zero tolerance. */
#define EXACT 0.0

static WeftModel *load(const char *name) {
  static WeftModel m;  /* ~12 KB: kept off the stack */
  WeftError e;
  int rc = weft_zoo_model(ZOO, name, &m, &e);
  if (rc) fprintf(stderr, "  %s: %s\n", name, e.msg);
  CHECK_EQ_INT(rc, WEFT_OK);
  return &m;
}

static double sum_flops(const WeftModel *m) {
  double s = 0;
  for (int i = 0; i < m->nlayers; i++) s += m->layer[i].fwd_flops;
  return s;
}

static const WeftModelLayer *find_layer(const WeftModel *m, const char *name) {
  for (int i = 0; i < m->nlayers; i++)
    if (strcmp(m->layer[i].name, name) == 0) return &m->layer[i];
  fprintf(stderr, "  no layer %s\n", name);
  return &m->layer[0];
}

/* ------------------------------------------------------------------ transformers */

static void test_gpt3_params(void) {
  const WeftModel *m = load("gpt3-175b");
  CHECK_EQ_INT(m->arch, WEFT_ARCH_TRANSFORMER);
  CHECK_EQ_INT(m->layers, 96);
  CHECK_EQ_INT(m->hidden, 12288);
  CHECK_EQ_INT(m->heads, 96);
  CHECK_EQ_INT(m->kv_heads, 96);        /* default: heads */
  CHECK_EQ_INT(m->ffn_hidden, 49152);   /* default: 4 * hidden */
  CHECK_EQ_INT(m->ffn_matrices, 2);
  CHECK_EQ_INT(m->seq_len, 2048);
  CHECK_EQ_INT(m->vocab, 50257);
  CHECK_EQ_INT(m->global_batch, 1536);
  CHECK_EQ_INT(m->experts, 0);
  /* 12*L*h^2 + 13*L*h + (V + s)*h + 2h (final LayerNorm), L 96, h 12288:
   *   12*96*12288^2   = 1152 * 150,994,944 = 173,946,175,488
   *   13*96*12288     =                          15,335,424
   *   (50257+2048)*h  = 52,305 * 12,288   =     642,723,840
   *   2h              =                              24,576
   *   total                               = 174,604,259,328 */
  CHECK_NEAR(weft_model_params(m), 174604259328.0, EXACT);
}

static void test_llama2_gqa_swiglu_params(void) {
  const WeftModel *m = load("llama2-70b");
  CHECK_EQ_INT(m->kv_heads, 8);
  CHECK_EQ_INT(m->ffn_matrices, 3);
  CHECK_EQ_INT(m->ffn_hidden, 28672);
  /* No biases, RMSNorm, untied output. h 8192, head 128, K/V width 8*128 = 1024:
   *   attention 2h^2 + 2*h*1024     = 134,217,728 + 16,777,216 = 150,994,944
   *   SwiGLU    3*h*28672           =                            704,643,072
   *   2 RMSNorms 2h                 =                                 16,384
   *   per layer                     =                            855,654,400
   *   x 80                          =                         68,452,352,000
   *   embedding + output 2*32000*h  =                            524,288,000
   *   final norm h                  =                                  8,192
   *   total                         =                         68,976,648,192 (the published 69B) */
  CHECK_NEAR(weft_model_params(m), 68976648192.0, EXACT);
}

/* Nemotron-4 15B (Table 1 of its report; FFN width NeMo's): squared ReLU
 * (2 matrices), no biases, LayerNorm, rotary positions, untied output.
 * h 6144, head 128, K/V width 8 x 128 = 1024:
 *   attention 2h^2 + 2 h 1024       = 75,497,472 + 12,582,912 =  88,080,384
 *   MLP 2 h 24576                   =                             301,989,888
 *   2 LayerNorms 2 x 2h             =                                  24,576
 *   per layer                       =                             390,094,848
 *   x 32                            =                          12,483,035,136 (the report's 12.5B)
 *   embedding + output 2 x 256000 h =                           3,145,728,000 (its 3.2B)
 *   final LayerNorm 2h              =                                  12,288
 *   total                           =                          15,628,775,424 */
static void test_nemotron4_params(void) {
  const WeftModel *m = load("nemotron4-15b");
  CHECK_EQ_INT(m->ffn_matrices, 2);
  CHECK_EQ_INT(m->activation, WEFT_ACT_RELU2);
  CHECK_NEAR(weft_model_params(m), 15628775424.0, EXACT);
}

/* Each trait against the GeLU family it overrides (tests/fixtures/zoo/
 * traits*.yml; h 1024, 16 heads, 2 layers, FFN 4096, V 1000, s 128): no
 * biases drops Q, K, V, output (4h) and fc1, fc2 (4h + h) a layer, 2 x
 * 9216; RMSNorm a gain less in each of 5 norms, 5h; rotary positions drop
 * the learned table, s h; an untied output adds V h. */
static void test_family_traits(void) {
  WeftModel *base = malloc(sizeof *base), *t = malloc(sizeof *t);
  WeftError e;
  CHECK_EQ_INT(weft_model_read(FIX "traits_base.yml", base, &e), WEFT_OK);
  CHECK_EQ_INT(weft_model_read(FIX "traits.yml", t, &e), WEFT_OK);
  double h = 1024, diff = -2 * 9216 - 5 * h - 128 * h + 1000 * h;
  CHECK_NEAR(weft_model_params(t) - weft_model_params(base), diff, EXACT);
  free(base);
  free(t);
}

static void test_mixtral_moe_params(void) {
  const WeftModel *m = load("mixtral-8x7b");
  CHECK_EQ_INT(m->experts, 8);
  CHECK_EQ_INT(m->top_k, 2);
  CHECK_EQ_INT(m->moe_every, 1);
  /* h 4096, K/V width 8*128 = 1024, f 14336, 8 experts, every layer MoE:
   *   attention 2h^2 + 2*h*1024  = 33,554,432 + 8,388,608 =    41,943,040
   *   experts 8 * 3*h*f          = 8 * 176,160,768       = 1,409,286,144
   *   router h*8                 =                               32,768
   *   2 RMSNorms                 =                                8,192
   *   per layer                  =                        1,451,270,144
   *   x 32                       =                       46,440,644,608
   *   embedding + output 2*32000*h                      =   262,144,000
   *   final norm                 =                                4,096
   *   total                      =                       46,702,792,704 (published "47B") */
  CHECK_NEAR(weft_model_params(m), 46702792704.0, EXACT);
}

/* The rest of the GPT-family transformers by the closed form above, and the
 * LLaMA family by its own; each within the published size. */
static void test_other_transformers(void) {
  /* msft-1t: L 128, h 25600, V 51200, s 2048:
   *   12*128*25600^2 = 1,006,632,960,000; 13*128*25600 = 42,598,400;
   *   (51200+2048)*25600 = 1,363,148,800; 2h = 51,200 -> 1,008,038,758,400 */
  CHECK_NEAR(weft_model_params(load("msft-1t")), 1008038758400.0, EXACT);
  /* turing-nlg-17b: L 78, h 4256, V 50257, s 1024:
   *   12*78*4256^2 = 16,954,269,696; 13*78*4256 = 4,315,584;
   *   (50257+1024)*4256 = 218,251,936; 2h = 8,512 -> 17,176,845,728 */
  CHECK_NEAR(weft_model_params(load("turing-nlg-17b")), 17176845728.0, EXACT);
  /* bert-large: L 24, h 1024, V 30522, s 512:
   *   24*(12h^2 + 13h) = 302,309,376; (30522+512)*1024 = 31,778,816;
   *   2h = 2,048 -> 334,090,240 (HF's 335,141,888 adds token types, pooler) */
  CHECK_NEAR(weft_model_params(load("bert-large")), 334090240.0, EXACT);
  /* llama3-405b: h 16384, K/V 1024, f 53248, L 126, V 128256:
   *   per layer 2h^2 + 2h*1024 + 3hf + 2h = 536,870,912 + 33,554,432
   *            + 2,617,245,696 + 32,768 = 3,187,703,808; x126 = 401,650,679,808
   *   2Vh = 4,202,692,608; final h = 16,384 -> 405,853,388,800 */
  const WeftModel *m = load("llama3-405b");
  CHECK_NEAR(weft_model_params(m), 405853388800.0, EXACT);
  CHECK_EQ_INT(m->global_batch * m->seq_len, 16 * 1024 * 1024);  /* 16M tokens */
}

/* ------------------------------------------------------------------ CNNs */

static void test_resnet50(void) {
  const WeftModel *m = load("resnet50");
  CHECK_EQ_INT(m->arch, WEFT_ARCH_CNN);
  CHECK_EQ_INT(m->global_batch, 8192);
  CHECK_EQ_INT(m->nlayers, 54);  /* conv1 + 16 blocks x 3 + 4 projections + fc */
  /* torchvision's resnet50 has 25,557,032 parameters (BN gamma/beta included) */
  CHECK_NEAR(weft_model_params(m), 25557032.0, EXACT);
  const WeftModelLayer *c1 = &m->layer[0];
  CHECK(strcmp(c1->name, "conv1") == 0);
  CHECK_NEAR(c1->fwd_flops, 112.0 * 112 * 64 * 7 * 7 * 3 * 2, EXACT);  /* 236,027,904 */
  CHECK_NEAR(c1->params, 7.0 * 7 * 3 * 64 + 2 * 64, EXACT);            /* + BN: 9,536 */
  CHECK_NEAR(c1->act_elems, 112.0 * 112 * 64, EXACT);
  /* First block of conv3 (stride 2 on the 3x3, 56x56x256 in, 28x28x512 out):
   * a 1x1 256->128 at 56x56, b 3x3 128->128 at 28x28, c 1x1 128->512, proj
   * 1x1 256->512 at 28x28. */
  CHECK_NEAR(find_layer(m, "conv3.1a")->fwd_flops, 2.0 * 56 * 56 * 256 * 128, EXACT);
  CHECK_NEAR(find_layer(m, "conv3.1b")->fwd_flops, 2.0 * 28 * 28 * 9 * 128 * 128, EXACT);
  CHECK_NEAR(find_layer(m, "conv3.1proj")->params, 256.0 * 512 + 2 * 512, EXACT);
  CHECK_NEAR(find_layer(m, "conv3.1c")->act_elems, 28.0 * 28 * 512, EXACT);
  const WeftModelLayer *fc = &m->layer[53];
  CHECK(strcmp(fc->name, "fc") == 0);
  CHECK_NEAR(fc->params, 2048.0 * 1000 + 1000, EXACT);
  CHECK_NEAR(fc->fwd_flops, 2.0 * 2048 * 1000, EXACT);
  /* Multiply-adds by stage (v1.5), each block = a + b + c (+ proj):
   *   conv1                                          118,013,952
   *   conv2 (56x56)  231,211,008 + 2 x 218,365,952 = 667,942,912
   *   conv3 (28x28)  372,506,624 + 3 x 218,365,952 = 1,027,604,480
   *   conv4 (14x14)  372,506,624 + 5 x 218,365,952 = 1,464,336,384
   *   conv5 (7x7)    372,506,624 + 2 x 218,365,952 = 809,238,528
   *   fc 2048 x 1000                                  2,048,000
   *   total                                      4,089,184,256 (the "4.1 GMACs") */
  CHECK_NEAR(sum_flops(m), 2.0 * 4089184256.0, EXACT);
}

static void test_vgg16(void) {
  const WeftModel *m = load("vgg16");
  CHECK_EQ_INT(m->nlayers, 16);  /* 13 convs + 3 fc */
  CHECK_NEAR(weft_model_params(m), 138357544.0, EXACT);  /* torchvision's vgg16 */
  CHECK(strcmp(m->layer[1].name, "conv1_2") == 0);
  CHECK_NEAR(m->layer[0].params, 3.0 * 3 * 3 * 64 + 64, EXACT);  /* bias, no BN */
  CHECK_NEAR(m->layer[13].params, 25088.0 * 4096 + 4096, EXACT); /* fc6: 7*7*512 in */
  /* MACs: 224^2*(3*64 + 64*64)*9 = 1,936,392,192; 112^2*(64*128 + 128^2)*9 =
   * 2,774,532,096; 56^2*(128*256 + 2*256^2)*9 = 4,624,220,160; 28^2*(256*512
   * + 2*512^2)*9 = 4,624,220,160; 14^2*3*512^2*9 = 1,387,266,048; fc
   * 25088*4096 + 4096^2 + 4096*1000 = 123,633,664 -> 15,470,264,320 */
  CHECK_NEAR(sum_flops(m), 2.0 * 15470264320.0, EXACT);
}

static void test_resnet18_basic_blocks_by_path(void) {
  WeftModel *m = malloc(sizeof *m);
  WeftError e;
  CHECK_EQ_INT(weft_zoo_model(ZOO, FIX "resnet18.yml", m, &e), WEFT_OK);
  CHECK(strcmp(m->name, "resnet18") == 0);  /* no name key: the file's stem */
  CHECK(strcmp(m->title, "ResNet-18") == 0);
  CHECK_EQ_INT(m->nlayers, 21);             /* conv1 + 8 blocks x 2 + 3 projections + fc */
  CHECK_NEAR(weft_model_params(m), 11689512.0, EXACT);  /* torchvision's resnet18 */
  /* MACs: conv1 118,013,952; conv2 4 x 115,605,504 = 462,422,016; conv3..5
   * each 57,802,752 + 115,605,504 + 6,422,528 (proj) + 231,211,008 =
   * 411,041,792; fc 512,000 -> 1,814,073,344 */
  CHECK_NEAR(sum_flops(m), 2.0 * 1814073344.0, EXACT);
  CHECK_NEAR(find_layer(m, "conv3.1proj")->fwd_flops, 2.0 * 28 * 28 * 64 * 128, EXACT);
  free(m);
}

/* ------------------------------------------------------------------ DLRM */

static void test_dlrm(void) {
  const WeftModel *m = load("dlrm");
  CHECK_EQ_INT(m->arch, WEFT_ARCH_DLRM);
  CHECK_EQ_INT(m->tables, 26);
  CHECK_EQ_INT(m->emb_dim, 128);
  CHECK_EQ_INT(m->pooling, 1);
  CHECK_EQ_INT(m->nbottom, 3);
  CHECK_EQ_INT(m->nlayers, 8);
  /* (in, out) per layer: bottom 13-512-256-128; top input 27*26/2 + 128 = 479 */
  static const double shape[8][2] = {{13, 512},   {512, 256},  {256, 128}, {479, 1024},
                                     {1024, 1024}, {1024, 512}, {512, 256}, {256, 1}};
  double mlp = 0;
  for (int i = 0; i < 8; i++) {
    double in = shape[i][0], out = shape[i][1];
    CHECK_NEAR(m->layer[i].fwd_flops, 2 * in * out, EXACT);
    CHECK_NEAR(m->layer[i].params, in * out + out, EXACT);
    CHECK_NEAR(m->layer[i].act_elems, out, EXACT);
    mlp += in * out + out;
  }
  CHECK(strcmp(m->layer[0].name, "bottom1") == 0 && strcmp(m->layer[3].name, "top1") == 0);
  CHECK_NEAR(weft_model_params(m), 26.0 * m->table_rows * 128 + mlp, EXACT);
}

static void test_dlrm_tiny(void) {
  WeftModel *m = malloc(sizeof *m);
  WeftError e;
  CHECK_EQ_INT(weft_model_read(FIX "dlrm_tiny.yml", m, &e), WEFT_OK);
  CHECK_EQ_INT(m->pooling, 2);
  CHECK_EQ_INT(m->nbottom, 2);
  CHECK_EQ_INT(m->nlayers, 4);
  /* top input: 3 tables + the dense vector: 4*3/2 = 6 pairs, + dim 4 = 10 */
  CHECK_NEAR(m->layer[2].params, 10.0 * 6 + 6, EXACT);
  /* 3*100*4 = 1200 embedding + (5*8+8) + (8*4+4) + 66 + (6*1+1) = 1200 + 48 + 36 + 66 + 7 */
  CHECK_NEAR(weft_model_params(m), 1357.0, EXACT);
  free(m);
}

/* ------------------------------------------------------------------ zoo */

static void test_every_model_cites_a_source(void) {
  static char names[64][WEFT_NAME_LEN];
  int n;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_list(ZOO, names, 64, &n, &e), WEFT_OK);
  CHECK(n >= 10 && n <= 64);
  WeftModel *m = malloc(sizeof *m);
  for (int i = 0; i < n && i < 64; i++) {
    CHECK_EQ_INT(weft_zoo_model(ZOO, names[i], m, &e), WEFT_OK);
    CHECK(strcmp(m->name, names[i]) == 0);
    CHECK(strlen(m->source) > 10);
    CHECK(weft_model_params(m) > 0);
    if (i > 0) CHECK(strcmp(names[i - 1], names[i]) < 0);
  }
  free(m);
}

static void test_list_sorted_filtered(void) {
  char names[2][WEFT_NAME_LEN];
  int n = -1;
  WeftError e;
  /* alpha, beta, renamed: .hidden.yml and README.txt are skipped */
  CHECK_EQ_INT(weft_zoo_list(FIX "mini", names, 2, &n, &e), WEFT_OK);
  CHECK_EQ_INT(n, 3);  /* the total, though only 2 fit */
  CHECK(strcmp(names[0], "alpha") == 0);
  CHECK(strcmp(names[1], "beta") == 0);
  CHECK_EQ_INT(weft_zoo_list(FIX "mini", NULL, 0, &n, &e), WEFT_OK);
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(weft_zoo_list(FIX "nowhere", names, 2, &n, &e), WEFT_EIO);
  CHECK(strcmp(e.file, FIX "nowhere") == 0 && strstr(e.msg, "no model zoo here") &&
        strstr(e.msg, "WEFT_DATA"));
}

static void test_unknown_model_lists_available(void) {
  WeftModel *m = malloc(sizeof *m);
  WeftError e;
  CHECK_EQ_INT(weft_zoo_model(FIX "mini", "gamma", m, &e), WEFT_EINPUT);
  CHECK(strcmp(e.file, FIX "mini/models") == 0);
  CHECK(strstr(e.msg, "unknown model 'gamma'") != NULL);
  CHECK(strstr(e.msg, "available: alpha, beta, renamed") != NULL);
  /* a name key must match the file it is looked up by */
  CHECK_EQ_INT(weft_zoo_model(FIX "mini", "renamed", m, &e), WEFT_EINPUT);
  CHECK_EQ_INT(e.line, 1);
  CHECK(strcmp(e.field, "name") == 0);
  /* ... but a file read by path may be named freely */
  CHECK_EQ_INT(weft_zoo_model(NULL, FIX "mini/models/renamed.yml", m, &e), WEFT_OK);
  CHECK(strcmp(m->name, "other") == 0);
  CHECK_EQ_INT(weft_zoo_model(ZOO, "", m, &e), WEFT_EINVAL);
  /* without a name key, the name is the file name less its last extension */
  CHECK_EQ_INT(weft_model_read(FIX "tiny.v2.yml", m, &e), WEFT_OK);
  CHECK(strcmp(m->name, "tiny.v2") == 0);
  free(m);
}

static void test_devices(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device(ZOO, "a100", &d, &e), WEFT_OK);
  CHECK_NEAR(d.peak_flops, 312e12, EXACT);
  CHECK_NEAR(d.hbm_bytes, 80.0 * 1024 * 1024 * 1024, EXACT);
  CHECK_NEAR(d.hbm_bytes_per_s, 2039e9, EXACT);
  CHECK(d.source[0] != '\0' && d.title[0] != '\0');
  CHECK_EQ_INT(weft_zoo_device(ZOO, "a100-40gb", &d, &e), WEFT_OK);
  CHECK_NEAR(d.hbm_bytes, 40.0 * 1024 * 1024 * 1024, EXACT);
  CHECK_NEAR(d.hbm_bytes_per_s, 1555e9, EXACT);
  CHECK_EQ_INT(weft_zoo_device(ZOO, "h100", &d, &e), WEFT_OK);
  CHECK_NEAR(d.peak_flops, 989e12, EXACT);
  CHECK_NEAR(d.hbm_bytes_per_s, 3350e9, EXACT);
  CHECK_EQ_INT(weft_zoo_device(ZOO, "v100", &d, &e), WEFT_OK);
  CHECK_NEAR(d.peak_flops, 125e12, EXACT);
  CHECK_NEAR(d.hbm_bytes, 32.0 * 1024 * 1024 * 1024, EXACT);
  CHECK_EQ_INT(weft_zoo_device(ZOO, "npu9", &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "unknown device 'npu9' (available: a100, a100-40gb, h100, v100") != NULL);
  /* file order; title defaults to the name; units converted */
  WeftDevice all[1];
  int n;
  CHECK_EQ_INT(weft_zoo_devices(FIX "mini", all, 1, &n, &e), WEFT_OK);
  CHECK_EQ_INT(n, 2);
  CHECK(strcmp(all[0].name, "tiny") == 0);
  CHECK_NEAR(all[0].peak_flops, 1.5e12, EXACT);
  CHECK_NEAR(all[0].hbm_bytes, 512.0 * 1024 * 1024, EXACT);
  CHECK_EQ_INT(weft_zoo_device(FIX "mini", "big", &d, &e), WEFT_OK);
  CHECK(strcmp(d.title, "big") == 0);
  /* every entry is checked, even when another one is asked for */
  CHECK_EQ_INT(weft_zoo_device(FIX "baddev", "ok", &d, &e), WEFT_EINPUT);
  CHECK_EQ_INT(e.line, 4);
  CHECK(strcmp(e.field, "hbm_gib") == 0);
  CHECK(strstr(e.msg, "hbm_gib must be > 0") != NULL);
}

/* ------------------------------------------------------------------ bad files */

static void check_bad(const char *file, int line, const char *field, const char *msg) {
  WeftModel *m = malloc(sizeof *m);
  WeftError e;
  char path[WEFT_PATH_LEN];
  snprintf(path, sizeof path, FIX "%s", file);
  weft_error_clear(&e);
  int rc = weft_model_read(path, m, &e);
  if (rc != WEFT_EINPUT || strcmp(e.file, path) != 0 || e.line != line ||
      strcmp(e.field, field) != 0 || !strstr(e.msg, msg)) {
    fprintf(stderr, "  %s: rc %d, %s:%d field '%s': %s\n", file, rc, e.file, e.line, e.field,
            e.msg);
    test_failures_++;
  }
  free(m);
}

static void test_bad_model_files(void) {
  check_bad("bad_unknown_key.yml", 6, "hiden", "unknown key 'hiden' (did you mean 'hidden'?)");
  check_bad("bad_missing_key.yml", 2, "vocab", "missing key 'vocab'");
  check_bad("bad_negative.yml", 5, "hidden", "hidden must be > 0, got -256");
  /* an integer too big says so, with the range (it said "must be an integer") */
  check_bad("bad_int_range.yml", 5, "hidden",
            "hidden is out of range: must be an integer from -2147483648 to 2147483647, got "
            "'9223372036854775807'");
  check_bad("bad_heads.yml", 6, "heads", "heads (16) must divide hidden (1000)");
  check_bad("bad_kv_heads.yml", 7, "kv_heads", "kv_heads (6) must divide heads (16)");
  check_bad("bad_swiglu_no_ffn.yml", 1, "ffn_hidden", "required with ffn: swiglu");
  check_bad("bad_moe_top_k.yml", 9, "top_k", "top_k (5) must not exceed experts (4)");
  check_bad("bad_arch.yml", 1, "arch", "arch must be transformer, dlrm or cnn, got 'rnn'");
  check_bad("bad_too_many_layers.yml", 7, "layers", "more than 128 layers");
  check_bad("bad_cnn_kind.yml", 6, "layers", "layers entry 2: expected one of conv");
  check_bad("bad_cnn_shrink.yml", 10, "maxpool", "maxpool 2 does not fit the 1x1 input");
  check_bad("bad_dlrm_dim.yml", 6, "bottom_mlp", "last width (32) must equal embeddings dim (16)");
  check_bad("bad_dropout.yml", 9, "hidden_dropout", "hidden_dropout");
  check_bad("bad_ffn.yml", 8, "ffn", "ffn must be gelu, swiglu or relu2, got 'relu'");
  check_bad("bad_norm.yml", 8, "norm", "norm must be layernorm or rmsnorm, got 'batchnorm'");
  check_bad("bad_positions.yml", 9, "positions", "positions must be rotary or learned");
  check_bad("bad_bias.yml", 8, "bias", "bias");
  WeftModel *m = malloc(sizeof *m);
  WeftError e;
  CHECK_EQ_INT(weft_model_read(FIX "no-such.yml", m, &e), WEFT_EIO);
  free(m);
}

/* The same file, whatever links lead to it. */
static int same_file(const char *a, const char *b) {
  struct stat x, y;
  return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Where the data is: $WEFT_ZOO as given; else $WEFT_DATA (zoo/ in it);
 * else, for this program (build/test_unit of the source tree, run from its
 * root), the source tree's data/ beside it: <cwd>/data. A directory that is
 * no zoo is refused naming the variables to set. */
static void test_data_dir(void) {
  char out[WEFT_PATH_LEN], want[WEFT_PATH_LEN + 8], cwd[WEFT_PATH_LEN];
  const char *zoo = getenv("WEFT_ZOO"), *data = getenv("WEFT_DATA");
  char keep_zoo[WEFT_PATH_LEN] = "", keep_data[WEFT_PATH_LEN] = "";
  if (zoo) snprintf(keep_zoo, sizeof keep_zoo, "%s", zoo);
  if (data) snprintf(keep_data, sizeof keep_data, "%s", data);
  WeftError e;
  unsetenv("WEFT_ZOO");
  unsetenv("WEFT_DATA");
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  snprintf(want, sizeof want, "%s/data", cwd);
  CHECK_EQ_INT(weft_data_dir(out, sizeof out, &e), WEFT_OK);
  CHECK(same_file(out, want));
  CHECK_EQ_INT(weft_zoo_dir(out, sizeof out, &e), WEFT_OK);
  CHECK(same_file(out, strcat(want, "/zoo")));
  setenv("WEFT_DATA", "/elsewhere/weft", 1);
  CHECK_EQ_INT(weft_zoo_dir(out, sizeof out, &e), WEFT_OK);
  CHECK(strcmp(out, "/elsewhere/weft/zoo") == 0);
  setenv("WEFT_ZOO", "tests/fixtures/zoo", 1);
  CHECK_EQ_INT(weft_zoo_dir(out, sizeof out, &e), WEFT_OK);
  CHECK(strcmp(out, "tests/fixtures/zoo") == 0);
  CHECK_EQ_INT(weft_zoo_dir(out, 4, &e), WEFT_EINVAL);
  WeftModel m;
  CHECK_EQ_INT(weft_zoo_model("/elsewhere/weft/zoo", "gpt3-175b", &m, &e), WEFT_EIO);
  CHECK(!strcmp(e.file, "/elsewhere/weft/zoo") && strstr(e.msg, "$WEFT_ZOO tests/fixtures/zoo") &&
        strstr(e.msg, "$WEFT_DATA /elsewhere/weft/zoo") && strstr(e.msg, weft_data_prefix()));
  if (keep_zoo[0]) setenv("WEFT_ZOO", keep_zoo, 1); else unsetenv("WEFT_ZOO");
  if (keep_data[0]) setenv("WEFT_DATA", keep_data, 1); else unsetenv("WEFT_DATA");
}

const TestCase suite_zoo[] = {
    {"zoo_data_dir", test_data_dir},
    {"zoo_gpt3_params", test_gpt3_params},
    {"zoo_llama2_gqa_swiglu_params", test_llama2_gqa_swiglu_params},
    {"zoo_mixtral_moe_params", test_mixtral_moe_params},
    {"zoo_nemotron4_params", test_nemotron4_params},
    {"zoo_family_traits", test_family_traits},
    {"zoo_other_transformers", test_other_transformers},
    {"zoo_resnet50", test_resnet50},
    {"zoo_vgg16", test_vgg16},
    {"zoo_resnet18_basic_blocks_by_path", test_resnet18_basic_blocks_by_path},
    {"zoo_dlrm", test_dlrm},
    {"zoo_dlrm_tiny", test_dlrm_tiny},
    {"zoo_every_model_cites_a_source", test_every_model_cites_a_source},
    {"zoo_list_sorted_filtered", test_list_sorted_filtered},
    {"zoo_unknown_model_lists_available", test_unknown_model_lists_available},
    {"zoo_devices", test_devices},
    {"zoo_bad_model_files", test_bad_model_files},
    {0, 0},
};
