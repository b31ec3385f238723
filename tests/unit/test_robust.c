/* test_robust.c — inputs built to break the readers (issue 21's hostile
 * tester): mappings of many keys, NUL characters, files given in the wrong
 * place, duplicate system.txt keys, text past the input cap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "io/limits.h"
#include "io/yaml.h"
#include "weft.h"

/* msg contains want, and the error is at file:line (col when >= 0). */
static int err_is(const WeftError *e, int code, const char *file, int line, int col,
                  const char *want) {
  int ok = e->code == code && !strcmp(e->file, file) && e->line == line &&
           (col < 0 || e->col == col) && strstr(e->msg, want) != NULL;
  if (!ok)
    fprintf(stderr, "  got %d %s:%d:%d [%s] '%s', want %d %s:%d:%d '%s'\n", e->code, e->file,
            e->line, e->col, e->field, e->msg, code, file, line, col, want);
  return ok;
}

/* "k0: 0\nk1: 1\n..." with n keys, then "extra" (NULL: nothing). */
static char *many_keys(int n, const char *extra) {
  size_t cap = (size_t)n * 24 + 64;
  char *t = malloc(cap), *p = t;
  if (!t) return NULL;
  for (int i = 0; i < n; i++) p += sprintf(p, "k%d: %d\n", i, i);
  if (extra) p += sprintf(p, "%s", extra);
  return t;
}

/* A mapping of 20,000 distinct keys loads whole, each key found with its
 * own value; a repeat of any one, appended, is the error at its line naming
 * the first (line i + 1 for key i): the key set finds equal keys among many
 * that share hash slots, and never calls two different keys equal. */
static void yaml_many_keys(void) {
  enum { N = 20000 };
  char *t = many_keys(N, NULL);
  WeftYamlNode *root = NULL;
  WeftError e;
  CHECK(t && weft_yaml_load_string(t, strlen(t), "m.yml", &root, &e) == WEFT_OK);
  CHECK(root && root->kind == WEFT_YAML_MAPPING && root->n == N);
  for (int i = 0; root && i < N; i += 997) {
    char k[16];
    snprintf(k, sizeof k, "k%d", i);
    const WeftYamlNode *v = weft_yaml_get(root, k, NULL);
    CHECK(v && atoi(v->text) == i);
  }
  weft_yaml_free(root);
  free(t);
  static const int repeat[] = {0, 1, 15, 16, 4095, 12345, N - 1};
  for (size_t r = 0; r < sizeof repeat / sizeof repeat[0]; r++) {
    char extra[32], want[64];
    snprintf(extra, sizeof extra, "k%d: again\n", repeat[r]);
    snprintf(want, sizeof want, "duplicate key 'k%d' (first at line %d)", repeat[r],
             repeat[r] + 1);
    t = many_keys(N, extra);
    root = (WeftYamlNode *)&root;
    CHECK(t && weft_yaml_load_string(t, strlen(t), "m.yml", &root, &e) == WEFT_EINPUT);
    CHECK(err_is(&e, WEFT_EINPUT, "m.yml", N + 1, 1, want));
    CHECK(root == NULL);
    free(t);
  }
  /* nested mappings each keep their own keys: 'a' in two of them is fine */
  const char *nested = "x: {a: 1, b: 2}\ny: {a: 3, b: {a: 4}}\n";
  CHECK(weft_yaml_load_string(nested, strlen(nested), "n.yml", &root, &e) == WEFT_OK);
  weft_yaml_free(root);
}

/* A NUL inside a scalar ("\0", "\u0000", "\x00") would cut the C string the
 * readers use: refused where it is, naming the key whose value it is. */
