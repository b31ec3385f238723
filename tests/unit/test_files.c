/* test_files.c — output files (WeftOut: temporaries, write-through, links,
 * commits of several files) and the CLI's JSON string writer on byte strings
 * that are not valid UTF-8. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../cli/cli.h"
#include "../test.h"
#include "weft.h"

/* ------------------------------------------------------------------ JSON */

/* cli_json_str(s) as a malloc'd string. */
static char *json(const char *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  cli_json_str(f, s);
  fclose(f);
  return buf;
}

static int json_is(const char *in, const char *want) {
  char *got = json(in);
  int ok = got && !strcmp(got, want);
  if (!ok) fprintf(stderr, "  json: got %s, expected %s\n", got ? got : "(null)", want);
  free(got);
  return ok;
}

/* Hand-derived cases: Unicode's Table 3-7 (well-formed sequences) and the
 * maximal-subpart practice of Table 3-8 (one U+FFFD per maximal subpart). */
static void json_strings(void) {
  CHECK(json_is("plain", "\"plain\""));
  CHECK(json_is("a\"b\\c", "\"a\\\"b\\\\c\""));
  CHECK(json_is("\x01\n\x1f ", "\"\\u0001\\u000a\\u001f \""));
  CHECK(json_is("\x7f", "\"\x7f\""));  /* DEL is allowed raw in JSON */
  /* well-formed UTF-8 at every length and at the edges: passed through */
  CHECK(json_is("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""));
  CHECK(json_is("\xc2\x80\xdf\xbf", "\"\xc2\x80\xdf\xbf\""));          /* U+0080, U+07FF */
  CHECK(json_is("\xe0\xa0\x80\xed\x9f\xbf", "\"\xe0\xa0\x80\xed\x9f\xbf\""));  /* U+0800, U+D7FF */
  CHECK(json_is("\xee\x80\x80\xef\xbf\xbf", "\"\xee\x80\x80\xef\xbf\xbf\""));  /* U+E000, U+FFFF */
  CHECK(json_is("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", "\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\""));
  /* Table 3-8's own example: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 */
  CHECK(json_is("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
                "\"a\\ufffd\\ufffd\\ufffdb\\ufffdc\\ufffd\\ufffdd\""));
  /* overlong encodings: C0/C1 never lead; E0 80.., F0 80.. are not well-formed starts */
  CHECK(json_is("\xc0\xaf", "\"\\ufffd\\ufffd\""));
  CHECK(json_is("\xc1\xbf", "\"\\ufffd\\ufffd\""));
  CHECK(json_is("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\""));
  CHECK(json_is("\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""));
  /* surrogates encoded in UTF-8 (CESU-8 style): ED A0..BF is ill-formed */
  CHECK(json_is("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""));
  CHECK(json_is("\xed\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\""));
  /* past U+10FFFF, and bytes that never occur */
  CHECK(json_is("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""));
  CHECK(json_is("\xf5\xff\xfe", "\"\\ufffd\\ufffd\\ufffd\""));
  /* lone continuation bytes */
  CHECK(json_is("x\x80y\xbf", "\"x\\ufffdy\\ufffd\""));
  /* truncated sequences: one U+FFFD for the started part, the next character kept */
  CHECK(json_is("ab\xe2\x82", "\"ab\\ufffd\""));
  CHECK(json_is("\xf0\x9f\x98", "\"\\ufffd\""));
  CHECK(json_is("\xe2\x82z", "\"\\ufffdz\""));
  CHECK(json_is("\xc3\"", "\"\\ufffd\\\"\""));  /* a quote after a cut lead stays escaped */
}

/* An oracle written differently: decode by bit patterns to a code point,
 * then reject overlong forms, surrogates and values past U+10FFFF. */
static int oracle_valid(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    int len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || i + (size_t)len > n) return 0;
    unsigned long cp = len == 1 ? c : c & (0x7Fu >> len);
    for (int k = 1; k < len; k++) {
      if ((s[i + (size_t)k] & 0xC0) != 0x80) return 0;
      cp = cp << 6 | (s[i + (size_t)k] & 0x3Fu);
    }
    static const unsigned long min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
    i += (size_t)len;
  }
  return 1;
}

/* Every string of 1 to 3 bytes over an alphabet of edge bytes: the output is
 * well-formed UTF-8; a well-formed input comes back unchanged; an ill-formed
 * one gets at least one and at most one-per-byte U+FFFD. */
static void json_property(void) {
  static const unsigned char alpha[] = {0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                        0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE,
                                        0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF};
  const int A = (int)sizeof alpha;
  int bad = 0, tried = 0;
  for (int len = 1; len <= 3; len++) {
    int total = len == 1 ? A : len == 2 ? A * A : A * A * A;
    for (int code = 0; code < total; code++) {
      unsigned char in[4] = {0};
      for (int k = 0, c = code; k < len; k++, c /= A) in[k] = alpha[c % A];
      char *out = json((const char *)in);
      if (!out) {
        bad++;
        continue;
      }
      tried++;
      size_t on = strlen(out);
      int ok = on >= 2 && out[0] == '"' && out[on - 1] == '"' &&
               oracle_valid((const unsigned char *)out, on);
      int nrep = 0;
      for (const char *p = out; (p = strstr(p, "\\ufffd")); p += 6) nrep++;
      if (oracle_valid(in, (size_t)len))
        ok = ok && nrep == 0 && on == (size_t)len + 2 && !memcmp(out + 1, in, (size_t)len);
      else
        ok = ok && nrep >= 1 && nrep <= len;
      if (!ok && bad++ < 5) {
        fprintf(stderr, "  input");
        for (int k = 0; k < len; k++) fprintf(stderr, " %02X", in[k]);
        fprintf(stderr, " -> %s\n", out);
      }
      free(out);
    }
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(tried, 22 + 22 * 22 + 22 * 22 * 22);
}

/* ------------------------------------------------------------------ files */

static int entries(const char *dir, char *names, size_t size) {
  DIR *d = opendir(dir);
  int n = 0;
  names[0] = '\0';
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    n++;
    if (names[0]) strncat(names, " ", size - strlen(names) - 1);
    strncat(names, e->d_name, size - strlen(names) - 1);
  }
  closedir(d);
  return n;
}

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static int holds(const char *path, const char *text) {
  char buf[256];
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return !strcmp(buf, text);
}

static int write_one(const char *path, const char *text, WeftError *err) {
  WeftOut *o;
  int rc = weft_out_open(path, &o, err);
  if (rc) return rc;
  fputs(text, weft_out_stream(o));
  return weft_out_commit(o, err);
}

static void out_regular(void) {
  char dir[] = "/tmp/weft_out_XXXXXX", p[128], q[128], names[256];
  if (!mkdtemp(dir)) {
    CHECK(0);
    return;
  }
  WeftError err;
  mode_t mask = umask(022);
  /* a new file: the umask's mode; while open, a temporary beside it */
  snprintf(p, sizeof p, "%s/new.txt", dir);
  WeftOut *o;
  CHECK_EQ_INT(weft_out_open(p, &o, &err), WEFT_OK);
  CHECK(weft_out_temp(o) && !strncmp(weft_out_temp(o), p, strlen(p)) &&
        !strncmp(weft_out_temp(o) + strlen(p), ".tmp.", 5));
  CHECK(access(p, F_OK) != 0);  /* not there before the commit */
  fputs("one\n", weft_out_stream(o));
  CHECK_EQ_INT(weft_out_commit(o, &err), WEFT_OK);
  struct stat st;
  CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644);
  CHECK(holds(p, "one\n"));
  /* a replaced file keeps its mode */
  CHECK(chmod(p, 0600) == 0);
  CHECK_EQ_INT(write_one(p, "two\n", &err), WEFT_OK);
  CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600 && holds(p, "two\n"));
  /* discarded: the temporary goes, the old file stays */
  CHECK_EQ_INT(weft_out_open(p, &o, &err), WEFT_OK);
  fputs("three\n", weft_out_stream(o));
  weft_out_discard(o);
  CHECK(holds(p, "two\n"));
  CHECK_EQ_INT(entries(dir, names, sizeof names), 1);
  /* a symbolic link: the file it names is replaced, the link stays a link */
  snprintf(q, sizeof q, "%s/link.txt", dir);
  CHECK(symlink("new.txt", q) == 0);
  CHECK_EQ_INT(write_one(q, "via link\n", &err), WEFT_OK);
  CHECK(lstat(q, &st) == 0 && S_ISLNK(st.st_mode));
  CHECK(holds(p, "via link\n"));
  CHECK(unlink(q) == 0);
  /* a dangling link names the file to create */
  CHECK(symlink("made.txt", q) == 0);
  CHECK_EQ_INT(write_one(q, "made\n", &err), WEFT_OK);
  snprintf(p, sizeof p, "%s/made.txt", dir);
  CHECK(holds(p, "made\n"));
  CHECK(lstat(q, &st) == 0 && S_ISLNK(st.st_mode));
  CHECK(unlink(q) == 0 && unlink(p) == 0);
  /* a directory: refused at open, nothing made */
  snprintf(p, sizeof p, "%s/adir", dir);
  CHECK(mkdir(p, 0755) == 0);
  CHECK_EQ_INT(weft_out_open(p, &o, &err), WEFT_EIO);
  CHECK(strstr(err.msg, "is a directory") != NULL && !strcmp(err.file, p));
  CHECK(rmdir(p) == 0);
  /* a missing directory on the way; an empty path */
  snprintf(p, sizeof p, "%s/no/such.txt", dir);
  CHECK_EQ_INT(weft_out_open(p, &o, &err), WEFT_EIO);
  CHECK(strstr(err.msg, "cannot create file") != NULL);
  CHECK_EQ_INT(weft_out_open("", &o, &err), WEFT_EINVAL);
  snprintf(p, sizeof p, "%s/new.txt", dir);
  CHECK_EQ_INT(entries(dir, names, sizeof names), 1);
  CHECK(!strcmp(names, "new.txt"));
  CHECK(unlink(p) == 0 && rmdir(dir) == 0);
  umask(mask);
}

/* Devices are written through, never replaced: /dev/null takes anything,
 * /dev/full fails at the commit with ENOSPC's text, both stay devices. */
static void out_devices(void) {
  WeftError err;
  WeftOut *o;
  struct stat st;
  CHECK_EQ_INT(weft_out_open("/dev/null", &o, &err), WEFT_OK);
  CHECK(weft_out_temp(o) == NULL);
  fputs("gone\n", weft_out_stream(o));
  CHECK_EQ_INT(weft_out_commit(o, &err), WEFT_OK);
  CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
  if (access("/dev/full", W_OK) != 0) return;  /* not on every system */
  CHECK_EQ_INT(weft_out_open("/dev/full", &o, &err), WEFT_OK);
  CHECK(weft_out_temp(o) == NULL);
  fputs("too much\n", weft_out_stream(o));
  CHECK_EQ_INT(weft_out_commit(o, &err), WEFT_EIO);
  char want[128];
  snprintf(want, sizeof want, "cannot write file: %s", strerror(ENOSPC));
  want[19] = (char)(want[19] - 'A' + 'a');
  CHECK(!strcmp(err.msg, want) && !strcmp(err.file, "/dev/full"));
  CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
}

/* Two files committed as one: when the second cannot be renamed into place,
 * the first is put back as it was (old content, or no file when it was new),
 * and nothing is left beside them. */
static void out_commit_all(void) {
  char dir[] = "/tmp/weft_out_XXXXXX", a[128], b[128], names[256];
  if (!mkdtemp(dir)) {
    CHECK(0);
    return;
  }
  WeftError err;
  WeftOut *o[2];
  snprintf(a, sizeof a, "%s/P.txt", dir);
  snprintf(b, sizeof b, "%s/P.comm.yml", dir);
  for (int old_a = 1; old_a >= 0; old_a--) {
    if (old_a) put(a, "old a\n");
    CHECK_EQ_INT(weft_out_open(a, &o[0], &err), WEFT_OK);
    CHECK_EQ_INT(weft_out_open(b, &o[1], &err), WEFT_OK);
    fputs("new a\n", weft_out_stream(o[0]));
    fputs("new b\n", weft_out_stream(o[1]));
    CHECK(mkdir(b, 0755) == 0);  /* appears after the open: the rename fails */
    CHECK_EQ_INT(weft_out_commit_all(o, 2, &err), WEFT_EIO);
    CHECK(!strcmp(err.file, b) && strstr(err.msg, "cannot replace file") != NULL);
    if (old_a) CHECK(holds(a, "old a\n"));
    else CHECK(access(a, F_OK) != 0);
    struct stat st;
    CHECK(stat(b, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_EQ_INT(entries(dir, names, sizeof names), old_a ? 2 : 1);
    CHECK(rmdir(b) == 0);
    if (old_a) CHECK(unlink(a) == 0);
  }
  /* and when both can be renamed, both are new; no backup is left */
  put(a, "old a\n");
  put(b, "old b\n");
  CHECK_EQ_INT(weft_out_open(a, &o[0], &err), WEFT_OK);
  CHECK_EQ_INT(weft_out_open(b, &o[1], &err), WEFT_OK);
  fputs("new a\n", weft_out_stream(o[0]));
  fputs("new b\n", weft_out_stream(o[1]));
  CHECK_EQ_INT(weft_out_commit_all(o, 2, &err), WEFT_OK);
  CHECK(holds(a, "new a\n") && holds(b, "new b\n"));
  CHECK_EQ_INT(entries(dir, names, sizeof names), 2);
  CHECK(unlink(a) == 0 && unlink(b) == 0 && rmdir(dir) == 0);
}

const TestCase suite_files[] = {
    {"files/json_strings", json_strings},
    {"files/json_property", json_property},
    {"files/out_regular", out_regular},
    {"files/out_devices", out_devices},
    {"files/out_commit_all", out_commit_all},
    {0, 0},
};
