/* zoo_cnn.c — CNN model files: the compact layer list (conv, fc, pools,
 * ResNet bottleneck and basic stages) expanded into weight layers. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/zoo.h"

/* The activation flowing through the network, per sample. */
typedef struct {
  long long h, w, c;
} Shape;

typedef struct {
  WeftModel *m;
  const char *file;
  int bn;   /* batch_norm: the model's default for conv layers */
  Shape s;  /* current activation */
} Cnn;

enum { K_CONV, K_FC, K_MAXPOOL, K_AVGPOOL, K_BOTTLENECK, K_BASIC, K_COUNT };
static const char *const KIND[K_COUNT] = {"conv", "fc", "maxpool", "avgpool", "bottleneck",
                                          "basic"};
static const char *const CONV_KEYS[] = {"conv", "kernel", "stride", "pad", "name", "repeat",
                                        "bn", NULL};
static const char *const FC_KEYS[] = {"fc", "name", NULL};
static const char *const MAXPOOL_KEYS[] = {"maxpool", "stride", "pad", NULL};
static const char *const AVGPOOL_KEYS[] = {"avgpool", "stride", "pad", NULL};
static const char *const BOTTLENECK_KEYS[] = {"bottleneck", "blocks", "stride", "expansion",
                                              "name", NULL};
static const char *const BASIC_KEYS[] = {"basic", "blocks", "stride", "name", NULL};
static const char *const *const KEYS[K_COUNT] = {CONV_KEYS,    FC_KEYS,         MAXPOOL_KEYS,
                                                 AVGPOOL_KEYS, BOTTLENECK_KEYS, BASIC_KEYS};

#define NAME_MAX_LEN 48  /* leaves room for the ".12proj" / "_3" suffixes */

static int boolean(const WeftYamlNode *map, const char *key, int def, const char *file, int *out,
                   WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  *out = def;
  if (!v) return WEFT_OK;
  if (v->kind == WEFT_YAML_SCALAR && strcasecmp(v->text, "true") == 0) *out = 1;
  else if (v->kind == WEFT_YAML_SCALAR && strcasecmp(v->text, "false") == 0) *out = 0;
  else {
    char got[96];
    weft_yaml_describe(v, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key,
                          "%s must be true or false, got %s", key, got);
  }
  return WEFT_OK;
}

/* An integer >= 0 (padding); def when absent. */
static int nonneg(const WeftYamlNode *map, const char *key, int def, const char *file, int *out,
                  WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  *out = def;
  if (!v) return WEFT_OK;
  int rc = weft_yaml_int(v, file, key, NULL, out, err);
  if (rc) return rc;
  if (*out < 0)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key,
                          "%s must be >= 0, got %d", key, *out);
  return WEFT_OK;
}

/* The entry's `name`, or kind + entry number ("conv3"). */
static int entry_name(const WeftYamlNode *e, int kind, int index, const char *file, char *out,
                      WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(e, "name", NULL);
  if (!v) {
    snprintf(out, NAME_MAX_LEN + 1, "%s%d", KIND[kind], index);
    return WEFT_OK;
  }
  if (v->kind != WEFT_YAML_SCALAR || v->len == 0 || v->len > NAME_MAX_LEN) {
    char got[96];
    weft_yaml_describe(v, got, sizeof got);
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "name",
                          "name must have 1 to %d characters, got %s", NAME_MAX_LEN, got);
  }
  memcpy(out, v->text, v->len + 1);
  return WEFT_OK;
}

/* Output side of a k-wide window at stride over n padded by pad on each
 * side, or 0 when the window does not fit. */
static long long out_side(long long n, int k, int stride, int pad) {
  long long span = n + 2LL * pad;
  return span < k ? 0 : (span - k) / stride + 1;
}

/* A k x k convolution of in to cout channels: 2 FLOPs per multiply-add;
 * k*k*cin*cout weights plus batch-norm gamma and beta (bn) or a bias. */
static int conv(Cnn *c, const char *name, Shape in, int cout, int k, int stride, int pad, int bn,
                const WeftYamlNode *at, Shape *out, WeftError *err) {
  Shape o = {out_side(in.h, k, stride, pad), out_side(in.w, k, stride, pad), cout};
  if (o.h == 0 || o.w == 0)
    return weft_error_set(err, WEFT_EINPUT, c->file, at->line, at->col, "layers",
                          "%s: kernel %d does not fit the %lldx%lld input padded by %d", name, k,
                          in.h, in.w, pad);
  double kk = (double)k * k, spatial = (double)o.h * (double)o.w;
  double flops = 2.0 * spatial * cout * kk * (double)in.c;
  double params = kk * (double)in.c * cout + (bn ? 2.0 * cout : cout);
  *out = o;
  return weft_zoo_layer(c->m, name, flops, params, spatial * cout, c->file, at, "layers", err);
}

