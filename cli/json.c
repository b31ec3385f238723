/* json.c — JSON scalars for every command's output: strings that are valid
 * UTF-8 JSON whatever bytes an input file held, and numbers or null. */
#include <math.h>

#include "cli.h"

/* Length of the well-formed UTF-8 sequence at s (Unicode Table 3-7), or,
 * when it is ill-formed, minus the length of its maximal subpart: the bytes
 * that begin a well-formed sequence, one U+FFFD for all of them (Unicode's
 * recommended practice, as Python's and WHATWG's decoders do). */
static int utf8_seq(const unsigned char *s) {
  unsigned c = s[0];
  int n;
  unsigned lo = 0x80, hi = 0xBF;  /* range of the second byte */
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;        /* no overlong forms */
    else if (c == 0xED) hi = 0x9F;   /* no surrogates D800..DFFF */
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;        /* no overlong forms */
    else if (c == 0xF4) hi = 0x8F;   /* nothing past U+10FFFF */
  } else {
    return -1;                       /* 80..C1 (continuation, overlong lead), F5..FF */
  }
  if (s[1] < lo || s[1] > hi) return -1;
  for (int k = 2; k < n; k++)
    if (s[k] < 0x80 || s[k] > 0xBF) return -k;
  return n;
}

void cli_json_str(FILE *out, const char *str) {
  const unsigned char *s = (const unsigned char *)str;
  fputc('"', out);
  while (*s) {
    unsigned c = *s;
    int n = utf8_seq(s);
    if (n < 0) {
      fputs("\\ufffd", out);
      s += -n;
    } else if (c == '"' || c == '\\') {
      fprintf(out, "\\%c", (int)c);
      s++;
    } else if (c < 0x20) {
      fprintf(out, "\\u%04x", c);
      s++;
    } else {
      fwrite(s, 1, (size_t)n, out);
      s += n;
    }
  }
  fputc('"', out);
}

void cli_json_num(FILE *out, double v) {
  if (isfinite(v)) fprintf(out, "%.12g", v);
  else fputs("null", out);
}