static void yaml_nul(void) {
  static const struct {
    const char *text, *field, *want;
    int line, col;
  } cases[] = {
      {"Topology: [Ring, \"Sw\\0itch\"]\n", "Topology", "the value of 'Topology' contains a NUL",
       1, 18},
      {"a: 1\nname: \"gpt\\u0000-secret\"\n", "name", "the value of 'name' contains a NUL", 2,
       7},
      {"m:\n  x: \"\\x00\"\n", "x", "the value of 'x' contains a NUL", 2, 6},
      {"\"ke\\0y\": 1\n", "", "a key contains a NUL", 1, 1},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    WeftYamlNode *root = (WeftYamlNode *)&root;
    WeftError e;
    const char *t = cases[c].text;
    CHECK_EQ_INT(weft_yaml_load_string(t, strlen(t), "z.yml", &root, &e), WEFT_EINPUT);
    CHECK(err_is(&e, WEFT_EINPUT, "z.yml", cases[c].line, cases[c].col, cases[c].want));
    CHECK(!strcmp(e.field, cases[c].field));
    CHECK(root == NULL);
  }
}

static const char *write_file(const char *dir, const char *name, const char *text, char *path,
                              size_t size) {
  snprintf(path, size, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  fputs(text, f);
  fclose(f);
  return path;
}

/* A file that is not YAML keys (a key file, a line of text) given as a
 * network, cost model, communicator or prices, or as a workload: the error
 * names the file and what it is, never its bytes. */
static void root_not_echoed(void) {
  char dir[] = "/tmp/weft-robust-XXXXXX", path[128];
  if (!mkdtemp(dir)) {
    CHECK(0);
    return;
  }
  write_file(dir, "secret.txt", "hunter2-secret-token\n", path, sizeof path);
  WeftError e;
  WeftNetwork net;
  WeftCostModel cm;
  WeftCommunicator comm;
  CHECK(weft_network_read(path, &net, &e) == WEFT_EINPUT);
  CHECK(err_is(&e, WEFT_EINPUT, path, 1, 1, "got plain text (not YAML keys)"));
  CHECK(strstr(e.msg, "hunter2") == NULL);
  CHECK(weft_cost_model_read(path, &cm, &e) == WEFT_EINPUT);
  CHECK(strstr(e.msg, "hunter2") == NULL && strstr(e.msg, "plain text"));
  CHECK(weft_communicator_read(path, &comm, &e) == WEFT_EINPUT);
  CHECK(strstr(e.msg, "hunter2") == NULL && strstr(e.msg, "plain text"));
  WeftPrices pr;
  CHECK(weft_topo_prices_read(path, &pr, &e) == WEFT_EINPUT);
  CHECK(strstr(e.msg, "hunter2") == NULL && strstr(e.msg, "plain text"));
  /* as a workload, a second line of one word reads as the layer count */
  write_file(dir, "secret.txt", "user alice\nhunter2-secret-token\n", path, sizeof path);
  WeftWorkload *wl = NULL;
  CHECK(weft_workload_read(path, &wl, &e) == WEFT_EINPUT);
  CHECK(err_is(&e, WEFT_EINPUT, path, 2, 1, "layer count must be an integer >= 0"));
  CHECK(strstr(e.msg, "hunter2") == NULL && wl == NULL);
  unlink(path);
  rmdir(dir);
}

/* ASTRA-sim's system.txt: a key given twice is an error at the second, naming
 * the first (ASTRA-sim keeps the last: two values, one silently dropped); a
 * file that is no system file is named, its first token not shown. */
static void system_txt(void) {
  char dir[] = "/tmp/weft-robust-XXXXXX", path[128];
  if (!mkdtemp(dir)) {
    CHECK(0);
    return;
  }
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 2;
  net.topology[0] = WEFT_RING;
  net.topology[1] = WEFT_SWITCH;
  net.npus[0] = net.npus[1] = 4;
  WeftSimSettings s;
  WeftError e;
  const char *ok = "all-reduce-implementation: ring_direct\npreferred-dataset-splits: 16\n";
  weft_sim_settings_default(&s);
  write_file(dir, "system.txt", ok, path, sizeof path);
  CHECK_EQ_INT(weft_astra1_system_read(path, &net, &s, &e), WEFT_OK);
  CHECK_EQ_INT(s.chunks, 16);
  const char *dup =
      "all-reduce-implementation: ring_direct\npreferred-dataset-splits: 16\n"
      "endpoint-delay: 10\npreferred-dataset-splits: 64\n";
  write_file(dir, "system.txt", dup, path, sizeof path);
  CHECK_EQ_INT(weft_astra1_system_read(path, &net, &s, &e), WEFT_EINPUT);
  CHECK(err_is(&e, WEFT_EINPUT, path, 4, -1,
               "duplicate key 'preferred-dataset-splits:' (first at line 2)"));
  CHECK(!strcmp(e.field, "preferred-dataset-splits:"));
  const char *dup_impl =
      "all-reduce-implementation: ring_direct\n"
      "all-reduce-implementation: direct_ring\n";
  write_file(dir, "system.txt", dup_impl, path, sizeof path);
  CHECK_EQ_INT(weft_astra1_system_read(path, &net, &s, &e), WEFT_EINPUT);
  CHECK(err_is(&e, WEFT_EINPUT, path, 2, -1, "(first at line 1)"));
  write_file(dir, "system.txt", "root:$6$hunter2secret:19000:0:99999:7:::\nx y\n", path,
             sizeof path);
  CHECK_EQ_INT(weft_astra1_system_read(path, &net, &s, &e), WEFT_EINPUT);
  CHECK(err_is(&e, WEFT_EINPUT, path, 1, -1, "is this an ASTRA-sim 1.0 system file?"));
  CHECK(strstr(e.msg, "hunter2") == NULL && strstr(e.field, "hunter2") == NULL);
  write_file(dir, "system.txt", "hunter2secret\n", path, sizeof path);
  CHECK_EQ_INT(weft_astra1_system_read(path, &net, &s, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "hunter2") == NULL && strstr(e.field, "hunter2") == NULL);
  write_file(dir, "system.txt", "bogus-key: 1\n", path, sizeof path);
  CHECK_EQ_INT(weft_astra1_system_read(path, &net, &s, &e), WEFT_EINPUT);
  CHECK(err_is(&e, WEFT_EINPUT, path, 1, -1, "unknown key 'bogus-key:'"));
  unlink(path);
  rmdir(dir);
}

/* Text handed in memory has the files' cap (256 MiB): one byte more is
 * refused, naming the text's name, before any parsing. */
static void text_cap(void) {
  size_t n = (size_t)WEFT_MAX_INPUT_BYTES + 1;
  char *t = malloc(n + 1);
  if (!t) return;  /* no memory for the test: nothing to prove */
  memset(t, '#', n);  /* comments: a valid workload and YAML text, were it smaller */
  for (size_t i = 79; i < n; i += 80) t[i] = '\n';
  t[n] = '\0';
  WeftError e;
  WeftWorkload *wl = (WeftWorkload *)&wl;
  CHECK_EQ_INT(weft_workload_parse(t, "<workload>", &wl, &e), WEFT_EINPUT);
  CHECK(err_is(&e, WEFT_EINPUT, "<workload>", 0, 0, "larger than 256 MiB"));
  CHECK(wl == NULL);
  WeftNetwork net;
  CHECK_EQ_INT(weft_network_parse(t, "<network>", NULL, &net, &e), WEFT_EINPUT);
  CHECK(err_is(&e, WEFT_EINPUT, "<network>", 0, 0, "larger than 256 MiB"));
  t[n - 1] = '\0';  /* exactly the cap: read (and found to hold no layers) */
  CHECK_EQ_INT(weft_workload_parse(t, "<workload>", &wl, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "no layers") != NULL);
  free(t);
}

const TestCase suite_robust[] = {
    {"robust/yaml_many_keys", yaml_many_keys},
    {"robust/yaml_nul", yaml_nul},
    {"robust/root_not_echoed", root_not_echoed},
    {"robust/system_txt", system_txt},
    {"robust/text_cap", text_cap},
    {0, 0},
};