static int read_conv(Cnn *c, const WeftYamlNode *e, const char *name, WeftError *err) {
  int cout, k = 1, stride, pad, repeat, bn, rc;
  if ((rc = weft_zoo_int(e, "conv", 0, c->file, &cout, err)) ||
      (rc = weft_zoo_int(e, "kernel", 0, c->file, &k, err)) ||
      (rc = weft_zoo_int(e, "stride", 1, c->file, &stride, err)) ||
      (rc = nonneg(e, "pad", (k - 1) / 2, c->file, &pad, err)) ||  /* "same" at stride 1 */
      (rc = weft_zoo_int(e, "repeat", 1, c->file, &repeat, err)) ||
      (rc = boolean(e, "bn", c->bn, c->file, &bn, err)))
    return rc;
  for (int r = 1; r <= repeat && !rc; r++) {
    char full[WEFT_NAME_LEN];
    if (repeat > 1) snprintf(full, sizeof full, "%s_%d", name, r);
    else snprintf(full, sizeof full, "%s", name);
    rc = conv(c, full, c->s, cout, k, stride, pad, bn, e, &c->s, err);
  }
  return rc;
}

static int read_fc(Cnn *c, const WeftYamlNode *e, const char *name, WeftError *err) {
  int out, rc = weft_zoo_int(e, "fc", 0, c->file, &out, err);
  if (rc) return rc;
  double in = (double)c->s.h * (double)c->s.w * (double)c->s.c;  /* flattened */
  c->s = (Shape){1, 1, out};
  return weft_zoo_layer(c->m, name, 2.0 * in * out, in * out + out, out, c->file, e, "layers", err);
}

/* maxpool/avgpool: no weights, only the spatial size changes. */
static int read_pool(Cnn *c, const WeftYamlNode *e, int kind, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(e, KIND[kind], NULL);
  int k = 1, stride, pad, rc;
  if (v->kind == WEFT_YAML_SCALAR && strcmp(v->text, "global") == 0) {
    if (weft_yaml_get(e, "stride", NULL) || weft_yaml_get(e, "pad", NULL))
      return weft_error_set(err, WEFT_EINPUT, c->file, e->line, e->col, KIND[kind],
                            "a global %s takes no stride or pad", KIND[kind]);
    c->s.h = c->s.w = 1;
    return WEFT_OK;
  }
  if ((rc = weft_zoo_int(e, KIND[kind], 0, c->file, &k, err)) ||
      (rc = weft_zoo_int(e, "stride", k, c->file, &stride, err)) ||
      (rc = nonneg(e, "pad", 0, c->file, &pad, err)))
    return rc;
  Shape o = {out_side(c->s.h, k, stride, pad), out_side(c->s.w, k, stride, pad), c->s.c};
  if (o.h == 0 || o.w == 0)
    return weft_error_set(err, WEFT_EINPUT, c->file, v->line, v->col, KIND[kind],
                          "%s %d does not fit the %lldx%lld input padded by %d", KIND[kind], k,
                          c->s.h, c->s.w, pad);
  c->s = o;
  return WEFT_OK;
}

/* A ResNet stage of blocks: bottleneck (1x1 to width, 3x3, 1x1 to
 * width*expansion) or basic (two 3x3); the stride on the first block's 3x3
 * (torchvision, "ResNet v1.5"), a 1x1 projection on the first block when the
 * shape changes. Layers "<name>.<block><a|b|c|proj>". */
