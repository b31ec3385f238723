/* yaml.c — build a WeftYamlNode tree from libyaml's event stream.
 * One document, no aliases, each mapping's keys once (a hash set), no NUL
 * in a scalar; libyaml's syntax errors become WEFT_ESYNTAX. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/util.h"
#include "io/yaml.h"

#define MAX_DEPTH 64  /* our inputs nest 3 deep; bounds recursion on hostile input */

typedef struct {
  yaml_parser_t parser;
  const char *text;  /* the input, to turn a reader error's offset into line:col */
  size_t len;
  const char *file;
  WeftError *err;
} Loader;

void weft_yaml_free(WeftYamlNode *node) {
  if (!node) return;
  for (int i = 0; i < node->n * (node->kind == WEFT_YAML_MAPPING ? 2 : 1); i++)
    weft_yaml_free(node->child[i]);
  free(node->child);
  free(node->text);
  free(node);
}

static void lowercase(char *s) {
  for (; *s; s++)
    if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
}

/* libyaml's error, lowercased, at its place. Reader errors (bad encoding)
 * carry a byte offset only: count lines up to it. */
static int parser_error(Loader *L) {
  const yaml_parser_t *p = &L->parser;
  if (p->error == YAML_MEMORY_ERROR)
    return weft_error_set(L->err, WEFT_ENOMEM, L->file, 0, 0, NULL, "out of memory parsing yaml");
  char problem[128], context[128];
  snprintf(problem, sizeof problem, "%s", p->problem ? p->problem : "unknown yaml error");
  lowercase(problem);
  int line = 0, col = 0;
  if (p->error == YAML_READER_ERROR) {
    size_t off = p->problem_offset < L->len ? p->problem_offset : L->len;
    line = 1;
    col = 1;
    for (size_t i = 0; i < off; i++) {
      if (L->text[i] == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
  } else {
    line = (int)p->problem_mark.line + 1;
    col = (int)p->problem_mark.column + 1;
  }
  if (p->context) {
    snprintf(context, sizeof context, "%s", p->context);
    lowercase(context);
    return weft_error_set(L->err, WEFT_ESYNTAX, L->file, line, col, NULL, "%s (%s at %d:%d)",
                          problem, context, (int)p->context_mark.line + 1,
                          (int)p->context_mark.column + 1);
  }
  return weft_error_set(L->err, WEFT_ESYNTAX, L->file, line, col, NULL, "%s", problem);
}

static int next_event(Loader *L, yaml_event_t *ev) {
  if (!yaml_parser_parse(&L->parser, ev)) return parser_error(L);
  return WEFT_OK;
}

static WeftYamlNode *new_node(WeftYamlKind kind, const yaml_event_t *ev) {
  WeftYamlNode *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->line = (int)ev->start_mark.line + 1;
  n->col = (int)ev->start_mark.column + 1;
  return n;
}

/* Count UTF-8 characters: libyaml's marks count characters, not bytes. */
static size_t utf8_chars(const char *s, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) n += ((unsigned char)s[i] & 0xC0) != 0x80;
  return n;
}

/* field: the key whose value this is (NULL for a key, or at the top). */
static int scalar_node(Loader *L, const yaml_event_t *ev, const char *field,
                       WeftYamlNode **out) {
  size_t len = ev->data.scalar.length;
  if (memchr(ev->data.scalar.value, '\0', len))  /* "\0" or "\u0000": C strings stop there */
    return weft_error_set(L->err, WEFT_EINPUT, L->file, (int)ev->start_mark.line + 1,
                          (int)ev->start_mark.column + 1, field,
                          "%s%s%s contains a NUL character (\\0), which no name or value may",
                          field ? "the value of '" : "a key", field ? field : "",
                          field ? "'" : "");
  WeftYamlNode *n = new_node(WEFT_YAML_SCALAR, ev);
  if (!n || !(n->text = malloc(len + 1))) {
    free(n);
    return weft_error_set(L->err, WEFT_ENOMEM, L->file, 0, 0, NULL, "out of memory parsing yaml");
  }
  memcpy(n->text, ev->data.scalar.value, len);
  n->text[len] = '\0';
  n->len = len;
  yaml_scalar_style_t st = ev->data.scalar.style;
  int one_line = ev->start_mark.line == ev->end_mark.line;
  n->plain = st == YAML_PLAIN_SCALAR_STYLE;
  if (n->plain && one_line) {
    n->value_col = n->col;
  } else if ((st == YAML_SINGLE_QUOTED_SCALAR_STYLE || st == YAML_DOUBLE_QUOTED_SCALAR_STYLE) &&
             one_line &&
             ev->end_mark.index - ev->start_mark.index == utf8_chars(n->text, len) + 2) {
    n->value_col = n->col + 1;  /* no escapes: the source is the text in quotes */
  }
  *out = n;
  return WEFT_OK;
}

/* A mapping's keys seen so far, to find a duplicate in O(1) per key (a scan of
 * the earlier keys made an 80,000-key file take seconds): open addressing,
 * slot = pair index + 1 (0 empty), at most half full. */
typedef struct {
  int *slot;
  size_t cap;  /* a power of two, or 0 before the first key */
} KeySet;

static size_t key_hash(const char *s, size_t len) {
  uint64_t h = 1469598103934665603u;  /* FNV-1a, 64-bit */
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return (size_t)h;
}

/* Place pair index i (its key child[2i]) unless an equal key is there. */
static int keys_place(const KeySet *ks, WeftYamlNode *const *child, int i,
                      const WeftYamlNode **first) {
  const WeftYamlNode *k = child[2 * i];
  for (size_t h = key_hash(k->text, k->len) & (ks->cap - 1);; h = (h + 1) & (ks->cap - 1)) {
    if (!ks->slot[h]) {
      ks->slot[h] = i + 1;
      return 0;
    }
    const WeftYamlNode *o = child[2 * (ks->slot[h] - 1)];
    if (o->len == k->len && memcmp(o->text, k->text, k->len) == 0) {
      *first = o;
      return 1;
    }
  }
}

/* Add the key of pair npairs - 1; *first = the earlier equal key, if any. */
static int keys_add(Loader *L, KeySet *ks, WeftYamlNode *const *child, int npairs,
                    const WeftYamlNode **first) {
  if ((size_t)npairs * 2 > ks->cap) {  /* grow: rehash the pairs before this one */
    size_t cap = ks->cap ? 2 * ks->cap : 16;
    int *slot = calloc(cap, sizeof *slot);
    if (!slot)
      return weft_error_set(L->err, WEFT_ENOMEM, L->file, 0, 0, NULL,
                            "out of memory parsing yaml");
    free(ks->slot);
    ks->slot = slot;
    ks->cap = cap;
    for (int i = 0; i + 1 < npairs; i++) keys_place(ks, child, i, first);
  }
  keys_place(ks, child, npairs - 1, first);
  return WEFT_OK;
}

static int build(Loader *L, const yaml_event_t *ev, int depth, const char *field,
                 WeftYamlNode **out);

/* Children of a sequence or mapping until its end event. */
static int collection_node(Loader *L, const yaml_event_t *start, int depth, const char *field,
                           WeftYamlNode **out) {
  int is_map = start->type == YAML_MAPPING_START_EVENT;
  yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
  WeftYamlNode *n = new_node(is_map ? WEFT_YAML_MAPPING : WEFT_YAML_SEQUENCE, start);
  if (!n)
    return weft_error_set(L->err, WEFT_ENOMEM, L->file, 0, 0, NULL, "out of memory parsing yaml");
  int used = 0, rc;  /* entries of child[] in use (a mapping: 2 per pair) */
  KeySet keys = {NULL, 0};
  for (;;) {
    yaml_event_t ev;
    if ((rc = next_event(L, &ev))) goto fail;
    if (ev.type == end) {
      yaml_event_delete(&ev);
      break;
    }
    WeftYamlNode *c = NULL;
    const char *f = !is_map ? field : used % 2 ? n->child[used - 1]->text : NULL;
    rc = build(L, &ev, depth + 1, f, &c);
    yaml_event_delete(&ev);
    if (rc) goto fail;
    if (used == n->cap) {
      int cap = n->cap ? 2 * n->cap : 8;
      WeftYamlNode **ch = realloc(n->child, (size_t)cap * sizeof *ch);
      if (!ch) {
        weft_yaml_free(c);
        rc = weft_error_set(L->err, WEFT_ENOMEM, L->file, 0, 0, NULL,
                            "out of memory parsing yaml");
        goto fail;
      }
      n->child = ch;
      n->cap = cap;
    }
    n->child[used++] = c;
    if (is_map && used % 2 == 1) {  /* a key: a scalar, not seen before */
      if (c->kind != WEFT_YAML_SCALAR) {
        rc = weft_error_set(L->err, WEFT_EINPUT, L->file, c->line, c->col, NULL,
                            "mapping keys must be plain names, not %s",
                            c->kind == WEFT_YAML_MAPPING ? "mappings" : "sequences");
        goto fail;
      }
      const WeftYamlNode *first = NULL;
      if ((rc = keys_add(L, &keys, n->child, used / 2 + 1, &first))) goto fail;
      if (first) {
        rc = weft_error_set(L->err, WEFT_EINPUT, L->file, c->line, c->col, c->text,
                            "duplicate key '%s' (first at line %d)", c->text, first->line);
        goto fail;
      }
    }
  }
  free(keys.slot);
  n->n = is_map ? used / 2 : used;
  *out = n;
  return WEFT_OK;
fail:
  free(keys.slot);
  for (int i = 0; i < used; i++) weft_yaml_free(n->child[i]);
  n->n = 0;
  weft_yaml_free(n);
  return rc;
}

static int build(Loader *L, const yaml_event_t *ev, int depth, const char *field,
                 WeftYamlNode **out) {
  *out = NULL;
  if (depth > MAX_DEPTH)
    return weft_error_set(L->err, WEFT_EINPUT, L->file, (int)ev->start_mark.line + 1,
                          (int)ev->start_mark.column + 1, NULL,
                          "yaml nested deeper than %d levels", MAX_DEPTH);
  switch (ev->type) {
    case YAML_SCALAR_EVENT: return scalar_node(L, ev, field, out);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: return collection_node(L, ev, depth, field, out);
    case YAML_ALIAS_EVENT:
      return weft_error_set(L->err, WEFT_EINPUT, L->file, (int)ev->start_mark.line + 1,
                            (int)ev->start_mark.column + 1, NULL,
                            "yaml aliases ('*%s') are not supported",
                            (const char *)ev->data.alias.anchor);
    default:
      return weft_error_set(L->err, WEFT_ESYNTAX, L->file, (int)ev->start_mark.line + 1,
                            (int)ev->start_mark.column + 1, NULL, "unexpected yaml event");
  }
}

/* stream-start, [document-start, node, document-end], stream-end. */
static int load(Loader *L, WeftYamlNode **root) {
  yaml_event_t ev;
  WeftYamlNode *doc = NULL;
  int ndocs = 0, rc;
  for (;;) {
    if ((rc = next_event(L, &ev))) goto fail;
    yaml_event_type_t t = ev.type;
    if (t == YAML_DOCUMENT_START_EVENT && ++ndocs > 1) {
      rc = weft_error_set(L->err, WEFT_EINPUT, L->file, (int)ev.start_mark.line + 1,
                          (int)ev.start_mark.column + 1, NULL,
                          "expected one yaml document, found a second one");
      yaml_event_delete(&ev);
      goto fail;
    }
    if (t == YAML_SCALAR_EVENT || t == YAML_SEQUENCE_START_EVENT ||
        t == YAML_MAPPING_START_EVENT || t == YAML_ALIAS_EVENT) {
      rc = build(L, &ev, 1, NULL, &doc);
      if (rc) {
        yaml_event_delete(&ev);
        goto fail;
      }
    }
    yaml_event_delete(&ev);
    if (t == YAML_STREAM_END_EVENT) break;
  }
  *root = doc;
  return WEFT_OK;
fail:
  weft_yaml_free(doc);
  return rc;
}

int weft_yaml_load_string(const char *text, size_t len, const char *name, WeftYamlNode **root,
                          WeftError *err) {
  if (!root) return weft_error_set(err, WEFT_EINVAL, name, 0, 0, NULL, "no output tree");
  *root = NULL;
  if (!text) return weft_error_set(err, WEFT_EINVAL, name, 0, 0, NULL, "no yaml text");
  int rc = weft_io_check_text_size(name, len, err);
  if (rc) return rc;
  Loader L = {.text = text, .len = len, .file = name ? name : "", .err = err};
  if (!yaml_parser_initialize(&L.parser))
    return weft_error_set(err, WEFT_ENOMEM, L.file, 0, 0, NULL, "out of memory parsing yaml");
  yaml_parser_set_input_string(&L.parser, (const unsigned char *)text, len);
  rc = load(&L, root);
  yaml_parser_delete(&L.parser);
  return rc;
}

int weft_yaml_load_file(const char *path, WeftYamlNode **root, WeftError *err) {
  if (!root) return weft_error_set(err, WEFT_EINVAL, path, 0, 0, NULL, "no output tree");
  *root = NULL;
  if (!path) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no file name");
  char *buf;
  size_t len;
  int rc = weft_io_read_file(path, &buf, &len, err);
  if (rc) return rc;
  rc = weft_yaml_load_string(buf, len, path, root, err);
  free(buf);
  return rc;
}
