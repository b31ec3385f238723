/* test_io.c — the input layer: YAML tree, LIBRA network/cost/communicator,
 * ASTRA-sim workload text and weft's scenario; every bad input's place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test.h"
#include "io/yaml.h"
#include "weft.h"

#define FIX "tests/fixtures/"

/* ------------------------------------------------------------------ helpers */

/* Scratch files live in one temporary directory per test; tmp_cleanup()
 * removes them. */
static char tmp_dir[64];
static char tmp_names[32][WEFT_PATH_LEN];
static int tmp_count;

static const char *tmp_path(const char *name) {
  static char path[WEFT_PATH_LEN];
  if (!tmp_dir[0]) {
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/weft-io-XXXXXX");
    if (!mkdtemp(tmp_dir)) {
      fprintf(stderr, "  cannot create a temporary directory\n");
      exit(2);
    }
  }
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  return path;
}

static const char *write_tmp(const char *name, const char *text) {
  const char *path = tmp_path(name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "  cannot write %s\n", path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
  int seen = 0;
  for (int i = 0; i < tmp_count; i++) seen |= strcmp(tmp_names[i], path) == 0;
  if (!seen && tmp_count < 32) snprintf(tmp_names[tmp_count++], WEFT_PATH_LEN, "%s", path);
  return path;
}

static void tmp_cleanup(void) {
  for (int i = 0; i < tmp_count; i++) remove(tmp_names[i]);
  tmp_count = 0;
  if (tmp_dir[0]) rmdir(tmp_dir);
  tmp_dir[0] = '\0';
}

/* rc and err must match: code, file, line; col, field, msg part when given
 * (col < 0, field or msg NULL: not checked). */
static void check_err(int at, int rc, const WeftError *e, int code, const char *file, int line,
                      int col, const char *field, const char *msg) {
  char buf[1024];
  int ok = rc == code && e->code == code && strcmp(e->file, file) == 0 && e->line == line &&
           (col < 0 || e->col == col) && (!field || strcmp(e->field, field) == 0) &&
           (!msg || strstr(e->msg, msg));
  if (!ok) {
    fprintf(stderr, "  %s:%d: got rc %d code %d field '%s' \"%s\"\n", __FILE__, at, rc, e->code,
            e->field, weft_error_format(e, buf, sizeof buf));
    fprintf(stderr, "    expected code %d at %s:%d:%d field '%s' msg ~ \"%s\"\n", code, file,
            line, col, field ? field : "*", msg ? msg : "*");
    test_failures_++;
  }
}
#define CHECK_ERR(rc, e, code, file, line, col, field, msg) \
  check_err(__LINE__, rc, e, code, file, line, col, field, msg)

/* ------------------------------------------------------------------ yaml */

static void yaml_tree(void) {
  const char *text =
      "# comment\n"
      "a: 1\n"
      "list: [x, 'y z', \"w\\tv\"]\n"
      "map:\n"
      "  k: -2.5\n"
      "  seq:\n"
      "    - 3\n";
  WeftYamlNode *root;
  WeftError e;
  CHECK_EQ_INT(weft_yaml_load_string(text, strlen(text), "t.yml", &root, &e), WEFT_OK);
  if (!root) return;
  CHECK(root->kind == WEFT_YAML_MAPPING && root->n == 3);
  const WeftYamlNode *k, *v = weft_yaml_get(root, "a", &k);
  CHECK(v && v->kind == WEFT_YAML_SCALAR && strcmp(v->text, "1") == 0);
  CHECK(k && k->line == 2 && k->col == 1 && v->line == 2 && v->col == 4 && v->value_col == 4);
  const WeftYamlNode *list = weft_yaml_get(root, "nope|list", NULL);
  CHECK(list && list->kind == WEFT_YAML_SEQUENCE && list->n == 3 && list->line == 3);
  if (list && list->n == 3) {
    CHECK(strcmp(list->child[1]->text, "y z") == 0 && list->child[1]->col == 11);
    CHECK_EQ_INT(list->child[1]->value_col, 12);  /* inside the quotes */
    CHECK(strcmp(list->child[2]->text, "w\tv") == 0);
    CHECK_EQ_INT(list->child[2]->value_col, 0);   /* an escape: no verbatim column */
  }
  const WeftYamlNode *map = weft_yaml_get(root, "map", NULL);
  double d = 0;
  int i = 0, n = 0, ints[4];
  CHECK(map && weft_yaml_double(weft_yaml_get(map, "k", NULL), "t.yml", "k", NULL, &d, &e) == 0);
  CHECK(d == -2.5);
  const WeftYamlNode *seq = weft_yaml_get(map, "seq", NULL);
  CHECK(seq && seq->line == 7 && seq->col == 5);
  CHECK_EQ_INT(weft_yaml_ints(seq, "t.yml", "seq", ints, 4, &n, &e), WEFT_OK);
  CHECK(n == 1 && ints[0] == 3);
  CHECK_EQ_INT(weft_yaml_int(v, "t.yml", "a", NULL, &i, &e), WEFT_OK);
  CHECK_EQ_INT(i, 1);
  CHECK(weft_yaml_get(root, "missing", NULL) == NULL);
  CHECK(weft_yaml_get(v, "a", NULL) == NULL);  /* not a mapping */
  weft_yaml_free(root);

  CHECK_EQ_INT(weft_yaml_load_string("# nothing\n", 10, "e.yml", &root, &e), WEFT_OK);
  CHECK(root == NULL);
  weft_yaml_free(NULL);
}

static void yaml_syntax_errors(void) {
  static const struct {
    const char *text;
    int code, line, col;
    const char *msg;
  } cases[] = {
      {"a: [1, 2\nb: 3\n", WEFT_ESYNTAX, 2, 2, "did not find expected ',' or ']'"},
      {"a: 1\n b: 2\n", WEFT_ESYNTAX, 2, 3, "mapping values are not allowed in this context"},
      {"a: 'open\n", WEFT_ESYNTAX, 2, 1, "found unexpected end of stream"},
      {"a: \"x\xff\"\n", WEFT_ESYNTAX, 1, 6, "invalid"},  /* reader error: bad utf-8 */
      {"a: &x 1\nb: *x\n", WEFT_EINPUT, 2, 4, "aliases"},
      {"a: 1\na: 2\n", WEFT_EINPUT, 2, 1, "duplicate key 'a' (first at line 1)"},
      {"[a]: 1\n", WEFT_EINPUT, 1, 1, "mapping keys"},
      {"a: 1\n---\nb: 2\n", WEFT_EINPUT, 2, 1, "one yaml document"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    WeftYamlNode *root = (WeftYamlNode *)&root;  /* must be reset to NULL */
    WeftError e;
    int rc = weft_yaml_load_string(cases[c].text, strlen(cases[c].text), "s.yml", &root, &e);
    CHECK_ERR(rc, &e, cases[c].code, "s.yml", cases[c].line, cases[c].col, NULL, cases[c].msg);
    CHECK(root == NULL);
  }
  /* nesting bound */
  char deep[300];
  memset(deep, '[', 200);
  deep[200] = '\0';
  WeftYamlNode *root;
  WeftError e;
  CHECK_ERR(weft_yaml_load_string(deep, 200, "d.yml", &root, &e), &e, WEFT_EINPUT, "d.yml", 1, 65,
            NULL, "nested deeper");
  /* unknown keys, with a suggestion when close; two spellings of one key */
  static const char *const allowed[] = {"Topology|topology", "NpusCount", NULL};
  const char *t1 = "Topolgy: 1\n";
  CHECK_EQ_INT(weft_yaml_load_string(t1, strlen(t1), "k.yml", &root, &e), WEFT_OK);
  CHECK_ERR(weft_yaml_check_keys(root, allowed, "k.yml", &e), &e, WEFT_EINPUT, "k.yml", 1, 1,
            "Topolgy", "unknown key 'Topolgy' (did you mean 'Topology'?)");
  weft_yaml_free(root);
  const char *t2 = "NpusCount: 1\nbandwidth: 2\n";
  CHECK_EQ_INT(weft_yaml_load_string(t2, strlen(t2), "k.yml", &root, &e), WEFT_OK);
  CHECK_ERR(weft_yaml_check_keys(root, allowed, "k.yml", &e), &e, WEFT_EINPUT, "k.yml", 2, 1,
            "bandwidth", "unknown key 'bandwidth'");
  CHECK(strstr(e.msg, "did you mean") == NULL);
  weft_yaml_free(root);
  const char *t3 = "Topology: 1\ntopology: 2\n";
  CHECK_EQ_INT(weft_yaml_load_string(t3, strlen(t3), "k.yml", &root, &e), WEFT_OK);
  CHECK_ERR(weft_yaml_check_keys(root, allowed, "k.yml", &e), &e, WEFT_EINPUT, "k.yml", 2, 1,
            "topology", "duplicate key 'topology' (same as 'Topology' at line 1)");
  weft_yaml_free(root);
}

static void yaml_numbers(void) {
  static const struct {
    const char *text;
    int ok;
    double val;
  } dbl[] = {
      {"1.5", 1, 1.5},     {"-2", 1, -2.0},  {"1e3", 1, 1000.0}, {"+.5", 1, 0.5},
      {"805306368", 1, 805306368.0},          {"nan", 0, 0},     {".nan", 0, 0},
      {".NaN", 0, 0},      {".inf", 0, 0},   {"-.Inf", 0, 0},    {"inf", 0, 0},
      {"Infinity", 0, 0},  {"1e999", 0, 0},  {"-1e999", 0, 0},   {"0x10", 0, 0},
      {"1.5abc", 0, 0},    {"1_000", 0, 0},  {"", 0, 0},         {"e5", 0, 0},
      {"1e", 0, 0},        {"--1", 0, 0},    {"~", 0, 0},
  };
  for (size_t c = 0; c < sizeof dbl / sizeof dbl[0]; c++) {
    char text[64];
    snprintf(text, sizeof text, "v: %s\n", dbl[c].text);
    WeftYamlNode *root;
    WeftError e;
    CHECK_EQ_INT(weft_yaml_load_string(text, strlen(text), "n.yml", &root, &e), WEFT_OK);
    double d = -7;
    int rc = weft_yaml_double(weft_yaml_get(root, "v", NULL), "n.yml", "v", NULL, &d, &e);
    if (dbl[c].ok) {
      CHECK_EQ_INT(rc, WEFT_OK);
      CHECK(d == dbl[c].val);
    } else {
      CHECK_ERR(rc, &e, WEFT_EINPUT, "n.yml", 1, -1, "v", NULL);
      CHECK(d == -7);  /* untouched */
      int nonfinite = strstr(dbl[c].text, "nan") || strstr(dbl[c].text, "NaN") ||
                      strstr(dbl[c].text, "nf") || strstr(dbl[c].text, "999");
      if (nonfinite && !strstr(e.msg, "must be a finite number")) {
        fprintf(stderr, "  '%s': %s\n", dbl[c].text, e.msg);
        test_failures_++;
      }
    }
    weft_yaml_free(root);
  }
  static const struct {
    const char *text;
    int ok, val;
    const char *msg;
  } in[] = {
      {"4", 1, 4, NULL},         {"-1", 1, -1, NULL},
      {"4.0", 0, 0, "must be an integer, got '4.0'"},
      {"1e3", 0, 0, "must be an integer"},
      {"99999999999", 0, 0, "out of range"},
      {".inf", 0, 0, "must be a finite number"},
      {"eight", 0, 0, "must be a number, got 'eight'"},
      {"[1]", 0, 0, "must be a number, got a sequence"},
  };
  for (size_t c = 0; c < sizeof in / sizeof in[0]; c++) {
    char text[64];
    snprintf(text, sizeof text, "v: %s\n", in[c].text);
    WeftYamlNode *root;
    WeftError e;
    CHECK_EQ_INT(weft_yaml_load_string(text, strlen(text), "n.yml", &root, &e), WEFT_OK);
    int v = 0;
    int rc = weft_yaml_int(weft_yaml_get(root, "v", NULL), "n.yml", "v", NULL, &v, &e);
    if (in[c].ok) {
      CHECK_EQ_INT(rc, WEFT_OK);
      CHECK_EQ_INT(v, in[c].val);
    } else {
      CHECK_ERR(rc, &e, WEFT_EINPUT, "n.yml", 1, 4, "v", in[c].msg);
    }
    weft_yaml_free(root);
  }
  /* sequences: entry errors at the entry; length bounds */
  const char *text = "a: [1, 2.5, 3]\nb:\n  - 1\n  - .nan\nc: []\nd: 5\n";
  WeftYamlNode *root;
  WeftError e;
  double d[4];
  int n = 0, iv[4];
  CHECK_EQ_INT(weft_yaml_load_string(text, strlen(text), "q.yml", &root, &e), WEFT_OK);
  CHECK_EQ_INT(weft_yaml_doubles(weft_yaml_get(root, "a", NULL), "q.yml", "a", d, 4, &n, &e), 0);
  CHECK(n == 3 && d[0] == 1.0 && d[1] == 2.5 && d[2] == 3.0);
  CHECK_ERR(weft_yaml_doubles(weft_yaml_get(root, "a", NULL), "q.yml", "a", d, 2, &n, &e), &e,
            WEFT_EINPUT, "q.yml", 1, 4, "a", "a must have 1 to 2 entries, got 3");
  CHECK_ERR(weft_yaml_ints(weft_yaml_get(root, "a", NULL), "q.yml", "a", iv, 4, &n, &e), &e,
            WEFT_EINPUT, "q.yml", 1, 8, "a", "a entry 2 must be an integer, got '2.5'");
  CHECK_ERR(weft_yaml_doubles(weft_yaml_get(root, "b", NULL), "q.yml", "b", d, 4, &n, &e), &e,
            WEFT_EINPUT, "q.yml", 4, 5, "b", "b entry 2 must be a finite number, got '.nan'");
  CHECK_ERR(weft_yaml_ints(weft_yaml_get(root, "c", NULL), "q.yml", "c", iv, 4, &n, &e), &e,
            WEFT_EINPUT, "q.yml", 5, 4, "c", "got 0");
  CHECK_ERR(weft_yaml_ints(weft_yaml_get(root, "d", NULL), "q.yml", "d", iv, 4, &n, &e), &e,
            WEFT_EINPUT, "q.yml", 6, 4, "d", "d must be a sequence, got '5'");
  weft_yaml_free(root);
}

/* ------------------------------------------------------------------ network */

static void network_read_2d_3d(void) {
  WeftNetwork net;
  WeftError e;
  CHECK_EQ_INT(weft_network_read(FIX "net_2d.yml", &net, &e), WEFT_OK);
  CHECK_EQ_INT(net.ndims, 2);
  CHECK(net.topology[0] == WEFT_RING && net.topology[1] == WEFT_SWITCH);
  CHECK(net.npus[0] == 8 && net.npus[1] == 16);
  CHECK(strcmp(net.cost_dim[0], "Package") == 0 && strcmp(net.cost_dim[1], "Cluster") == 0);
  CHECK(net.line[0] == 4 && net.line[1] == 4);
  CHECK(strcmp(net.file, FIX "net_2d.yml") == 0);

  CHECK_EQ_INT(weft_network_read(FIX "net_3d.yml", &net, &e), WEFT_OK);
  CHECK_EQ_INT(net.ndims, 3);
  CHECK(net.topology[0] == WEFT_RING && net.topology[1] == WEFT_FULLY_CONNECTED &&
        net.topology[2] == WEFT_SWITCH);
  CHECK(net.npus[0] == 4 && net.npus[1] == 8 && net.npus[2] == 16);
  CHECK(strcmp(net.cost_dim[2], "Pod") == 0);
  CHECK(net.line[0] == 12 && net.line[1] == 13 && net.line[2] == 14);  /* CostDimension entries */
}

typedef struct {
  const char *text;
  int code, line, col;
  const char *field, *msg;
} BadCase;

/* Write each case to a scratch file, read it with fn, check the error. */
static void run_bad(const BadCase *cases, size_t n, const char *name,
                    int (*fn)(const char *path, WeftError *err)) {
  for (size_t c = 0; c < n; c++) {
    const char *path = write_tmp(name, cases[c].text);
    char file[WEFT_PATH_LEN];
    snprintf(file, sizeof file, "%s", path);
    WeftError e;
    int rc = fn(file, &e);
    if (rc != cases[c].code) fprintf(stderr, "  case %zu: %s", c, cases[c].text);
    CHECK_ERR(rc, &e, cases[c].code, file, cases[c].line, cases[c].col, cases[c].field,
              cases[c].msg);
  }
  tmp_cleanup();
}

static int read_net(const char *path, WeftError *err) {
  WeftNetwork net;
  return weft_network_read(path, &net, err);
}

static void network_bad(void) {
  static const BadCase cases[] = {
      {"Topology: [Ring, Switch\nNpusCount: [4, 8]\n", WEFT_ESYNTAX, 2, 10, NULL,
       "did not find expected ',' or ']'"},
      {"Topology: [Ring, Switch]\nNpusCount: [4, 1]\nCostDimension: [A, B]\n", WEFT_EINPUT, 2,
       16, "NpusCount", "NpusCount entry 2 must be > 1, got 1"},
      {"Topology: [Ring]\nNpusCount: [0]\nCostDimension: [A]\n", WEFT_EINPUT, 2, 13, "NpusCount",
       "must be > 1, got 0"},
      {"Topology: [Ring]\nNpusCount: [-4]\nCostDimension: [A]\n", WEFT_EINPUT, 2, 13,
       "NpusCount", "must be > 1, got -4"},
      {"Topology: [Ring]\nNpusCount: [.nan]\nCostDimension: [A]\n", WEFT_EINPUT, 2, 13,
       "NpusCount", "NpusCount entry 1 must be a finite number, got '.nan'"},
      {"Topology: [Ring]\nNpusCount: [1e999]\nCostDimension: [A]\n", WEFT_EINPUT, 2, 13,
       "NpusCount", "finite"},
      {"Topology: [Ring]\nNpusCount: [8.5]\nCostDimension: [A]\n", WEFT_EINPUT, 2, 13,
       "NpusCount", "must be an integer"},
      {"Topolgy: [Ring]\nNpusCount: [8]\nCostDimension: [A]\n", WEFT_EINPUT, 1, 1, "Topolgy",
       "unknown key 'Topolgy'"},
      {"Topology: [Ring]\nNpusCount: [8]\nCostDimension: [A]\nBandwidth: [1]\n", WEFT_EINPUT, 4,
       1, "Bandwidth", "unknown key 'Bandwidth'"},
      {"Topology: [Ring]\nNpusCount: [8]\n", WEFT_EINPUT, 1, 1, "CostDimension",
       "missing key 'CostDimension'"},
      {"NpusCount: [8]\nCostDimension: [A]\n", WEFT_EINPUT, 1, 1, "Topology",
       "missing key 'Topology'"},
      {"Topology: [Ring, Ring]\nNpusCount: [8]\nCostDimension: [A, B]\n", WEFT_EINPUT, 2, 12,
       "NpusCount", "NpusCount has 1 entry, Topology has 2"},
      {"Topology: [Ring]\nNpusCount: [8]\nCostDimension: [A, B]\n", WEFT_EINPUT, 3, 16,
       "CostDimension", "CostDimension has 2 entries, Topology has 1"},
      {"Topology: [Ring, Torus]\nNpusCount: [8, 2]\nCostDimension: [A, B]\n", WEFT_EINPUT, 1, 18,
       "Topology", "unknown topology 'Torus'"},
      {"Topology: []\nNpusCount: []\nCostDimension: []\n", WEFT_EINPUT, 1, 11, "Topology",
       "1 to 16 entries, got 0"},
      {"Topology: [R,R,R,R,R,R,R,R,R,R,R,R,R,R,R,R,R]\nNpusCount: [2]\nCostDimension: [A]\n",
       WEFT_EINPUT, 1, 11, "Topology", "1 to 16 entries, got 17"},
      {"Topology: Ring\nNpusCount: [8]\nCostDimension: [A]\n", WEFT_EINPUT, 1, 11, "Topology",
       "Topology must be a sequence, got 'Ring'"},
      {"Topology:\nNpusCount: [8]\nCostDimension: [A]\n", WEFT_EINPUT, 1, 10, "Topology",
       "got an empty value"},
      {"- Ring\n- Switch\n", WEFT_EINPUT, 1, 1, NULL, "expected a mapping"},
      {"# only a comment\n", WEFT_EINPUT, 0, 0, NULL, "empty"},
      {"Topology: [Ring]\nNpusCount: [8]\nCostDimension: ['']\n", WEFT_EINPUT, 3, 17,
       "CostDimension", "CostDimension entry 1 must be a name"},
  };
  run_bad(cases, sizeof cases / sizeof cases[0], "net.yml", read_net);

  WeftNetwork net;
  WeftError e;
  CHECK_ERR(weft_network_read("tests/fixtures/no-such-file.yml", &net, &e), &e, WEFT_EIO,
            "tests/fixtures/no-such-file.yml", 0, 0, NULL,
            "cannot open: no such file or directory");
  CHECK_ERR(weft_network_read("tests/fixtures", &net, &e), &e, WEFT_EIO, "tests/fixtures", 0, 0,
            NULL, "not a regular file (a directory): inputs are read from regular files");
  CHECK_EQ_INT(weft_network_read(NULL, &net, &e), WEFT_EINVAL);
}

/* ------------------------------------------------------------------ cost model, communicator */

static void cost_model_read(void) {
  WeftCostModel cm;
  WeftError e;
  CHECK_EQ_INT(weft_cost_model_read(FIX "cost_3d.yml", &cm, &e), WEFT_OK);
  CHECK_EQ_INT(cm.nclasses, 3);
  CHECK(strcmp(cm.cls[0].name, "Chiplet") == 0 && cm.cls[0].has_link && !cm.cls[0].has_switch &&
        !cm.cls[0].has_nic && cm.cls[0].link_usd_per_gbps == 1.5 && cm.cls[0].line == 2);
  CHECK(cm.cls[1].has_link && cm.cls[1].has_switch && !cm.cls[1].has_nic &&
        cm.cls[1].switch_usd_per_gbps == 12.0);
  CHECK(cm.cls[2].has_link && cm.cls[2].has_switch && cm.cls[2].has_nic &&
        cm.cls[2].nic_usd_per_gbps == 31.25 && cm.cls[2].line == 4);
  /* covers net_3d: Switch dim 3 = 4*8*16 NPUs * (7.5 + 18 + 31.25) */
  WeftNetwork net;
  double usd[WEFT_MAX_DIMS];
  CHECK_EQ_INT(weft_network_read(FIX "net_3d.yml", &net, &e), WEFT_OK);
  CHECK_EQ_INT(weft_cost_per_gbps(&net, &cm, usd, &e), WEFT_OK);
  CHECK_NEAR(usd[2], 512.0 * 56.75, 1e-12);
}

static int read_cost(const char *path, WeftError *err) {
  WeftCostModel cm;
  return weft_cost_model_read(path, &cm, err);
}

static void cost_model_bad(void) {
  static const BadCase cases[] = {
      {"A:\n  Link: 2\n  Nick: 3\n", WEFT_EINPUT, 3, 3, "Nick",
       "unknown key 'Nick' (did you mean 'Nic'?)"},
      {"A:\n  Link: -2\n", WEFT_EINPUT, 2, 9, "Link", "A Link must be > 0, got -2"},
      {"A:\n  Link: 0\n", WEFT_EINPUT, 2, 9, "Link", "must be > 0"},
      {"A: {Link: 1, Switch: nan}\n", WEFT_EINPUT, 1, 22, "Switch",
       "A Switch must be a finite number, got 'nan'"},
      {"A: {Link: 1, Nic: .inf}\n", WEFT_EINPUT, 1, 19, "Nic", "finite"},
      {"A: {Link: 1e999}\n", WEFT_EINPUT, 1, 11, "Link", "finite"},
      {"A: {Link: cheap}\n", WEFT_EINPUT, 1, 11, "Link", "must be a number, got 'cheap'"},
      {"A: 5\n", WEFT_EINPUT, 1, 4, "A", "cost class 'A' must be a mapping"},
      {"{}\n", WEFT_EINPUT, 1, 1, NULL, "no cost classes"},
      {"A: {Link: 1\n", WEFT_ESYNTAX, 2, 1, NULL, NULL},
  };
  run_bad(cases, sizeof cases / sizeof cases[0], "cost.yml", read_cost);
}

static void communicator_read(void) {
  WeftCommunicator comm;
  WeftNetwork net;
  WeftError e;
  CHECK_EQ_INT(weft_communicator_read(FIX "comm_3d.yml", &comm, &e), WEFT_OK);
  CHECK_EQ_INT(comm.ndims, 3);
  CHECK(comm.group[0][0] == 4 && comm.group[0][1] == 4 && comm.group[0][2] == -1);
  CHECK(comm.group[2][0] == -1 && comm.group[2][1] == 2 && comm.group[2][2] == 16);
  CHECK(comm.line[0] == 2 && comm.line[1] == 3 && comm.line[2] == 4);
  CHECK(strcmp(comm.file, FIX "comm_3d.yml") == 0);
  CHECK_EQ_INT(weft_network_read(FIX "net_3d.yml", &net, &e), WEFT_OK);
  CHECK_EQ_INT(weft_communicator_check(&comm, &net, &e), WEFT_OK);
  /* the 2-dim communicator against the 3-dim network: caught by the check */
  CHECK_EQ_INT(weft_communicator_read(FIX "comm_2d.yml", &comm, &e), WEFT_OK);
  CHECK_ERR(weft_communicator_check(&comm, &net, &e), &e, WEFT_EINPUT, FIX "comm_2d.yml", 2, 0,
            "Forward", "2 dims");
}

static int read_comm(const char *path, WeftError *err) {
  WeftCommunicator comm;
  return weft_communicator_read(path, &comm, err);
}

static void communicator_bad(void) {
  static const BadCase cases[] = {
      {"Forward: [4, 0]\nInputGrad: [4, 1]\nWeightGrad: [-1, 2]\n", WEFT_EINPUT, 1, 14, "Forward",
       "Forward entry 2 must be -1 (not involved) or >= 1, got 0"},
      {"Forward: [4, 1]\nInputGrad: [-2, 1]\nWeightGrad: [-1, 2]\n", WEFT_EINPUT, 2, 13,
       "InputGrad", "got -2"},
      {"Forward: [4, 1]\nInputGrad: [4, 1]\nWeightGrad: [-1, .NAN]\n", WEFT_EINPUT, 3, 18,
       "WeightGrad", "finite"},
      {"Forward: [4, 1]\nInputGrad: [4, 1]\nWeightGrad: [-1, -.inf]\n", WEFT_EINPUT, 3, 18,
       "WeightGrad", "finite"},
      {"Forward: [4, 1]\nInputGrad: [4, 1]\nWeightGrad: [2.5, 2]\n", WEFT_EINPUT, 3, 14,
       "WeightGrad", "must be an integer"},
      {"Forward: [4, 1]\nInputGrad: [4]\nWeightGrad: [-1, 2]\n", WEFT_EINPUT, 2, 12, "InputGrad",
       "InputGrad has 1 entry, Forward has 2"},
      {"Forward: [4, 1]\nInputGrad: [4, 1]\n", WEFT_EINPUT, 1, 1, "WeightGrad",
       "missing key 'WeightGrad'"},
      {"Forward: [4]\nInputGrad: [4]\nWeightGrad: [4]\nBackward: [4]\n", WEFT_EINPUT, 4, 1,
       "Backward", "unknown key 'Backward'"},
      {"Forward: [4]\nInputGrad: [4]\nWeightGrad: [4]\nforward: [4]\n", WEFT_EINPUT, 4, 1,
       "forward", "duplicate key"},
      {"Forward: [4]\n\tInputGrad: [4]\n", WEFT_ESYNTAX, 2, 1, NULL, NULL},
  };
  run_bad(cases, sizeof cases / sizeof cases[0], "comm.yml", read_comm);
}

/* ------------------------------------------------------------------ workload */

static void workload_plain(void) {
  const char *text =
      "# a comment line\n"
      "L1 -1 10 NONE 0 20 ALLREDUCE 1024 30 allgather 2048 7\n"
      "\n"
      "   \t\n"
      "L2\t-1  40 ReduceScatter 4096.5 50 NONE 999 60 AllToAll 1e3 0\r\n"
      "L3 -1 0 NONE 0 0 NONE 0 0 ALLREDUCE 0 0";  /* no final newline */
  WeftWorkload *wl = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_workload_parse(text, "w.txt", &wl, &e), WEFT_OK);
  if (!wl) return;
  CHECK_EQ_INT(wl->nlayers, 3);
  CHECK(strcmp(wl->policy, "") == 0 && strcmp(wl->file, "w.txt") == 0);
  const WeftLayer *l = wl->layers;
  CHECK(strcmp(l[0].name, "L1") == 0 && l[0].line == 2);
  CHECK(l[0].phase[0].compute_ns == 10 && l[0].phase[0].coll == WEFT_COLL_NONE &&
        l[0].phase[0].size_bytes == 0);
  CHECK(l[0].phase[1].coll == WEFT_COLL_ALLREDUCE && l[0].phase[1].size_bytes == 1024);
  CHECK(l[0].phase[2].coll == WEFT_COLL_ALLGATHER && l[0].phase[2].compute_ns == 30);
  CHECK(l[0].update_ns == 7);
  CHECK(strcmp(l[1].name, "L2") == 0 && l[1].line == 5);
  CHECK(l[1].phase[0].coll == WEFT_COLL_REDUCESCATTER && l[1].phase[0].size_bytes == 4096.5);
  CHECK(l[1].phase[1].coll == WEFT_COLL_NONE && l[1].phase[1].size_bytes == 0);  /* NONE 999 */
  CHECK(l[1].phase[2].coll == WEFT_COLL_ALLTOALL && l[1].phase[2].size_bytes == 1000);
  CHECK(l[2].line == 6 && l[2].phase[2].coll == WEFT_COLL_ALLREDUCE &&
        l[2].phase[2].size_bytes == 0);  /* a collective of size 0 is fine */
  weft_workload_free(wl);

  CHECK_EQ_INT(weft_workload_read(FIX "wl_tiny.txt", &wl, &e), WEFT_OK);
  if (!wl) return;
  CHECK_EQ_INT(wl->nlayers, 3);
  CHECK(strcmp(wl->file, FIX "wl_tiny.txt") == 0);
  CHECK(wl->layers[2].line == 4 && strcmp(wl->layers[2].name, "mlp") == 0);
  CHECK(wl->layers[2].phase[2].size_bytes == 4194304);
  weft_workload_free(wl);
  weft_workload_free(NULL);
}

static void workload_header(void) {
  WeftWorkload *wl = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_workload_read(FIX "wl_header.txt", &wl, &e), WEFT_OK);
  if (!wl) return;
  CHECK(strcmp(wl->policy, "HYBRID_TRANSFORMER model_parallel_NPU_group: 16") == 0);
  CHECK_EQ_INT(wl->nlayers, 2);
  CHECK(wl->layers[0].line == 3 && wl->layers[1].line == 4);
  CHECK(wl->layers[1].phase[2].coll == WEFT_COLL_REDUCESCATTER);
  weft_workload_free(wl);

  const char *text = "\n# ASTRA-sim 1.0\nDATA  \n\n1\nfc -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 64 0\n";
  CHECK_EQ_INT(weft_workload_parse(text, NULL, &wl, &e), WEFT_OK);
  if (!wl) return;
  CHECK(strcmp(wl->policy, "DATA") == 0 && wl->nlayers == 1 && wl->layers[0].line == 6);
  CHECK(strcmp(wl->file, "") == 0);
  weft_workload_free(wl);

  /* a policy line cut at 127 characters just after a space keeps no
   * trailing space (it would not read back the same; found by fuzz_workload) */
  char pol[300];
  memset(pol, 'p', 126);
  snprintf(pol + 126, sizeof pol - 126, " tail\n1\nfc -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 64 0\n");
  CHECK_EQ_INT(weft_workload_parse(pol, NULL, &wl, &e), WEFT_OK);
  if (!wl) return;
  CHECK_EQ_INT((int)strlen(wl->policy), 126);
  CHECK(wl->policy[125] == 'p');
  weft_workload_free(wl);
  /* 13 words cut to 12 would read back as a layer line: the cut word goes */
  memset(pol, 'L', 200);
  memcpy(pol, "a b c d e f g h i j k ", 22);
  snprintf(pol + 200, sizeof pol - 200, " m\n1\nfc -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 64 0\n");
  CHECK_EQ_INT(weft_workload_parse(pol, NULL, &wl, &e), WEFT_OK);
  if (!wl) return;
  CHECK(strcmp(wl->policy, "a b c d e f g h i j k") == 0);
  weft_workload_free(wl);

  /* a name longer than WEFT_NAME_LEN - 1 is truncated */
  char lng[400], buf[600];
  memset(lng, 'n', 100);
  lng[100] = '\0';
  snprintf(buf, sizeof buf, "%s -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n", lng);
  CHECK_EQ_INT(weft_workload_parse(buf, "n.txt", &wl, &e), WEFT_OK);
  if (!wl) return;
  CHECK_EQ_INT(strlen(wl->layers[0].name), WEFT_NAME_LEN - 1);
  weft_workload_free(wl);
}

