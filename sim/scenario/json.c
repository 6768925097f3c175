/* JSON files as gs_ynode trees (sim/scenario/json.h).
 *
 * jansson parses and validates; then one pass walks the jansson value and the text side by
 * side to give every node its line and column (jansson keeps no positions). Objects keep
 * their keys in document order (jansson >= 2.8 iterates in insertion order), which the walk
 * checks on every key written without escapes. Numbers, true, false and null keep their text
 * as written ("1e3" stays "1e3"), so a quantity reads as the file has it. jansson allocates
 * through the allocation seam (base/alloc.h), so its out-of-memory is reported as such.
 * Both passes are linear in the text (jansson's objects are hash tables, so its duplicate-key
 * check is too); each array item's jansson value is released as soon as it is converted, so
 * a large List (a kubectl snapshot's pods) is held twice only one item at a time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/readfile.h"
#include "sim/scenario/json.h"

struct walk {
    const char *t;
    size_t len, pos;
    int line;
    size_t line_start;
    struct gs_arena *a;
    const char *file;
    bool order_broken;
};

static void skip_ws(struct walk *w)
{
    while (w->pos < w->len) {
        char c = w->t[w->pos];
        if (c == '\n') {
            w->line++;
            w->line_start = w->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        w->pos++;
    }
}

/* At an opening quote: past the closing one. Valid JSON (jansson checked it). */
static void skip_string(struct walk *w)
{
    w->pos++;
    while (w->pos < w->len) {
        char c = w->t[w->pos];
        if (c == '\\')
            w->pos += 2;
        else if (c == '"') {
            w->pos++;
            return;
        } else
            w->pos++;
    }
}

static void skip_token(struct walk *w)
{
    while (w->pos < w->len && !strchr(",]}: \t\r\n", w->t[w->pos]))
        w->pos++;
}

static void expect_char(struct walk *w, char c)
{
    skip_ws(w);
    if (w->pos < w->len && w->t[w->pos] == c)
        w->pos++;
    else
        w->order_broken = true;
}

static struct gs_ynode *node(struct walk *w, enum gs_ytype type)
{
    struct gs_ynode *n = gs_arena_alloc(w->a, sizeof *n);
    if (!n)
        return NULL;
    n->type = type;
    n->file = w->file;
    n->line = w->line;
    n->col = (int)(w->pos - w->line_start) + 1;
    n->text = "";
    return n;
}

static struct gs_ynode *convert(struct walk *w, json_t *v);

static struct gs_ynode *object(struct walk *w, json_t *v)
{
    struct gs_ynode *n = node(w, GS_Y_MAP);
    if (!n)
        return NULL;
    size_t size = json_object_size(v);
    n->pairs = size ? gs_arena_alloc(w->a, sizeof *n->pairs * size) : NULL;
    if (size && !n->pairs)
        return NULL;
    w->pos++; /* '{' */
    int i = 0;
    for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it), i++) {
        skip_ws(w);
        const char *key = json_object_iter_key(it);
        struct gs_ynode *k = node(w, GS_Y_SCALAR);
        if (!k || !(k->text = gs_arena_strdup(w->a, key)))
            return NULL;
        size_t start = w->pos + 1;
        skip_string(w);
        size_t raw = w->pos > start ? w->pos - 1 - start : 0;
        /* The text's key here must be jansson's i-th: check when written without escapes. */
        if (!memchr(w->t + start, '\\', raw) && (raw != strlen(key) || memcmp(w->t + start, key, raw) != 0))
            w->order_broken = true;
        expect_char(w, ':');
        skip_ws(w);
        struct gs_ynode *val = convert(w, json_object_iter_value(it));
        if (!val)
            return NULL;
        n->pairs[i].key = k;
        n->pairs[i].value = val;
        skip_ws(w);
        if (w->pos < w->len && w->t[w->pos] == ',')
            w->pos++;
    }
    n->n = i;
    expect_char(w, '}');
    return n;
}