static int read_stage(Cnn *c, const WeftYamlNode *e, int kind, const char *name, WeftError *err) {
  int width, blocks, stride, expansion = 1, rc;
  if ((rc = weft_zoo_int(e, KIND[kind], 0, c->file, &width, err)) ||
      (rc = weft_zoo_int(e, "blocks", 0, c->file, &blocks, err)) ||
      (rc = weft_zoo_int(e, "stride", 1, c->file, &stride, err)) ||
      (kind == K_BOTTLENECK && (rc = weft_zoo_int(e, "expansion", 4, c->file, &expansion, err))))
    return rc;
  if ((long long)width * expansion > 0x7fffffff)
    return weft_error_set(err, WEFT_EINPUT, c->file, e->line, e->col, KIND[kind],
                          "%s width times expansion is out of range", KIND[kind]);
  int cout = width * expansion;
  for (int b = 1; b <= blocks; b++) {
    char n[4][WEFT_NAME_LEN];
    static const char *const part[4] = {"a", "b", "c", "proj"};
    for (int i = 0; i < 4; i++) snprintf(n[i], WEFT_NAME_LEN, "%s.%d%s", name, b, part[i]);
    Shape in = c->s, sa, sb, sp;
    int st = b == 1 ? stride : 1;
    if (kind == K_BOTTLENECK) {
      if ((rc = conv(c, n[0], in, width, 1, 1, 0, c->bn, e, &sa, err)) ||
          (rc = conv(c, n[1], sa, width, 3, st, 1, c->bn, e, &sb, err)) ||
          (rc = conv(c, n[2], sb, cout, 1, 1, 0, c->bn, e, &c->s, err)))
        return rc;
    } else if ((rc = conv(c, n[0], in, width, 3, st, 1, c->bn, e, &sa, err)) ||
               (rc = conv(c, n[1], sa, width, 3, 1, 1, c->bn, e, &c->s, err))) {
      return rc;
    }
    if ((st != 1 || in.c != cout) &&
        (rc = conv(c, n[3], in, cout, 1, st, 0, c->bn, e, &sp, err)))
      return rc;
  }
  return WEFT_OK;
}

/* Which kind an entry is: exactly one of the kind keys. */
static int entry_kind(const WeftYamlNode *e, int index, const char *file, int *kind,
                      WeftError *err) {
  int found = -1;
  for (int k = 0; k < K_COUNT; k++) {
    const WeftYamlNode *key;
    if (!weft_yaml_get(e, KIND[k], &key)) continue;
    if (found >= 0)
      return weft_error_set(err, WEFT_EINPUT, file, key->line, key->col, KIND[k],
                            "layers entry %d has both '%s' and '%s'", index, KIND[found], KIND[k]);
    found = k;
  }
  if (found < 0)
    return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, "layers",
                          "layers entry %d: expected one of conv, fc, maxpool, avgpool, "
                          "bottleneck, basic",
                          index);
  *kind = found;
  return WEFT_OK;
}

int weft_zoo_cnn(const WeftYamlNode *root, const char *file, WeftModel *m, WeftError *err) {
  Cnn c = {m, file, 1, {0, 0, 0}};
  int in[3], n, rc;
  const WeftYamlNode *iv = weft_yaml_get(root, "input", NULL);
  const WeftYamlNode *lv = weft_yaml_get(root, "layers", NULL);
  if (!iv)
    return weft_error_set(err, WEFT_EINPUT, file, root->line, root->col, "input",
                          "missing key 'input' ([height, width, channels])");
  if (!lv)
    return weft_error_set(err, WEFT_EINPUT, file, root->line, root->col, "layers",
                          "missing key 'layers'");
  if ((rc = weft_yaml_ints(iv, file, "input", in, 3, &n, err))) return rc;
  if (n != 3 || in[0] <= 0 || in[1] <= 0 || in[2] <= 0)
    return weft_error_set(err, WEFT_EINPUT, file, iv->line, iv->col, "input",
                          "input must be [height, width, channels], each > 0");
  c.s = (Shape){in[0], in[1], in[2]};
  if ((rc = boolean(root, "batch_norm", 1, file, &c.bn, err)) ||
      (rc = weft_yaml_expect(lv, WEFT_YAML_SEQUENCE, file, "layers", err)))
    return rc;
  for (int i = 0; i < lv->n; i++) {
    const WeftYamlNode *e = lv->child[i];
    char name[NAME_MAX_LEN + 1];
    int kind = K_CONV;
    if ((rc = weft_yaml_expect(e, WEFT_YAML_MAPPING, file, "layers", err)) ||
        (rc = entry_kind(e, i + 1, file, &kind, err)) ||
        (rc = weft_yaml_check_keys(e, KEYS[kind], file, err)) ||
        (rc = entry_name(e, kind, i + 1, file, name, err)))
      return rc;
    switch (kind) {
      case K_CONV: rc = read_conv(&c, e, name, err); break;
      case K_FC: rc = read_fc(&c, e, name, err); break;
      case K_MAXPOOL:
      case K_AVGPOOL: rc = read_pool(&c, e, kind, err); break;
      default: rc = read_stage(&c, e, kind, name, err); break;
    }
    if (rc) return rc;
  }
  if (m->nlayers == 0)
    return weft_error_set(err, WEFT_EINPUT, file, lv->line, lv->col, "layers",
                          "layers has no conv, fc, bottleneck or basic entry");
  return WEFT_OK;
}