static void workload_bad(void) {
  static const BadCase cases[] = {
      {"a -1 1 NONE 0 1 NONE 0 1 NONE 0\n", WEFT_EINPUT, 1, 32, "", "expected 12 fields, got 11"},
      {"a -1 1 NONE 0 1 NONE 0 1 NONE 0 0\nb -1 1 NONE 0 1 NONE 0 1 NONE 0\n", WEFT_EINPUT, 2,
       32, "", "expected 12 fields, got 11"},
      {"a -1 1 NONE 0 1 NONE 0 1 NONE 0 0 extra\n", WEFT_EINPUT, 1, 35, "",
       "expected 12 fields, got 13"},
      {"a -1 1 BROADCAST 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 8, "fwd_type",
       "unknown collective 'BROADCAST'"},
      {"a -1 1 NONE 0 1 NONE 0 1 ALL_REDUCE 8 0\n", WEFT_EINPUT, 1, 26, "wg_type",
       "unknown collective"},
      {"a -1 1 NONE 0 1 NONE 0 1 ALLREDUCE -8 0\n", WEFT_EINPUT, 1, 36, "wg_size",
       "wg_size must be >= 0, got -8"},
      {"a -1 1 NONE 0 -1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 15, "ig_compute", ">= 0"},
      {"a -1 fast NONE 0 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 6, "fwd_compute",
       "fwd_compute must be a number, got 'fast'"},
      {"a -1 1 NONE 0 nan NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 15, "ig_compute",
       "ig_compute must be a finite number, got 'nan'"},
      {"a -1 1 ALLREDUCE inf 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 18, "fwd_size", "finite"},
      {"a -1 1 NONE 0 1 ALLGATHER 1e999 1 NONE 0 0\n", WEFT_EINPUT, 1, 27, "ig_size", "finite"},
      {"a -1 1 NONE 0 1 NONE 0 1 NONE 0x10 0\n", WEFT_EINPUT, 1, 31, "wg_size", "number"},
      {"a -1 1 NONE 0 1 NONE 0 1 NONE 0 -infinity\n", WEFT_EINPUT, 1, 33, "update_time",
       "finite"},
      {"NONE 0\n", WEFT_EINPUT, 1, 7, "", "expected 12 fields, got 2"},
      {"DATA\n2\na -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 2, 1, "layer_count",
       "the header declares 2 layers, found 1"},
      {"DATA\ntwo\na -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 2, 1, "layer_count",
       "layer count must be an integer"},
      {"DATA\n0\n", WEFT_EINPUT, 0, 0, NULL, "no layers"},
      {"", WEFT_EINPUT, 0, 0, NULL, "the workload has no layers"},
      {"# nothing\n\n", WEFT_EINPUT, 0, 0, NULL, "no layers"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    WeftWorkload *wl = (WeftWorkload *)&wl;  /* must be reset to NULL */
    WeftError e;
    int rc = weft_workload_parse(cases[c].text, "bad.txt", &wl, &e);
    if (rc != cases[c].code) fprintf(stderr, "  case %zu: %s", c, cases[c].text);
    CHECK_ERR(rc, &e, cases[c].code, "bad.txt", cases[c].line, cases[c].col, cases[c].field,
              cases[c].msg);
    CHECK(wl == NULL);
  }
  /* the file reader: same errors with the path, EIO, NUL bytes */
  WeftWorkload *wl;
  WeftError e;
  const char *p = write_tmp("w.txt", "a -1 1 NONE 0 1 NONE 0 1 NONE 0\n");
  char path[WEFT_PATH_LEN];
  snprintf(path, sizeof path, "%s", p);
  CHECK_ERR(weft_workload_read(path, &wl, &e), &e, WEFT_EINPUT, path, 1, 32, "", "got 11");
  FILE *f = fopen(path, "wb");
  if (f) {
    fwrite("a -1 1 NONE 0 1 NONE 0 1 NONE 0 0\nb\0", 1, 36, f);
    fclose(f);
  }
  CHECK_ERR(weft_workload_read(path, &wl, &e), &e, WEFT_EINPUT, path, 2, 0, NULL, "nul byte");
  tmp_cleanup();
  CHECK_ERR(weft_workload_read("nope/x.txt", &wl, &e), &e, WEFT_EIO, "nope/x.txt", 0, 0, NULL,
            "no such file or directory");
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* 1000 layers parse well under 1 ms (~0.15 ms at -O2); the bound is loose
 * under ASan and off under valgrind, whose preload shows in LD_PRELOAD. */
static void workload_speed(void) {
  enum { N = 1000 };
  char *text = malloc(N * 100);
  if (!text) return;
  size_t n = 0;
  for (int i = 0; i < N; i++)
    n += (size_t)snprintf(text + n, 100, "layer%d -1 9375000 NONE 0 9375000 ALLREDUCE %d "
                          "9375000 ALLGATHER 452984832 10\n", i, 805306368 + i);
  double best = 1e9;
  for (int r = 0; r < 5; r++) {
    WeftWorkload *wl = NULL;
    WeftError e;
    double t0 = now_ms();
    int rc = weft_workload_parse(text, "big.txt", &wl, &e);
    double t = now_ms() - t0;
    if (t < best) best = t;
    CHECK_EQ_INT(rc, WEFT_OK);
    if (wl) {
      CHECK_EQ_INT(wl->nlayers, N);
      CHECK(wl->layers[N - 1].phase[1].size_bytes == 805306368.0 + N - 1);
      CHECK(wl->layers[N - 1].line == N);
    }
    weft_workload_free(wl);
  }
  double limit_ms = 1.0;
#if defined(__SANITIZE_ADDRESS__)
  limit_ms = 5.0;  /* ASan makes it ~4x slower */
#endif
  const char *pre = getenv("LD_PRELOAD");
  if (!(pre && strstr(pre, "vgpreload"))) CHECK(best < limit_ms);
  free(text);
}

/* ------------------------------------------------------------------ scenario */

static void scenario_single(void) {
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  if (!sc) return;
  CHECK(sc->objective == WEFT_OBJ_PERF && sc->loop == WEFT_LOOP_NO_OVERLAP);
  CHECK_EQ_INT(weft_scenario_read(FIX "scenario_3d.yml", sc, &e), WEFT_OK);
  CHECK_EQ_INT(sc->net.ndims, 3);
  CHECK(strcmp(sc->net.file, FIX "net_3d.yml") == 0);
  CHECK_EQ_INT(sc->cost.nclasses, 3);
  CHECK_EQ_INT(sc->njobs, 1);
  CHECK(strcmp(sc->job_name[0], "wl_tiny") == 0 && sc->weight[0] == 1.0);
  CHECK(sc->workload[0] && sc->workload[0]->nlayers == 3);
  CHECK(sc->comm[0].ndims == 3 && sc->comm[0].group[2][2] == 16);
  CHECK_EQ_INT(sc->cons.n, 4);  /* sum, B1, and the chain's two */
  CHECK(sc->cons.n == 4 && sc->cons.c[0].rhs == 1000 && sc->cons.c[0].coef[2] == 1.0);
  CHECK(sc->objective == WEFT_OBJ_PERF_PER_COST && sc->loop == WEFT_LOOP_TP_DP_OVERLAP);
  CHECK(strcmp(sc->file, FIX "scenario_3d.yml") == 0);
  WeftSpec spec;
  weft_scenario_spec(sc, &spec);
  CHECK(spec.net == &sc->net && spec.cost == &sc->cost && spec.njobs == 1);
  CHECK(spec.jobs[0].workload == sc->workload[0] && spec.jobs[0].comm == &sc->comm[0]);
  CHECK(spec.jobs[0].weight == 1.0 && strcmp(spec.jobs[0].name, "wl_tiny") == 0);
  CHECK(spec.cons == &sc->cons && spec.objective == WEFT_OBJ_PERF_PER_COST &&
        spec.loop == WEFT_LOOP_TP_DP_OVERLAP);
  /* read again into the same scenario: the old workloads are released */
  CHECK_EQ_INT(weft_scenario_read(FIX "scenario_multi.yml", sc, &e), WEFT_OK);
  CHECK_EQ_INT(sc->njobs, 2);
  weft_scenario_free(sc);
  weft_scenario_free(NULL);
}

static void scenario_multi_inline(void) {
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  if (!sc) return;
  CHECK_EQ_INT(weft_scenario_read(FIX "scenario_multi.yml", sc, &e), WEFT_OK);
  CHECK(sc->net.ndims == 2 && sc->net.topology[1] == WEFT_SWITCH && sc->net.npus[1] == 16);
  CHECK(strcmp(sc->net.file, FIX "scenario_multi.yml") == 0 && sc->net.line[0] == 3);
  CHECK(sc->cost.nclasses == 2 && sc->cost.cls[1].has_nic && sc->cost.cls[1].line == 6);
  CHECK_EQ_INT(sc->njobs, 2);
  CHECK(strcmp(sc->job_name[0], "tiny") == 0 && strcmp(sc->job_name[1], "hdr") == 0);
  CHECK(sc->weight[0] == 1.0 && sc->weight[1] == 0.5);
  CHECK(sc->workload[1] && sc->workload[1]->nlayers == 2);
  CHECK(sc->comm[1].group[0][1] == 2 && sc->comm[1].line[2] == 11);
  CHECK(strcmp(sc->comm[1].file, FIX "scenario_multi.yml") == 0);
  CHECK_EQ_INT(sc->cons.n, 2);
  CHECK(sc->objective == WEFT_OBJ_PERF && sc->loop == WEFT_LOOP_NO_OVERLAP);
  weft_scenario_free(sc);
}

/* Aux files beside the bad scenarios, and a scenario prefix using them. */
#define SC_NET "network: net.yml\ncost_model: cost.yml\n"
#define SC_JOB "workload: w.txt\ncommunicator: comm.yml\n"

static int read_scenario(const char *path, WeftError *err) {
  WeftScenario *sc = weft_scenario_create();
  if (!sc) return WEFT_ENOMEM;
  int rc = weft_scenario_read(path, sc, err);
  if (rc && sc->njobs != 0) {
    fprintf(stderr, "  failed read left %d jobs\n", sc->njobs);
    test_failures_++;
  }
  weft_scenario_free(sc);
  return rc;
}

static void scenario_bad(void) {
  static const BadCase cases[] = {
      {SC_NET SC_JOB "objectiv: perf\n", WEFT_EINPUT, 5, 1, "objectiv",
       "unknown key 'objectiv' (did you mean 'objective'?)"},
      {"cost_model: cost.yml\n" SC_JOB, WEFT_EINPUT, 1, 1, "network", "missing key 'network'"},
      {"network: net.yml\n" SC_JOB, WEFT_EINPUT, 1, 1, "cost_model", "missing key 'cost_model'"},
      {SC_NET "communicator: comm.yml\n", WEFT_EINPUT, 1, 1, "workload",
       "missing key 'workload'"},
      {SC_NET "workload: w.txt\n", WEFT_EINPUT, 1, 1, "communicator",
       "missing key 'communicator'"},
      {SC_NET SC_JOB "objective: speed\n", WEFT_EINPUT, 5, 12, "objective",
       "unknown objective 'speed' (expected perf, perf-per-cost or cost-per-iteration)"},
      {SC_NET SC_JOB "loop: [a]\n", WEFT_EINPUT, 5, 7, "loop", "unknown loop a sequence"},
      {SC_NET SC_JOB "constraints: [\"sum = 1000\", B1 >= B3]\n", WEFT_EINPUT, 5, 35,
       "constraint", NULL},
      {SC_NET SC_JOB "constraints:\n  - sum = 1000\n  - \"B1 >= * 2\"\n", WEFT_ESYNTAX, 7, 12,
       "constraint", NULL},
      {SC_NET SC_JOB "constraints: [[1]]\n", WEFT_EINPUT, 5, 15, "constraints",
       "a constraint must be text"},
      {"network: {Topology: [Ring], NpusCount: [8], CostDimension: [Pkg]}\n"
       "cost_model: cost.yml\n" SC_JOB,
       WEFT_EINPUT, 1, 0, "CostDimension", "'Pkg' of dim 1 is not in the cost model"},
      {"network: {topology: [Ring, Switch], npus_count: [8, 1], cost_dimension: [A, B]}\n",
       WEFT_EINPUT, 1, 53, "npus_count", "npus_count entry 2 must be > 1"},
      {"network: 5\n", WEFT_EIO, 0, 0, NULL, "cannot open"},
      {"network: [net.yml]\n", WEFT_EINPUT, 1, 10, "network",
       "network must be a file name or a mapping, got a sequence"},
      {SC_NET "workload: w.txt\ncommunicator: {Forward: [8, 0], InputGrad: [8, -1], WeightGrad: "
              "[-1, 4]}\n",
       WEFT_EINPUT, 4, 29, "Forward", "must be -1 (not involved) or >= 1, got 0"},
      {SC_NET "workload: w.txt\ncommunicator: {Forward: [8, 32], InputGrad: [8, -1], "
              "WeightGrad: [-1, 4]}\n",
       WEFT_EINPUT, 4, 0, "Forward", "1..16"},
      {SC_NET "workload: w.txt\ncommunicator: {Forward: [8], InputGrad: [8], WeightGrad: [8]}\n",
       WEFT_EINPUT, 4, 0, "Forward", "communicator has 1 dims, the network has 2"},
      {SC_NET "workloads:\n  - {workload: w.txt, communicator: comm.yml, weight: 0}\n",
       WEFT_EINPUT, 4, 55, "weight", "weight must be > 0, got 0"},
      {SC_NET "workloads:\n  - {workload: w.txt, communicator: comm.yml, weight: .nan}\n",
       WEFT_EINPUT, 4, 55, "weight", "finite"},
      {SC_NET "workloads:\n  - {workload: w.txt, communicator: comm.yml, weigth: 1}\n",
       WEFT_EINPUT, 4, 47, "weigth", "unknown key 'weigth'"},
      {SC_NET "workloads:\n  - {workload: w.txt, communicator: comm.yml}\n"
              "  - {workload: w.txt, communicator: comm.yml}\n",
       WEFT_EINPUT, 5, 5, "name", "two workloads are named 'w'"},
      {SC_NET "workloads:\n  - {workload: w.txt, communicator: comm.yml}\n"
              "  - {workload: bad.txt, communicator: comm.yml, name: b}\n",
       WEFT_EINPUT, 1, 32, "", "expected 12 fields, got 11"},
      {SC_NET "workloads:\n  - {workload: w.txt, communicator: comm.yml}\n"
              "  - {workload: w.txt, communicator: {Forward: [0]}, name: b}\n",
       WEFT_EINPUT, 5, 37, "InputGrad", "missing key 'InputGrad'"},
      {SC_NET "workloads: []\n", WEFT_EINPUT, 3, 12, "workloads", "workloads is empty"},
      {SC_NET "workloads: {a: 1}\n", WEFT_EINPUT, 3, 12, "workloads",
       "workloads must be a sequence"},
      {SC_NET SC_JOB "workloads:\n  - {workload: w.txt, communicator: comm.yml}\n", WEFT_EINPUT,
       3, 1, "workload", "goes inside each entry of 'workloads'"},
      {SC_NET "workload: missing.txt\ncommunicator: comm.yml\n", WEFT_EIO, 0, 0, NULL,
       "no such file"},
      {SC_NET "workload: [w.txt]\ncommunicator: comm.yml\n", WEFT_EINPUT, 3, 11, "workload",
       "workload must be a file name, got a sequence"},
      {SC_NET SC_JOB "name: \"\"\n", WEFT_EINPUT, 5, 7, "name", "name must be a name"},
      {SC_NET SC_JOB "objective: perf\nobjective: perf\n", WEFT_EINPUT, 6, 1, "objective",
       "duplicate key 'objective'"},
      {SC_NET SC_JOB "loop: no-overlap\n  bad: indent\n", WEFT_ESYNTAX, 6, 6, NULL, NULL},
      {"- a\n", WEFT_EINPUT, 1, 1, NULL, "expected a mapping"},
  };
  write_tmp("net.yml", "Topology: [Ring, Switch]\nNpusCount: [8, 16]\nCostDimension: [A, B]\n");
  write_tmp("cost.yml", "A: {Link: 1}\nB: {Link: 2, Switch: 3, Nic: 4}\n");
  write_tmp("w.txt", "a -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 64 0\n");
  write_tmp("bad.txt", "a -1 1 NONE 0 1 NONE 0 1 NONE 0\n");
  write_tmp("comm.yml", "Forward: [8, -1]\nInputGrad: [8, -1]\nWeightGrad: [-1, 16]\n");
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char file[WEFT_PATH_LEN], want_file[WEFT_PATH_LEN];
    snprintf(file, sizeof file, "%s", write_tmp("sc.yml", cases[c].text));
    snprintf(want_file, sizeof want_file, "%s", file);
    /* errors inside a referenced file name that file */
    if (cases[c].code == WEFT_EIO && strstr(cases[c].text, "missing.txt"))
      snprintf(want_file, sizeof want_file, "%s", tmp_path("missing.txt"));
    if (cases[c].code == WEFT_EIO && strstr(cases[c].text, "network: 5"))
      snprintf(want_file, sizeof want_file, "%s", tmp_path("5"));
    if (strstr(cases[c].text, "bad.txt"))
      snprintf(want_file, sizeof want_file, "%s", tmp_path("bad.txt"));
    WeftError e;
    int rc = read_scenario(file, &e);
    if (rc != cases[c].code) fprintf(stderr, "  case %zu: %s", c, cases[c].text);
    CHECK_ERR(rc, &e, cases[c].code, want_file, cases[c].line, cases[c].col, cases[c].field,
              cases[c].msg);
  }
  tmp_cleanup();
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  CHECK_ERR(weft_scenario_read("no/such.yml", sc, &e), &e, WEFT_EIO, "no/such.yml", 0, 0, NULL,
            "cannot open");
  CHECK_EQ_INT(weft_scenario_read(NULL, sc, &e), WEFT_EINVAL);
  weft_scenario_free(sc);
}

/* ------------------------------------------------------------------ LIBRA's own inputs */

static void libra_reference(void) {
  const char *dir = getenv("WEFT_LIBRA_FORMAT");
  char p[WEFT_PATH_LEN];
  if (!dir) dir = "/work/shared/libra-format";
  snprintf(p, sizeof p, "%s/network/4d_network.yml", dir);
  if (access(p, R_OK) != 0) {
    fprintf(stderr, "  note: %s absent, io/libra_reference skipped\n", dir);
    return;
  }
  WeftNetwork n3, n4;
  WeftCostModel c3, c4;
  WeftError e;
  CHECK_EQ_INT(weft_network_read(p, &n4, &e), WEFT_OK);
  CHECK(n4.ndims == 4 && n4.npus[0] == 4 && n4.npus[1] == 8 && n4.npus[2] == 4 &&
        n4.npus[3] == 32);
  CHECK(n4.topology[0] == WEFT_RING && n4.topology[1] == WEFT_FULLY_CONNECTED &&
        n4.topology[2] == WEFT_RING && n4.topology[3] == WEFT_SWITCH);
  CHECK(strcmp(n4.cost_dim[0], "InterChiplet") == 0 && n4.line[3] == 6);
  snprintf(p, sizeof p, "%s/network/3d_network.yml", dir);
  CHECK_EQ_INT(weft_network_read(p, &n3, &e), WEFT_OK);
  CHECK(n3.ndims == 3 && weft_network_npus_total(&n3) == 4096.0);
  snprintf(p, sizeof p, "%s/cost_model/4d_cost_model.yml", dir);
  CHECK_EQ_INT(weft_cost_model_read(p, &c4, &e), WEFT_OK);
  snprintf(p, sizeof p, "%s/cost_model/3d_cost_model.yml", dir);
  CHECK_EQ_INT(weft_cost_model_read(p, &c3, &e), WEFT_OK);
  CHECK(c4.nclasses == 4 && c4.cls[3].has_nic && c4.cls[3].nic_usd_per_gbps == 31.60004);
  double usd[WEFT_MAX_DIMS];
  CHECK_EQ_INT(weft_cost_per_gbps(&n4, &c4, usd, &e), WEFT_OK);
  CHECK_EQ_INT(weft_cost_per_gbps(&n3, &c3, usd, &e), WEFT_OK);
  static const char *const comms[] = {"GPT_3_3d", "GPT_3_4d", "MSFT_1T_3d", "MSFT_1T_4d",
                                      "ResNet_50_3d", "ResNet_50_4d", "Turing_NLG_3D",
                                      "Turing_NLG_4D"};
  for (int i = 0; i < 8; i++) {
    WeftCommunicator comm;
    snprintf(p, sizeof p, "%s/communicator/%s.yml", dir, comms[i]);
    CHECK_EQ_INT(weft_communicator_read(p, &comm, &e), WEFT_OK);
    CHECK_EQ_INT(weft_communicator_check(&comm, comm.ndims == 4 ? &n4 : &n3, &e), WEFT_OK);
    if (i == 1) CHECK(comm.group[2][1] == 2 && comm.group[2][3] == 32 && comm.line[2] == 8);
  }
  static const struct {
    const char *name;
    int nlayers;
  } wls[] = {{"GPT_3", 18}, {"MSFT_1T", 18}, {"Turing_NLG", 18}, {"DLRM", 20}, {"ResNet_50", 54}};
  for (int i = 0; i < 5; i++) {
    WeftWorkload *wl = NULL;
    snprintf(p, sizeof p, "%s/workload/%s.txt", dir, wls[i].name);
    CHECK_EQ_INT(weft_workload_read(p, &wl, &e), WEFT_OK);
    CHECK(wl && wl->nlayers == wls[i].nlayers);
    if (wl && i == 0) {
      CHECK(strcmp(wl->layers[0].name, "Q1") == 0 && wl->layers[0].phase[0].compute_ns == 9375000);
      CHECK(wl->layers[0].phase[1].coll == WEFT_COLL_ALLREDUCE &&
            wl->layers[0].phase[1].size_bytes == 805306368);
      CHECK(strcmp(wl->layers[17].name, "layerNorm2") == 0 && wl->layers[17].line == 18);
    }
    weft_workload_free(wl);
  }
}

/* ------------------------------------------------------------------ named groups and writers
 * weft's extension: TYPE@name in workload text, Groups: in a communicator,
 * SENDRECV; weft_workload_write / weft_communicator_write round trips. */
#include <dirent.h>
#include <sys/stat.h>

static void workload_groups(void) {
  const char *text =
      "DATA\n"
      "4\n"
      "a -1 1 NONE 0 2 SENDRECV@pp 100 3 ALLREDUCE@dp 200 0\n"
      "b -1 1 ALLGATHER 8 2 sendrecv@pp 100 3 AllReduce 5 0\n"
      "c -1 1 NONE@zz 0 2 ALLTOALL@ep_1 7 3 REDUCESCATTER@dp 9 0\n"
      "d -1 1 ALLREDUCE@PP 4 0 SendRecv 1 0 NONE 0 0\n";
  WeftWorkload *wl = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_workload_parse(text, "g.txt", &wl, &e), WEFT_OK);
  if (!wl) return;
  /* names in order of first use; NONE@zz names nothing (NONE is ignored);
   * names are case-sensitive, collective types are not */
  CHECK_EQ_INT(wl->ngroups, 4);
  CHECK(!strcmp(wl->group_name[0], "pp") && !strcmp(wl->group_name[1], "dp") &&
        !strcmp(wl->group_name[2], "ep_1") && !strcmp(wl->group_name[3], "PP"));
  const WeftLayer *l = wl->layers;
  CHECK(l[0].phase[0].group == 0 && l[0].phase[1].group == 1 && l[0].phase[2].group == 2);
  CHECK(l[0].phase[1].coll == WEFT_COLL_SENDRECV && l[0].phase[1].size_bytes == 100);
  CHECK(l[0].phase[2].coll == WEFT_COLL_ALLREDUCE && l[0].phase[2].size_bytes == 200);
  CHECK(l[1].phase[0].group == 0 && l[1].phase[1].group == 1 && l[1].phase[2].group == 0);
  CHECK(l[1].phase[1].coll == WEFT_COLL_SENDRECV && l[1].phase[2].coll == WEFT_COLL_ALLREDUCE);
  CHECK(l[2].phase[0].coll == WEFT_COLL_NONE && l[2].phase[0].group == 0);
  CHECK(l[2].phase[1].coll == WEFT_COLL_ALLTOALL && l[2].phase[1].group == 3);
  CHECK(l[2].phase[2].coll == WEFT_COLL_REDUCESCATTER && l[2].phase[2].group == 2);
  CHECK(l[3].phase[0].group == 4 && l[3].phase[1].coll == WEFT_COLL_SENDRECV &&
        l[3].phase[1].group == 0);
  weft_workload_free(wl);
  /* without any @: no groups */
  CHECK_EQ_INT(weft_workload_parse("a -1 1 SENDRECV 8 1 NONE 0 1 NONE 0 0\n", "p.txt", &wl, &e),
               WEFT_OK);
  if (wl) CHECK(wl->ngroups == 0 && wl->layers[0].phase[0].group == 0);
  weft_workload_free(wl);
}

static void workload_groups_bad(void) {
  static const BadCase cases[] = {
      {"a -1 1 ALLREDUCE@ 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 18, "fwd_type",
       "fwd_type: no group name after '@' in 'ALLREDUCE@'"},
      {"a -1 1 ALLREDUCE@p-p 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 18, "fwd_type",
       "fwd_type: group name 'p-p' must be 1 to 15 letters, digits or '_'"},
      {"a -1 1 SENDRECV@abcdefghijklmnop 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 17,
       "fwd_type", "group name 'abcdefghijklmnop' must be 1 to 15"},
      {"a -1 1 BROADCAST@pp 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 8, "fwd_type",
       "fwd_type: unknown collective 'BROADCAST' (expected NONE, ALLREDUCE, ALLGATHER, "
       "REDUCESCATTER, ALLTOALL or SENDRECV, optionally with @group, *calls and ~overlap_ns)"},
      {"a -1 1 @pp 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 8, "fwd_type",
       "unknown collective ''"},
      {"a -1 1 NONE 0 1 NONE 0 1 ALLREDUCE@d@p 8 0\n", WEFT_EINPUT, 1, 36, "wg_type",
       "group name 'd@p'"},
      {"a -1 1 NONE@p-p 0 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 13, "fwd_type",
       "group name 'p-p'"},
      {"a -1 1 NONE 0 1 SEND_RECV@pp 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 17, "ig_type",
       "unknown collective 'SEND_RECV'"},
      /* *calls: a number in (0, 1e9], its column the number's */
      {"a -1 1 ALLREDUCE*0 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 18, "fwd_type",
       "fwd_type: the calls after '*' must be > 0, got 0"},
      {"a -1 1 ALLREDUCE@pp*x 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 21, "fwd_type",
       "fwd_type: the calls after '*' must be a number, got 'x'"},
      {"a -1 1 ALLREDUCE* 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 18, "fwd_type",
       "the calls after '*' must be a number, got ''"},
      {"a -1 1 NONE 0 1 NONE 0 1 ALLGATHER*2e9 8 0\n", WEFT_EINPUT, 1, 36, "wg_type",
       "wg_type: the calls after '*' must be <= 1e9, got 2e9"},
      {"a -1 1 ALLREDUCE*inf 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 18, "fwd_type",
       "the calls after '*' must be a finite number"},
      {"a -1 1 ALLREDUCE*2@pp 8 1 NONE 0 1 NONE 0 0\n", WEFT_EINPUT, 1, 18, "fwd_type",
       "got '2@pp'"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    WeftWorkload *wl = (WeftWorkload *)&wl;  /* must be reset to NULL */
    WeftError e;
    int rc = weft_workload_parse(cases[c].text, "bad.txt", &wl, &e);
    if (rc != cases[c].code) fprintf(stderr, "  case %zu: %s", c, cases[c].text);
    CHECK_ERR(rc, &e, cases[c].code, "bad.txt", cases[c].line, cases[c].col, cases[c].field,
              cases[c].msg);
    CHECK(wl == NULL);
  }
  /* a 9th distinct name is one too many (WEFT_MAX_GROUPS = 8): line 9, its
   * name at column 19 ("l9 -1 1 " is 8 characters, ALLREDUCE 9 more, '@') */
  char text[1024];
  size_t n = 0;
  for (int i = 1; i <= 9; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "l%d -1 1 ALLREDUCE@g%d 8 1 NONE 0 1 NONE 0 0\n",
                          i, i);
  WeftWorkload *wl;
  WeftError e;
  CHECK_ERR(weft_workload_parse(text, "nine.txt", &wl, &e), &e, WEFT_EINPUT, "nine.txt", 9, 19,
            "fwd_type", "group 'g9' would be the workload's 9th named group, at most 8");
  /* the same 9 lines with the 9th reusing g1 are fine */
  strstr(text, "@g9")[2] = '1';
  CHECK_EQ_INT(weft_workload_parse(text, "nine.txt", &wl, &e), WEFT_OK);
  if (wl) CHECK(wl->ngroups == 8 && wl->layers[8].phase[0].group == 1);
  weft_workload_free(wl);
}

static void communicator_groups(void) {
  const char *path = write_tmp("comm.yml",
                               "# TP over dims 1-2, PP over dim 3, DP-16 over dims 1-2\n"
                               "Forward: [4, 4, -1]\n"
                               "InputGrad: [4, 4, -1]\n"
                               "WeightGrad: [-1, -1, -1]\n"
                               "Groups:\n"
                               "  pp: [-1, -1, 8]\n"
                               "  DP_zero3: [ 4, 4, -1 ]\n");
  char file[WEFT_PATH_LEN];
  snprintf(file, sizeof file, "%s", path);
  WeftCommunicator comm;
  WeftError e;
  CHECK_EQ_INT(weft_communicator_read(file, &comm, &e), WEFT_OK);
  CHECK(comm.ndims == 3 && comm.nextra == 2);
  CHECK(!strcmp(comm.extra_name[0], "pp") && !strcmp(comm.extra_name[1], "DP_zero3"));
  CHECK(comm.extra[0][0] == -1 && comm.extra[0][1] == -1 && comm.extra[0][2] == 8);
  CHECK(comm.extra[1][0] == 4 && comm.extra[1][1] == 4 && comm.extra[1][2] == -1);
  CHECK(comm.extra_line[0] == 6 && comm.extra_line[1] == 7);
  CHECK(weft_communicator_find(&comm, "pp") == comm.extra[0]);
  CHECK(weft_communicator_find(&comm, "DP_zero3") == comm.extra[1]);
  CHECK(weft_communicator_find(&comm, "dp_zero3") == NULL);  /* names are case-sensitive */
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 3;
  net.npus[0] = 4, net.npus[1] = 4, net.npus[2] = 8;
  CHECK_EQ_INT(weft_communicator_check(&comm, &net, &e), WEFT_OK);
  /* the check covers the named groups: 8 NPUs of a dim of 4 */
  net.npus[2] = 4;
  CHECK_ERR(weft_communicator_check(&comm, &net, &e), &e, WEFT_EINPUT, file, 6, 0, "Groups.pp",
            "group pp on dim 3 is 8: must be -1 or 1..4 (the dim's NPUs)");
  net.npus[2] = 8;
  comm.extra[1][0] = 0;
  CHECK_ERR(weft_communicator_check(&comm, &net, &e), &e, WEFT_EINPUT, file, 7, 0,
            "Groups.DP_zero3", "group DP_zero3 on dim 1 is 0: must be -1 or 1..4");
  comm.extra[1][0] = 4;
  snprintf(comm.extra_name[1], sizeof comm.extra_name[1], "pp");
  CHECK_ERR(weft_communicator_check(&comm, &net, &e), &e, WEFT_EINPUT, file, 7, 0, "Groups.pp",
            "group 'pp' is named twice");
  snprintf(comm.extra_name[1], sizeof comm.extra_name[1], "p p");
  CHECK_ERR(weft_communicator_check(&comm, &net, &e), &e, WEFT_EINPUT, file, 7, 0, "Groups",
            "named group 2 is called 'p p'");
  comm.nextra = WEFT_MAX_GROUPS + 1;
  CHECK_EQ_INT(weft_communicator_check(&comm, &net, &e), WEFT_EINVAL);
  /* the snake_case alias, an empty mapping, no Groups at all */
  path = write_tmp("c2.yml", "forward: [4]\ninput_grad: [4]\nweight_grad: [4]\ngroups: {}\n");
  CHECK_EQ_INT(weft_communicator_read(path, &comm, &e), WEFT_OK);
  CHECK(comm.ndims == 1 && comm.nextra == 0);
  path = write_tmp("c2.yml", "forward: [4]\ninput_grad: [4]\nweight_grad: [4]\ngroups: {x: [2]}\n");
  CHECK_EQ_INT(weft_communicator_read(path, &comm, &e), WEFT_OK);
  CHECK(comm.nextra == 1 && !strcmp(comm.extra_name[0], "x") && comm.extra[0][0] == 2);
  CHECK_EQ_INT(weft_communicator_read(FIX "comm_3d.yml", &comm, &e), WEFT_OK);
  CHECK(comm.nextra == 0 && weft_communicator_find(&comm, "pp") == NULL);
  tmp_cleanup();
}

static void communicator_groups_bad(void) {
#define C3 "Forward: [4, 1]\nInputGrad: [4, 1]\nWeightGrad: [-1, 2]\n"
  static const BadCase cases[] = {
      {C3 "Groups: [1]\n", WEFT_EINPUT, 4, 9, "Groups", "Groups must be a mapping, got a sequence"},
      {C3 "Groups:\n  pp: [4]\n", WEFT_EINPUT, 5, 7, "Groups.pp",
       "Groups.pp has 1 entry, Forward has 2"},
      {C3 "Groups: {pp: [4, 0]}\n", WEFT_EINPUT, 4, 18, "Groups.pp",
       "Groups.pp entry 2 must be -1 (not involved) or >= 1, got 0"},
      {C3 "Groups: {pp: [4, x]}\n", WEFT_EINPUT, 4, 18, "Groups.pp",
       "Groups.pp entry 2 must be a number, got 'x'"},
      {C3 "Groups: {pp: 4}\n", WEFT_EINPUT, 4, 14, "Groups.pp", "Groups.pp must be a sequence"},
      {C3 "groups:\n  p-p: [4, 1]\n", WEFT_EINPUT, 5, 3, "groups",
       "groups: group name 'p-p' must be 1 to 15 letters, digits or '_'"},
      {C3 "Groups:\n  abcdefghijklmnop: [4, 1]\n", WEFT_EINPUT, 5, 3, "Groups",
       "group name 'abcdefghijklmnop' must be 1 to 15"},
      {C3 "Groups: {a: [1, 1], b: [1, 1], c: [1, 1], d: [1, 1], e: [1, 1], f: [1, 1], "
          "g: [1, 1], h: [1, 1], i: [1, 1]}\n",
       WEFT_EINPUT, 4, -1, "Groups", "Groups has more than 8 groups"},
      {C3 "Groups:\n", WEFT_EINPUT, 4, -1, "Groups", "Groups must be a mapping"},
      {C3 "Groups: {pp: [1, 1]}\ngroups: {dp: [1, 1]}\n", WEFT_EINPUT, 5, 1, "groups",
       "duplicate key"},
      {C3 "Groups: {pp: [1, 1], pp: [1, 2]}\n", WEFT_EINPUT, 4, 22, NULL, "duplicate key 'pp'"},
      {C3 "Group: {pp: [1, 1]}\n", WEFT_EINPUT, 4, 1, "Group", "unknown key 'Group'"},
  };
#undef C3
  run_bad(cases, sizeof cases / sizeof cases[0], "comm.yml", read_comm);
}

/* Every field the reader fills, except file and the layers' lines. */
static void same_workload(int at, const WeftWorkload *a, const WeftWorkload *b) {
  int ok = a->nlayers == b->nlayers && !strcmp(a->policy, b->policy) && a->ngroups == b->ngroups;
  for (int k = 0; ok && k < a->ngroups; k++) ok = !strcmp(a->group_name[k], b->group_name[k]);
  for (int i = 0; ok && i < a->nlayers; i++) {
    const WeftLayer *x = &a->layers[i], *y = &b->layers[i];
    ok = !strcmp(x->name, y->name) && x->update_ns == y->update_ns;
    for (int p = 0; ok && p < WEFT_NPHASES; p++)
      ok = x->phase[p].coll == y->phase[p].coll && x->phase[p].group == y->phase[p].group &&
           x->phase[p].compute_ns == y->phase[p].compute_ns &&
           x->phase[p].size_bytes == y->phase[p].size_bytes &&
           (x->phase[p].coll == WEFT_COLL_NONE ||
            weft_phase_calls(&x->phase[p]) == weft_phase_calls(&y->phase[p]));
    if (!ok) fprintf(stderr, "  layer %d differs\n", i + 1);
  }
  if (!ok) {
    fprintf(stderr, "  %s:%d: workloads differ\n", __FILE__, at);
    test_failures_++;
  }
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static WeftPhaseSpec ph(double compute_ns, WeftCollective c, double size_bytes, int group) {
  WeftPhaseSpec s = {compute_ns, c, size_bytes, group, 0.0, 0.0};
  return s;
}

static void workload_write_roundtrip(void) {
  WeftWorkload *wl = weft_workload_create();
  if (!wl) return;
  snprintf(wl->policy, sizeof wl->policy, "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4");
  wl->ngroups = 2;
  snprintf(wl->group_name[0], 16, "pp");
  snprintf(wl->group_name[1], 16, "dp");
  WeftLayer l;
  memset(&l, 0, sizeof l);
  snprintf(l.name, sizeof l.name, "L0");
  l.phase[0] = ph(10, WEFT_COLL_ALLREDUCE, 1024, 0);
  l.phase[1] = ph(20.5, WEFT_COLL_SENDRECV, 4096, 1);
  l.phase[2] = ph(30, WEFT_COLL_ALLREDUCE, 8192.25, 2);
  l.phase[2].calls = 30.8125;  /* written after the group: *30.8125 */
  l.update_ns = 7;
  weft_workload_add(wl, &l);
  snprintf(l.name, sizeof l.name, "L1");
  l.phase[0] = ph(1, WEFT_COLL_NONE, 0, 0);
  l.phase[1] = ph(2, WEFT_COLL_NONE, 0, 0);
  l.phase[2] = ph(0.1, WEFT_COLL_ALLTOALL, 3, 1);
  l.phase[2].calls = 1;  /* one call: nothing written, as 0 */
  l.phase[1].calls = 4;  /* NONE: nothing written, ignored */
  l.update_ns = 0;
  weft_workload_add(wl, &l);
  char path[WEFT_PATH_LEN];
  snprintf(path, sizeof path, "%s", write_tmp("out.txt", "old contents\n"));
  WeftError e;
  CHECK_EQ_INT(weft_workload_write(path, wl, &e), WEFT_OK);
  /* by the format: header, count, then 12 fields; integers plain, 0.1 as
   * %.17g, @name only where a group is used, *calls only where not 1 */
  const char *want =
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4\n"
      "2\n"
      "L0 -1 10 ALLREDUCE 1024 20.5 SENDRECV@pp 4096 30 ALLREDUCE@dp*30.8125 8192.25 7\n"
      "L1 -1 1 NONE 0 2 NONE 0 0.10000000000000001 ALLTOALL@pp 3 0\n";
  const char *got = slurp(path);
  CHECK(got && strcmp(got, want) == 0);
  if (got && strcmp(got, want)) fprintf(stderr, "  wrote:\n%s", got);
  WeftWorkload *back = NULL;
  CHECK_EQ_INT(weft_workload_read(path, &back, &e), WEFT_OK);
  if (back) {
    same_workload(__LINE__, wl, back);
    CHECK(back->layers[0].line == 3 && back->layers[1].line == 4);
  }
  weft_workload_free(back);

  /* awkward numbers come back bit for bit; no policy: no header (LIBRA's form) */
  /* (within the readers' ranges, io/limits.h: at most 1e18, no denormals) */
  static const double nums[] = {1.0 / 3.0, 7.5e17, 123456789012345678.0, 2.2250738585072014e-308,
                                1e18, 0.0, 2.5e-7, 9007199254740993.0, 4.35e15};
  wl->policy[0] = '\0';
  wl->nlayers = 0;
  for (int i = 0; i < 9; i++) {
    snprintf(l.name, sizeof l.name, "n%d", i);
    for (int p = 0; p < WEFT_NPHASES; p++)
      l.phase[p] = ph(nums[(i + p) % 9], WEFT_COLL_SENDRECV, nums[(i + 2 * p + 1) % 9], p % 3);
    l.update_ns = nums[(i + 5) % 9];
    weft_workload_add(wl, &l);
  }
  CHECK_EQ_INT(weft_workload_write(path, wl, &e), WEFT_OK);
  got = slurp(path);
  CHECK(got && strncmp(got, "n0 -1 ", 6) == 0);
  CHECK_EQ_INT(weft_workload_read(path, &back, &e), WEFT_OK);
  if (back) {
    same_workload(__LINE__, wl, back);
    CHECK(back->layers[0].line == 1 && back->layers[8].line == 9);
  }
  weft_workload_free(back);
  weft_workload_free(wl);
  tmp_cleanup();
}

static void communicator_write_roundtrip(void) {
  WeftCommunicator c;
  memset(&c, 0, sizeof c);
  c.ndims = 4;
  static const int g[3][4] = {{4, 4, -1, -1}, {4, 4, -1, -1}, {-1, 2, 4, 32}};
  for (int p = 0; p < WEFT_NPHASES; p++) memcpy(c.group[p], g[p], sizeof g[p]);
  char path[WEFT_PATH_LEN];
  snprintf(path, sizeof path, "%s", write_tmp("comm.yml", "old\n"));
  WeftError e;
  CHECK_EQ_INT(weft_communicator_write(path, &c, &e), WEFT_OK);
  const char *libra =  /* LIBRA's GPT_3_4d.yml without its comments */
      "Forward: [ 4, 4, -1, -1 ]\nInputGrad: [ 4, 4, -1, -1 ]\nWeightGrad: [ -1, 2, 4, 32 ]\n";
  const char *got = slurp(path);
  CHECK(got && strcmp(got, libra) == 0);
  /* the same text as LIBRA's own file, when it is around */
  FILE *f = fopen("/work/shared/libra-format/communicator/GPT_3_4d.yml", "r");
  if (f) {
    char line[256], body[512] = "";
    while (fgets(line, sizeof line, f))
      if (line[0] != '#' && line[0] != '\n') strncat(body, line, sizeof body - strlen(body) - 1);
    fclose(f);
    CHECK(strcmp(body, libra) == 0);
  }
  c.nextra = 2;
  snprintf(c.extra_name[0], 16, "pp");
  snprintf(c.extra_name[1], 16, "dp_z3");
  static const int x[2][4] = {{-1, -1, 2, -1}, {-1, 2, 2, 32}};
  for (int k = 0; k < 2; k++) memcpy(c.extra[k], x[k], sizeof x[k]);
  CHECK_EQ_INT(weft_communicator_write(path, &c, &e), WEFT_OK);
  got = slurp(path);
  const char *want =
      "Forward: [ 4, 4, -1, -1 ]\nInputGrad: [ 4, 4, -1, -1 ]\nWeightGrad: [ -1, 2, 4, 32 ]\n"
      "Groups:\n  pp: [ -1, -1, 2, -1 ]\n  dp_z3: [ -1, 2, 2, 32 ]\n";
  CHECK(got && strcmp(got, want) == 0);
  WeftCommunicator b;
  CHECK_EQ_INT(weft_communicator_read(path, &b, &e), WEFT_OK);
  CHECK(b.ndims == 4 && b.nextra == 2);
  for (int p = 0; p < WEFT_NPHASES; p++) CHECK(memcmp(b.group[p], c.group[p], 4 * sizeof(int)) == 0);
  CHECK(memcmp(b.extra[0], c.extra[0], 4 * sizeof(int)) == 0 &&
        memcmp(b.extra[1], c.extra[1], 4 * sizeof(int)) == 0);
  CHECK(!strcmp(b.extra_name[0], "pp") && !strcmp(b.extra_name[1], "dp_z3"));
  CHECK(b.line[0] == 1 && b.line[1] == 2 && b.line[2] == 3 && b.extra_line[0] == 5 &&
        b.extra_line[1] == 6);
  tmp_cleanup();
}

static void write_errors(void) {
  WeftWorkload *wl = weft_workload_create();
  if (!wl) return;
  WeftError e;
  char path[WEFT_PATH_LEN];
  snprintf(path, sizeof path, "%s", write_tmp("keep.txt", "old contents\n"));
  CHECK_EQ_INT(weft_workload_write(NULL, wl, &e), WEFT_EINVAL);
  CHECK_EQ_INT(weft_workload_write("", wl, &e), WEFT_EINVAL);
  CHECK_EQ_INT(weft_workload_write(path, NULL, &e), WEFT_EINVAL);
  CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "", "no layers");
  WeftLayer l;
  memset(&l, 0, sizeof l);
  snprintf(l.name, sizeof l.name, "a b");
  weft_workload_add(wl, &l);
  CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "name",
            "layer 1: name 'a b' must be one word");
  snprintf(wl->layers[0].name, WEFT_NAME_LEN, "#a");
  CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "name", "'#a'");
  snprintf(wl->layers[0].name, WEFT_NAME_LEN, "a");
  wl->layers[0].phase[1] = ph(1, WEFT_COLL_SENDRECV, 8, 1);  /* no groups named */
  CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "ig_type",
            "layer 'a': group index 1 out of range (0 named groups)");
  wl->ngroups = 1;
  snprintf(wl->group_name[0], 16, "p-p");
  CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "group",
            "group name 'p-p'");
  snprintf(wl->group_name[0], 16, "pp");
  wl->layers[0].phase[2].compute_ns = HUGE_VAL;
  CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "wg_compute",
            "layer 'a': wg_compute must be finite and >= 0, got inf");
  wl->layers[0].phase[2].compute_ns = 0;
  wl->layers[0].phase[0].size_bytes = -1;
  CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "fwd_size", "got -1");
  wl->layers[0].phase[0].size_bytes = 0;
  wl->layers[0].phase[0].coll = (WeftCollective)WEFT_NCOLL;
  CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "fwd_type",
            "unknown collective 6");
  wl->layers[0].phase[0].coll = WEFT_COLL_NONE;
  static const char *const bad_policy[] = {"# DATA", "   ", "a\nb", "1 2 3 4 5 6 7 8 9 10 11 12"};
  for (int i = 0; i < 4; i++) {
    snprintf(wl->policy, sizeof wl->policy, "%s", bad_policy[i]);
    CHECK_ERR(weft_workload_write(path, wl, &e), &e, WEFT_EINVAL, path, 0, 0, "policy",
              "would not read back");
  }
  snprintf(wl->policy, sizeof wl->policy, "1 2 3 4 5 6 7 8 9 10 11");  /* 11 fields: fine */
  const char *kept = slurp(path);
  CHECK(kept && !strcmp(kept, "old contents\n"));  /* every refusal left the file alone */
  CHECK_EQ_INT(weft_workload_write(path, wl, &e), WEFT_OK);
  kept = slurp(path);
  CHECK(kept && !strcmp(kept, "1 2 3 4 5 6 7 8 9 10 11\n1\na -1 0 NONE 0 1 SENDRECV@pp 8 0 NONE 0 0\n"));
  /* I/O: a missing directory; a directory in the target's place (refused
   * before any temporary is made: the scratch directory holds just keep.txt) */
  CHECK_ERR(weft_workload_write("no/such/dir/w.txt", wl, &e), &e, WEFT_EIO, "no/such/dir/w.txt", 0,
            0, "", "cannot create file: no such file or directory");
  char dir[WEFT_PATH_LEN];
  snprintf(dir, sizeof dir, "%s", tmp_path("adir"));
  CHECK(mkdir(dir, 0755) == 0);
  CHECK_ERR(weft_workload_write(dir, wl, &e), &e, WEFT_EIO, dir, 0, 0, "", "cannot write file: is a directory");
  WeftCommunicator c;
  memset(&c, 0, sizeof c);
  CHECK_ERR(weft_communicator_write(dir, &c, &e), &e, WEFT_EINVAL, dir, 0, 0, "", "1 to 16 dims");
  c.ndims = 2;
  c.group[0][0] = c.group[1][0] = c.group[2][0] = 2;
  c.group[0][1] = c.group[1][1] = c.group[2][1] = -1;
  c.group[1][1] = 0;
  CHECK_ERR(weft_communicator_write(dir, &c, &e), &e, WEFT_EINVAL, dir, 0, 0, "InputGrad",
            "InputGrad entry 2 must be -1 (not involved) or >= 1, got 0");
  c.group[1][1] = -1;
  c.nextra = 2;
  snprintf(c.extra_name[0], 16, "pp");
  snprintf(c.extra_name[1], 16, "pp");
  c.extra[0][0] = c.extra[0][1] = c.extra[1][0] = c.extra[1][1] = 2;
  CHECK_ERR(weft_communicator_write(dir, &c, &e), &e, WEFT_EINVAL, dir, 0, 0, "Groups",
            "group 'pp' is named twice");
  snprintf(c.extra_name[1], 16, "dp");
  c.extra[1][1] = -3;
  CHECK_ERR(weft_communicator_write(dir, &c, &e), &e, WEFT_EINVAL, dir, 0, 0, "Groups.dp",
            "Groups.dp entry 2 must be -1 (not involved) or >= 1, got -3");
  c.extra[1][1] = 2;
  c.extra_name[1][0] = '\0';
  CHECK_ERR(weft_communicator_write(dir, &c, &e), &e, WEFT_EINVAL, dir, 0, 0, "Groups",
            "group name ''");
  snprintf(c.extra_name[1], 16, "dp");
  c.nextra = 9;
  CHECK_ERR(weft_communicator_write(dir, &c, &e), &e, WEFT_EINVAL, dir, 0, 0, "Groups",
            "9 named groups");
  c.nextra = 2;
  CHECK_ERR(weft_communicator_write(dir, &c, &e), &e, WEFT_EIO, dir, 0, 0, "", "cannot write file: is a directory");
  CHECK(rmdir(dir) == 0);
  DIR *dp = opendir(tmp_dir);
  int others = 0;
  for (struct dirent *de; dp && (de = readdir(dp));)
    others += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "keep.txt");
  if (dp) closedir(dp);
  CHECK_EQ_INT(others, 0);
  weft_workload_free(wl);
  tmp_cleanup();
}