static struct gs_ynode *array(struct walk *w, json_t *v)
{
    struct gs_ynode *n = node(w, GS_Y_SEQ);
    if (!n)
        return NULL;
    size_t size = json_array_size(v);
    n->items = size ? gs_arena_alloc(w->a, sizeof *n->items * size) : NULL;
    if (size && !n->items)
        return NULL;
    w->pos++; /* '[' */
    for (size_t i = 0; i < size; i++) {
        skip_ws(w);
        if (!(n->items[i] = convert(w, json_array_get(v, i))))
            return NULL;
        /* Converted: release jansson's copy now (json_null() is a static singleton, so this
         * allocates nothing and cannot fail). */
        json_array_set_new(v, i, json_null());
        skip_ws(w);
        if (w->pos < w->len && w->t[w->pos] == ',')
            w->pos++;
    }
    n->n = (int)size;
    expect_char(w, ']');
    return n;
}

static struct gs_ynode *convert(struct walk *w, json_t *v)
{
    if (json_is_object(v))
        return object(w, v);
    if (json_is_array(v))
        return array(w, v);
    struct gs_ynode *n = node(w, GS_Y_SCALAR);
    if (!n)
        return NULL;
    if (json_is_string(v)) {
        n->plain = false;
        n->text = gs_arena_strdup(w->a, json_string_value(v));
        skip_string(w);
    } else {
        /* number, true, false, null: the text as written */
        size_t start = w->pos;
        skip_token(w);
        size_t len = w->pos - start;
        char *t = gs_arena_alloc(w->a, len + 1);
        if (t)
            memcpy(t, w->t + start, len);
        n->text = t;
        n->plain = true;
    }
    return n->text ? n : NULL;
}

int gs_json_load_string(const char *name, const char *text, struct gs_arena *a, struct gs_ynode **root,
                        struct gs_error *err)
{
    *root = NULL;
    json_error_t je;
    size_t len = strlen(text);
    /* jansson allocates through the seam like the rest of gpusim (no jansson value outlives
     * this function, so routing it here, before any is made, is safe). */
    json_set_alloc_funcs(gs_malloc, gs_free);
    unsigned long failures = gs_alloc_failures();
    json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    /* jansson reports some failed allocations as syntax errors, and survives others with a
     * value that lacks a key: any failed allocation during the parse is out of memory. */
    if (gs_alloc_failures() != failures || (!v && json_error_code(&je) == json_error_out_of_memory)) {
        json_decref(v);
        return gs_error_set(err, GS_ENOMEM, name, 0, 0, "out of memory");
    }
    if (!v) {
        if (len == 0)
            return gs_error_set(err, GS_EINVAL, name, 0, 0, "empty file: expected a JSON document");
        char qt[sizeof je.text * 4]; /* jansson quotes the input near the error: escape it */
        return gs_error_set(err, GS_EINVAL, name, je.line > 0 ? je.line : 0, je.column > 0 ? je.column : 0,
                            "invalid JSON: %s", gs_error_quote(je.text, sizeof je.text, sizeof je.text, qt, sizeof qt));
    }
    struct walk w = {.t = text, .len = len, .line = 1, .a = a, .file = gs_arena_strdup(a, name)};
    int rc = 0;
    if (!w.file) {
        rc = gs_error_set(err, GS_ENOMEM, name, 0, 0, "out of memory");
    } else {
        skip_ws(&w);
        *root = convert(&w, v);
        if (!*root)
            rc = gs_error_set(err, GS_ENOMEM, name, 0, 0, "out of memory");
        else if (w.order_broken)
            rc = gs_error_set(err, GS_EINTERNAL, name, 0, 0,
                              "internal error: jansson did not keep the keys in document order");
    }
    json_decref(v);
    if (rc)
        *root = NULL;
    return rc;
}

int gs_json_load_file(const char *path, const char *what, size_t limit, struct gs_arena *a, struct gs_ynode **root,
                      struct gs_error *err)
{
    *root = NULL;
    char *buf;
    size_t len;
    int rc = gs_read_input(path, what, limit, &buf, &len, err);
    if (rc)
        return rc;
    if (memchr(buf, '\0', len))
        rc = gs_error_set(err, GS_EINVAL, path, 0, 0, "invalid JSON: the file contains a NUL byte");
    else
        rc = gs_json_load_string(path, buf, a, root, err);
    gs_free(buf);
    return rc;
}