/* Net 4 x 4 x 8 (Ring, FullyConnected, Switch), sum B = 1000; one layer:
 * input-grad SENDRECV of 1 GB over pp = dim 3 (8 stages), weight-grad
 * ALLREDUCE of 1.2 GB over dp = dims 1-2 (4 x 4). By hand: the send puts
 * 1e9 B on dim 3; the all-reduce 2*1.2e9*3/4 = 1.8e9 on dim 1, then
 * 2*3e8*3/4 = 4.5e8 on dim 2, best split B1 = 4 B2 so it takes
 * 1.875*1.2e9/x = 2.25e9/x with x = B1 + B2. Minimising 1e9/B3 + 2.25e9/x
 * with B3 + x = 1000: B3 : x = sqrt(1e9) : sqrt(2.25e9) = 1 : 1.5, so
 * B = (480, 120, 400) and time = 1e6+2e6+3e6 compute + 2.5e6 + 3.75e6 ns. */
typedef struct {
  WeftNetwork net;
  WeftCostModel cm;
  WeftConstraints cons;
} GroupsNet;

static void groups_net(GroupsNet *g) {
  static const int npus[3] = {4, 4, 8};
  static const WeftTopology topo[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  memset(g, 0, sizeof *g);
  g->net.ndims = 3;
  g->cm.nclasses = 3;
  for (int d = 0; d < 3; d++) {
    g->net.npus[d] = npus[d];
    g->net.topology[d] = topo[d];
    snprintf(g->net.cost_dim[d], WEFT_NAME_LEN, "c%d", d);
    snprintf(g->cm.cls[d].name, WEFT_NAME_LEN, "c%d", d);
    g->cm.cls[d].link_usd_per_gbps = 2.0 * (d + 1);
    g->cm.cls[d].switch_usd_per_gbps = g->cm.cls[d].nic_usd_per_gbps = 1.0;
    g->cm.cls[d].has_link = g->cm.cls[d].has_switch = g->cm.cls[d].has_nic = 1;
  }
  WeftError e;
  CHECK_EQ_INT(weft_constraints_parse(&g->cons, "sum = 1000", 3, &e), WEFT_OK);
}

static int groups_problem(const GroupsNet *g, const WeftWorkload *wl, const WeftCommunicator *comm,
                          WeftProblem **p, WeftError *e) {
  WeftSpec spec;
  memset(&spec, 0, sizeof spec);
  spec.net = &g->net;
  spec.cost = &g->cm;
  spec.njobs = 1;
  spec.jobs[0].workload = wl;
  spec.jobs[0].comm = comm;
  spec.jobs[0].weight = 1.0;
  spec.cons = &g->cons;
  return weft_problem_create(&spec, p, e);
}

static void groups_solve(const WeftWorkload *wl, const WeftCommunicator *comm, double *bw,
                         double *time_ns) {
  GroupsNet g;
  groups_net(&g);
  WeftProblem *p = NULL;
  WeftResult r;
  WeftError e;
  memset(&r, 0, sizeof r);
  CHECK_EQ_INT(weft_communicator_check(comm, &g.net, &e), WEFT_OK);
  CHECK_EQ_INT(groups_problem(&g, wl, comm, &p, &e), WEFT_OK);
  if (p) CHECK_EQ_INT(weft_problem_solve(p, NULL, &r), WEFT_OK);
  CHECK(r.status == WEFT_STATUS_SOLVED);
  for (int d = 0; d < 3; d++) bw[d] = r.bw_gbps[d];
  *time_ns = r.eval.time_ns;
  weft_problem_free(p);
}

static void groups_solve_same(void) {
  static const double want_bw[3] = {480.0, 120.0, 400.0}, want_ns = 6e6 + 2.5e6 + 3.75e6;
  double bw[3][3], t[3];
  /* 1: in memory, named groups */
  WeftWorkload *wl = weft_workload_create();
  if (!wl) return;
  WeftLayer l;
  memset(&l, 0, sizeof l);
  snprintf(l.name, sizeof l.name, "stage");
  l.phase[0] = ph(1e6, WEFT_COLL_NONE, 0, 0);
  l.phase[1] = ph(2e6, WEFT_COLL_SENDRECV, 1e9, 1);
  l.phase[2] = ph(3e6, WEFT_COLL_ALLREDUCE, 1.2e9, 2);
  weft_workload_add(wl, &l);
  wl->ngroups = 2;
  snprintf(wl->group_name[0], 16, "pp");
  snprintf(wl->group_name[1], 16, "dp");
  WeftCommunicator comm;
  memset(&comm, 0, sizeof comm);
  comm.ndims = 3;
  for (int p = 0; p < WEFT_NPHASES; p++)
    for (int d = 0; d < 3; d++) comm.group[p][d] = -1;
  comm.nextra = 2;
  snprintf(comm.extra_name[0], 16, "dp");  /* the communicator's order need not match */
  snprintf(comm.extra_name[1], 16, "pp");
  static const int dp[3] = {4, 4, -1}, pp[3] = {-1, -1, 8};
  memcpy(comm.extra[0], dp, sizeof dp);
  memcpy(comm.extra[1], pp, sizeof pp);
  groups_solve(wl, &comm, bw[0], &t[0]);
  weft_workload_free(wl);
  /* 2: the same from files with @names and Groups: */
  WeftError e;
  char wpath[WEFT_PATH_LEN], cpath[WEFT_PATH_LEN];
  snprintf(wpath, sizeof wpath, "%s",
           write_tmp("g.txt", "stage -1 1000000 NONE 0 2000000 SENDRECV@pp 1000000000 3000000 "
                              "ALLREDUCE@dp 1200000000 0\n"));
  snprintf(cpath, sizeof cpath, "%s",
           write_tmp("g.yml", "Forward: [-1, -1, -1]\nInputGrad: [-1, -1, -1]\n"
                              "WeightGrad: [-1, -1, -1]\nGroups:\n  dp: [4, 4, -1]\n"
                              "  pp: [-1, -1, 8]\n"));
  wl = NULL;
  CHECK_EQ_INT(weft_workload_read(wpath, &wl, &e), WEFT_OK);
  CHECK_EQ_INT(weft_communicator_read(cpath, &comm, &e), WEFT_OK);
  if (wl) groups_solve(wl, &comm, bw[1], &t[1]);
  weft_workload_free(wl);
  /* 3: LIBRA's plain form: the phases' own groups carry the same dims */
  write_tmp("g.txt", "stage -1 1000000 NONE 0 2000000 SENDRECV 1000000000 3000000 ALLREDUCE "
                     "1200000000 0\n");
  write_tmp("g.yml", "Forward: [-1, -1, -1]\nInputGrad: [-1, -1, 8]\nWeightGrad: [4, 4, -1]\n");
  wl = NULL;
  CHECK_EQ_INT(weft_workload_read(wpath, &wl, &e), WEFT_OK);
  CHECK_EQ_INT(weft_communicator_read(cpath, &comm, &e), WEFT_OK);
  if (wl) groups_solve(wl, &comm, bw[2], &t[2]);
  weft_workload_free(wl);
  for (int k = 0; k < 3; k++) {
    for (int d = 0; d < 3; d++) CHECK_NEAR(bw[k][d], want_bw[d], 1e-7);
    CHECK_NEAR(t[k], want_ns, 1e-9);
  }
  /* a workload naming a group its communicator lacks: a clear input error */
  write_tmp("g.txt", "stage -1 1 NONE 0 1 SENDRECV@ep 8 1 NONE 0 0\n");
  wl = NULL;
  CHECK_EQ_INT(weft_workload_read(wpath, &wl, &e), WEFT_OK);
  if (wl) {
    GroupsNet g;
    groups_net(&g);
    WeftProblem *p = NULL;
    CHECK_ERR(groups_problem(&g, wl, &comm, &p, &e), &e, WEFT_EINPUT, wpath, 0, 0, "ep",
              "the workload uses group 'ep', which the communicator");
    weft_problem_free(p);
  }
  weft_workload_free(wl);
  tmp_cleanup();
}

/* An ASTRA-sim 2.0 analytical network, as weft exports it: per-link
 * bandwidth in ASTRA-sim's GB/s (2^30 bytes/s) and latency per hop. By hand:
 * Ring of 4, 100 per link, 2 links per NPU: 2 x 100 x 1.073741824 =
 * 214.7483648 GB/s; FullyConnected of 8, 10 per link, 7 links: 75.16192768;
 * Switch of 4, 50: 53.6870912. Latency per step: ring and direct steps are
 * one hop (100, 200 ns), a switch step two (2 x 300 = 600 ns). No
 * CostDimension: the cost model's classes are taken in order. */
static void network_read_astra(void) {
  const char *path = write_tmp("astra.yml",
                               "topology: [ Ring, FullyConnected, Switch ]\n"
                               "npus_count: [ 4, 8, 4 ]\n"
                               "bandwidth: [ 100.0, 10.0, 50.0 ]\n"
                               "latency: [ 100, 200, 300 ]\n");
  WeftNetwork net;
  WeftError e;
  CHECK_EQ_INT(weft_network_read(path, &net, &e), WEFT_OK);
  CHECK_NEAR(net.design_gbps[0], 214.7483648, 1e-15);
  CHECK_NEAR(net.design_gbps[1], 75.16192768, 1e-15);
  CHECK_NEAR(net.design_gbps[2], 53.6870912, 1e-15);
  CHECK_NEAR(net.latency_ns[0], 100.0, 0);
  CHECK_NEAR(net.latency_ns[1], 200.0, 0);
  CHECK_NEAR(net.latency_ns[2], 600.0, 0);
  WeftCostModel cm;
  memset(&cm, 0, sizeof cm);
  double cpg[WEFT_MAX_DIMS];
  cm.nclasses = 2; /* one class short: refused, saying why */
  for (int i = 0; i < 3; i++) {
    snprintf(cm.cls[i].name, WEFT_NAME_LEN, "k%d", i);
    cm.cls[i].link_usd_per_gbps = cm.cls[i].switch_usd_per_gbps = cm.cls[i].nic_usd_per_gbps = i + 1;
    cm.cls[i].has_link = cm.cls[i].has_switch = cm.cls[i].has_nic = 1;
  }
  CHECK_EQ_INT(weft_cost_per_gbps(&net, &cm, cpg, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "no CostDimension") != NULL);
  cm.nclasses = 3; /* 4 x 8 x 4 = 128 NPUs; the Switch dim pays Link + Switch + Nic: 3 x 3 */
  CHECK_EQ_INT(weft_cost_per_gbps(&net, &cm, cpg, &e), WEFT_OK);
  CHECK_NEAR(cpg[0], 128.0 * 1, 0);
  CHECK_NEAR(cpg[2], 128.0 * 9, 0);
  /* latency (per hop) and LatencyNs (per step) together are ambiguous */
  path = write_tmp("astra2.yml", "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 1.0 ]\n"
                                 "latency: [ 1 ]\nLatencyNs: [ 1 ]\n");
  CHECK_EQ_INT(weft_network_read(path, &net, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "not both") != NULL);
  /* a bandwidth out of weft's range (1e-6..1e12 GB/s) at its entry, when
   * read: 0 was taken as "no design" and failed at the solve ("give --bw") */
  static const char *const bad[] = {"0", "-6", "2e12", "5e-7"};
  for (int i = 0; i < 4; i++) {
    char text[160];
    snprintf(text, sizeof text, "topology: [ Ring, Switch ]\nnpus_count: [ 4, 4 ]\n"
                                "bandwidth: [ 6, %s ]\n", bad[i]);
    path = write_tmp("astra3.yml", text);
    CHECK_EQ_INT(weft_network_read(path, &net, &e), WEFT_EINPUT);
    CHECK(e.line == 3 && e.col == 17 && !strcmp(e.field, "bandwidth"));
    CHECK(strstr(e.msg, "bandwidth entry 2 must be at least 1e-6 and at most 1e12") != NULL);
  }
  path = write_tmp("astra3.yml", "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 1e-6 ]\n");
  CHECK_EQ_INT(weft_network_read(path, &net, &e), WEFT_OK); /* the end of the range itself */
}

const TestCase suite_io[] = {
    {"io/network_read_astra", network_read_astra},
    {"io/yaml_tree", yaml_tree},
    {"io/yaml_syntax_errors", yaml_syntax_errors},
    {"io/yaml_numbers", yaml_numbers},
    {"io/network_read", network_read_2d_3d},
    {"io/network_bad", network_bad},
    {"io/cost_model_read", cost_model_read},
    {"io/cost_model_bad", cost_model_bad},
    {"io/communicator_read", communicator_read},
    {"io/communicator_bad", communicator_bad},
    {"io/workload_plain", workload_plain},
    {"io/workload_header", workload_header},
    {"io/workload_bad", workload_bad},
    {"io/workload_speed", workload_speed},
    {"io/scenario_single", scenario_single},
    {"io/scenario_multi_inline", scenario_multi_inline},
    {"io/scenario_bad", scenario_bad},
    {"io/libra_reference", libra_reference},
    {"io/workload_groups", workload_groups},
    {"io/workload_groups_bad", workload_groups_bad},
    {"io/communicator_groups", communicator_groups},
    {"io/communicator_groups_bad", communicator_groups_bad},
    {"io/workload_write_roundtrip", workload_write_roundtrip},
    {"io/communicator_write_roundtrip", communicator_write_roundtrip},
    {"io/write_errors", write_errors},
    {"io/groups_solve_same", groups_solve_same},
    {0, 0},
};
