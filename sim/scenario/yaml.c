/* gpusim internal: libyaml events -> gs_ynode tree with 1-based positions, and the checked
 * accessors the scenario decoders use (see yaml.h for the rules). */
#include "base/alloc.h"
#include "base/array.h"
#include "base/readfile.h"
#include "base/strmap.h"
#include "sim/scenario/yaml.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Expanded node limit: aliases are shared, not copied, but a decoder walks the expanded
 * tree, so "billion laughs" documents are refused here. */
#define GS_YAML_MAX_NODES 1000000
/* Mappings and sequences open inside each other. A scenario needs about 15 levels (a Job's
 * affinity terms); libyaml's scanner costs O(depth) per token (its simple-key stack), so a file
 * of 200000 '[' took 135 s to reject. libyaml produces the start events as it reads the
 * brackets, so stopping at the first event beyond the limit keeps the cost linear. */
#define GS_YAML_MAX_DEPTH 100

/* A mapping's keys are checked for duplicates by a linear scan up to this many pairs, then
 * through a hash map of its keys (so a mapping of N keys costs O(N), not O(N^2)). */
#define GS_YAML_KEYS_SCAN 8

/* ------------------------------------------------------------------ tree building */

struct frame {
    struct gs_ynode *node;   /* map or seq being built */
    void *vec;               /* malloc'd: struct gs_ypair[] (map) or struct gs_ynode *[] (seq) */
    int n, cap;
    struct gs_ynode *key;    /* map: pending key */
    struct gs_strmap keys;   /* map of more than GS_YAML_KEYS_SCAN pairs: key text -> pair index */
    long start_total;        /* expanded count when the node started (anchor weight) */
    char *anchor;            /* malloc'd, NULL when none */
};

struct anchor {
    char *name;              /* malloc'd */
    struct gs_ynode *node;
    long weight;             /* expanded node count of the anchored subtree */
};

struct builder {
    struct gs_arena *a;
    const char *file;        /* arena */
    int line_base, col_base; /* added to libyaml's 0-based marks (+1) */
    bool one_line;           /* a --set value without newlines */
    size_t len;              /* its length */
    struct gs_error *err;
    struct frame *st;
    int depth, st_cap;
    struct anchor *anchors;
    int nanchors, anchors_cap;
    struct gs_strmap anchor_index; /* anchor name -> index in anchors */
    long total;              /* expanded node count */
    long aliased;            /* how much of it aliases added (their anchors' weights) */
    struct gs_ynode *root;
};

static int mark_line(const struct builder *b, yaml_mark_t m)
{
    if (b->one_line)
        return 1 + b->line_base;
    return (int)m.line + 1 + b->line_base;
}

static int mark_col(const struct builder *b, yaml_mark_t m)
{
    /* --set fragments: the column is relative to the argument. libyaml puts the end of a
     * stream without a final newline on the next line: that is the end of the argument. */
    if (b->one_line && m.line > 0)
        return (int)b->len + 1 + b->col_base;
    return (int)m.column + 1 + (m.line == 0 ? b->col_base : 0);
}

static int berr(struct builder *b, int code, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int berr(struct builder *b, int code, int line, int col, const char *fmt, ...)
{
    char msg[sizeof b->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gs_error_set(b->err, code, b->file, line, col, "%s", msg);
}

static int nomem(struct builder *b)
{
    return gs_error_set(b->err, GS_ENOMEM, b->file, 0, 0, "out of memory while reading YAML");
}

/* Short quoted rendering of user text for messages: at most ~60 bytes, control characters
 * escaped. */
static void clip(const char *s, char *out, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; s[i] && j + 8 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= 60) {
            /* don't cut a UTF-8 sequence */
            if ((c & 0xC0) == 0x80) {
                out[j++] = (char)c;
                continue;
            }
            memcpy(out + j, "...", 3);
            j += 3;
            break;
        }
        if (c == '\n') {
            out[j++] = '\\';
            out[j++] = 'n';
        } else if (c == '\t') {
            out[j++] = '\\';
            out[j++] = 't';
        } else if (c < 0x20 || c == 0x7f) {
            j += (size_t)snprintf(out + j, n - j, "\\x%02x", c);
        } else {
            out[j++] = (char)c;
        }
    }
    out[j] = '\0';
}

static struct gs_ynode *new_node(struct builder *b, enum gs_ytype t, yaml_mark_t m)
{
    struct gs_ynode *n = gs_arena_alloc(b->a, sizeof *n);
    if (!n)
        return NULL;
    n->type = t;
    n->file = b->file;
    n->line = mark_line(b, m);
    n->col = mark_col(b, m);
    n->text = "";
    return n;
}

static int add_anchor(struct builder *b, const char *name, struct gs_ynode *node, long weight)
{
    /* A redefined anchor replaces the earlier one for later aliases (YAML 1.2). */
    int i = gs_strmap_get(&b->anchor_index, name);
    if (i >= 0) {
        b->anchors[i].node = node;
        b->anchors[i].weight = weight;
        return 0;
    }
    if (GS_GROW(b->anchors, b->anchors_cap, b->nanchors + 1))
        return nomem(b);
    char *copy = gs_strdup(name);
    if (!copy)
        return nomem(b);
    if (gs_strmap_add(&b->anchor_index, copy, b->nanchors, NULL) < 0) {
        gs_free(copy);
        return nomem(b);
    }
    b->anchors[b->nanchors].name = copy;
    b->anchors[b->nanchors].node = node;
    b->anchors[b->nanchors].weight = weight;
    b->nanchors++;
    return 0;
}

/* The index of the pair of map frame `f` whose key is `text`, or -1: a scan of a small
 * mapping, the frame's key index beyond GS_YAML_KEYS_SCAN pairs. The index holds every pair's
 * key once the mapping has grown past the scan (built then from the pairs so far). Returns -2
 * when out of memory. */
static int find_key(struct frame *f, const char *text)
{
    const struct gs_ypair *pairs = f->vec;
    if (f->n <= GS_YAML_KEYS_SCAN) {
        for (int i = 0; i < f->n; i++)
            if (strcmp(pairs[i].key->text, text) == 0)
                return i;
        return -1;
    }
    if (f->keys.n == 0) {
        if (gs_strmap_reserve(&f->keys, 2 * f->n))
            return -2;
        for (int i = 0; i < f->n; i++)
            if (gs_strmap_add(&f->keys, pairs[i].key->text, i, NULL) < 0)
                return -2;
    }
    return gs_strmap_get(&f->keys, text);
}

/* Count `k` more nodes (an alias: its anchor's weight) against GS_YAML_MAX_NODES; the message
 * says whether the document itself is that large or only its aliases make it so. */
static int count_nodes(struct builder *b, long k, const struct gs_ynode *at, bool alias)
{
    b->total += k;
    if (alias)
        b->aliased += k;
    if (b->total > GS_YAML_MAX_NODES) {
        if (b->aliased == 0)
            return berr(b, GS_EINVAL, at->line, at->col, "invalid YAML: more than %d nodes in the document",
                        GS_YAML_MAX_NODES);
        return berr(b, GS_EINVAL, at->line, at->col,
                    "invalid YAML: more than %d nodes after expanding aliases (%ld written, %ld from aliases)",
                    GS_YAML_MAX_NODES, b->total - b->aliased, b->aliased);
    }
    return 0;
}

/* Attach a finished node to its parent (or make it the root). */
static int attach(struct builder *b, struct gs_ynode *n)
{
    if (b->depth == 0) {
        b->root = n;
        return 0;
    }
    struct frame *f = &b->st[b->depth - 1];
    if (f->node->type == GS_Y_SEQ) {
        if (gs_array_grow(&f->vec, &f->cap, f->n + 1, sizeof(struct gs_ynode *)))
            return nomem(b);
        ((struct gs_ynode **)f->vec)[f->n++] = n;
        return 0;
    }
    /* map */
    if (!f->key) {
        if (n->type != GS_Y_SCALAR)
            return berr(b, GS_EINVAL, n->line, n->col,
                        "invalid YAML: mapping keys must be scalars, not a %s",
                        n->type == GS_Y_MAP ? "mapping" : "sequence");
        if (n->plain && strcmp(n->text, "<<") == 0)
            return berr(b, GS_EINVAL, n->line, n->col,
                        "merge keys ('<<') are not supported: write the keys out");
        int i = find_key(f, n->text);
        if (i == -2)
            return nomem(b);
        if (i >= 0) {
            const struct gs_ypair *pairs = f->vec;
            char k[96];
            clip(n->text, k, sizeof k);
            return berr(b, GS_EINVAL, n->line, n->col, "duplicate key '%s' (already set at line %d column %d)", k,
                        pairs[i].key->line, pairs[i].key->col);
        }
        f->key = n;
        return 0;
    }
    if (gs_array_grow(&f->vec, &f->cap, f->n + 1, sizeof(struct gs_ypair)))
        return nomem(b);
    /* Once the mapping is indexed, every key goes in (keys are arena text: stable). */
    if (f->keys.n > 0 && gs_strmap_add(&f->keys, f->key->text, f->n, NULL) < 0)
        return nomem(b);
    struct gs_ypair *p = &((struct gs_ypair *)f->vec)[f->n++];
    p->key = f->key;
    p->value = n;
    f->key = NULL;
    return 0;
}

static int push(struct builder *b, struct gs_ynode *n, const yaml_char_t *anchor)
{
    if (GS_GROW(b->st, b->st_cap, b->depth + 1))
        return nomem(b);
    struct frame *f = &b->st[b->depth++];
    memset(f, 0, sizeof *f);
    f->node = n;
    f->start_total = b->total;
    if (anchor) {
        f->anchor = gs_strdup((const char *)anchor);
        if (!f->anchor)
            return nomem(b);
    }
    return 0;
}

static int pop(struct builder *b)
{
    struct frame *f = &b->st[b->depth - 1];
    struct gs_ynode *n = f->node;
    int rc = 0;
    if (f->n > 0) {
        size_t sz = n->type == GS_Y_MAP ? sizeof(struct gs_ypair) : sizeof(struct gs_ynode *);
        void *copy = gs_arena_alloc(b->a, sz * (size_t)f->n);
        if (!copy) {
            rc = nomem(b);
        } else {
            memcpy(copy, f->vec, sz * (size_t)f->n);
            if (n->type == GS_Y_MAP)
                n->pairs = copy;
            else
                n->items = copy;
            n->n = f->n;
        }
    }
    if (!rc && f->anchor)
        rc = add_anchor(b, f->anchor, n, b->total - f->start_total);
    gs_free(f->vec);
    gs_free(f->anchor);
    gs_strmap_free(&f->keys);
    f->vec = NULL;
    f->anchor = NULL;
    b->depth--;
    if (!rc)
        rc = attach(b, n);
    return rc;
}

static void builder_free(struct builder *b)
{
    for (int i = 0; i < b->depth; i++) {
        gs_free(b->st[i].vec);
        gs_free(b->st[i].anchor);
        gs_strmap_free(&b->st[i].keys);
    }
    gs_free(b->st);
    for (int i = 0; i < b->nanchors; i++)
        gs_free(b->anchors[i].name);
    gs_free(b->anchors);
    gs_strmap_free(&b->anchor_index);
}

/* Line and column (1-based) of byte `off` in `text` (for libyaml reader errors). */
static void offset_pos(const char *text, size_t len, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static int parser_error(struct builder *b, yaml_parser_t *p, const char *text, size_t len)
{
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->error == YAML_MEMORY_ERROR)
        return nomem(b);
    if (p->error == YAML_READER_ERROR) {
        int line, col;
        offset_pos(text, len, p->problem_offset, &line, &col);
        if (line == 1)
            col += b->col_base;
        line += b->line_base;
        if (p->problem_value != -1)
            return berr(b, GS_EINVAL, line, col, "invalid YAML: %s (byte 0x%02X)", problem,
                        (unsigned)p->problem_value & 0xFFu);
        return berr(b, GS_EINVAL, line, col, "invalid YAML: %s", problem);
    }
    int line = mark_line(b, p->problem_mark), col = mark_col(b, p->problem_mark);
    if (p->context)
        return berr(b, GS_EINVAL, line, col, "invalid YAML: %s (%s started at line %d column %d)",
                    problem, p->context, mark_line(b, p->context_mark), mark_col(b, p->context_mark));
    return berr(b, GS_EINVAL, line, col, "invalid YAML: %s", problem);
}

static bool tag_is_str(const yaml_char_t *tag)
{
    /* `!!str 12` and the non-specific `! 12` make a string. */
    return tag && (strcmp((const char *)tag, YAML_STR_TAG) == 0 || strcmp((const char *)tag, "!") == 0);
}

static int handle_event(struct builder *b, yaml_event_t *ev)
{
    int rc = 0;
    struct gs_ynode *n;
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        n = new_node(b, GS_Y_SCALAR, ev->start_mark);
        if (!n)
            return nomem(b);
        size_t len = ev->data.scalar.length;
        if (memchr(ev->data.scalar.value, '\0', len))
            return berr(b, GS_EINVAL, n->line, n->col, "NUL characters in strings are not supported");
        char *t = gs_arena_alloc(b->a, len + 1);
        if (!t)
            return nomem(b);
        memcpy(t, ev->data.scalar.value, len);
        n->text = t;
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !tag_is_str(ev->data.scalar.tag);
        if ((rc = count_nodes(b, 1, n, false)))
            return rc;
        if (ev->data.scalar.anchor && (rc = add_anchor(b, (const char *)ev->data.scalar.anchor, n, 1)))
            return rc;
        return attach(b, n);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool map = ev->type == YAML_MAPPING_START_EVENT;
        n = new_node(b, map ? GS_Y_MAP : GS_Y_SEQ, ev->start_mark);
        if (!n)
            return nomem(b);
        if (b->depth >= GS_YAML_MAX_DEPTH)
            return berr(b, GS_EINVAL, n->line, n->col, "invalid YAML: nesting deeper than %d levels of mappings and "
                        "sequences", GS_YAML_MAX_DEPTH);
        if ((rc = count_nodes(b, 1, n, false)))
            return rc;
        return push(b, n, map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return pop(b);
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        int i = gs_strmap_get(&b->anchor_index, name);
        if (i >= 0) {
            struct gs_ynode *target = b->anchors[i].node;
            struct gs_ynode at = {.line = mark_line(b, ev->start_mark), .col = mark_col(b, ev->start_mark)};
            if ((rc = count_nodes(b, b->anchors[i].weight, &at, true)))
                return rc;
            return attach(b, target);
        }
        char an[96];
        clip(name, an, sizeof an);
        return berr(b, GS_EINVAL, mark_line(b, ev->start_mark), mark_col(b, ev->start_mark),
                    "invalid YAML: undefined alias '*%s'", an);
    }
    default:
        return 0;
    }
}

/* Parse `len` bytes of `text` as exactly one document. */
static int load_buffer(const char *name, const char *text, size_t len, int line_base, int col_base,
                       struct gs_arena *a, struct gs_ynode **root, struct gs_error *err)
{
    struct builder b = {.a = a, .err = err, .line_base = line_base, .col_base = col_base, .len = len};
    b.one_line = col_base > 0 && !memchr(text, '\n', len) && !memchr(text, '\r', len);
    *root = NULL;
    b.file = gs_arena_strdup(a, name ? name : "");
    if (!b.file)
        return gs_error_set(err, GS_ENOMEM, name, 0, 0, "out of memory");

    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return gs_error_set(err, GS_ENOMEM, name, 0, 0, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);

    int rc = 0, docs = 0;
    bool done = false;
    while (!done && !rc) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = parser_error(&b, &p, text, len);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            if (docs == 0)
                rc = berr(&b, GS_EINVAL, 1, 1 + col_base, "empty file: expected a YAML document");
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = berr(&b, GS_EINVAL, mark_line(&b, ev.start_mark), mark_col(&b, ev.start_mark),
                          "several YAML documents in one file: a scenario is a single document "
                          "(remove the '---' separator)");
            break;
        default:
            rc = handle_event(&b, &ev);
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (!rc && !b.root) {
        /* "---" alone: libyaml gives an empty plain scalar, so this is a safety net. */
        rc = berr(&b, GS_EINVAL, 1, 1 + col_base, "empty file: expected a YAML document");
    }
    builder_free(&b);
    if (!rc)
        *root = b.root;
    return rc;
}

int gs_yaml_load_string(const char *name, const char *text, struct gs_arena *a, struct gs_ynode **root,
                        struct gs_error *err)
{
    return load_buffer(name, text ? text : "", text ? strlen(text) : 0, 0, 0, a, root, err);
}

int gs_yaml_load_fragment(const char *name, const char *text, int line, int col_base, struct gs_arena *a,
                          struct gs_ynode **root, struct gs_error *err)
{
    const char *t = text ? text : "";
    size_t len = strlen(t);
    /* An empty value is YAML null, not an empty document. */
    if (len == 0 || strspn(t, " \t") == len)
        t = "null", len = 4;
    return load_buffer(name, t, len, line > 0 ? line - 1 : 0, col_base, a, root, err);
}

int gs_yaml_load_file(const char *path, const char *what, size_t limit, struct gs_arena *a, struct gs_ynode **root,
                      struct gs_error *err)
{
    *root = NULL;
    char *buf;
    size_t len;
    int rc = gs_read_input(path, what, limit, &buf, &len, err);
    if (rc)
        return rc;
    rc = load_buffer(path, buf, len, 0, 0, a, root, err);
    gs_free(buf);
    return rc;
}

/* ------------------------------------------------------------------ queries */

bool gs_y_is_null(const struct gs_ynode *n)
{
    if (!n)
        return true; /* absent */
    if (n->type != GS_Y_SCALAR || !n->plain)
        return false;
    const char *t = n->text;
    return t[0] == '\0' || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 || strcmp(t, "Null") == 0 ||
           strcmp(t, "NULL") == 0;
}

struct gs_ynode *gs_y_get(const struct gs_ynode *m, const char *key)
{
    if (!m || m->type != GS_Y_MAP)
        return NULL;
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->pairs[i].key->text, key) == 0)
            return m->pairs[i].value;
    return NULL;
}

/* What a plain scalar resolves to in YAML 1.1 (go-yaml v2, which kubectl uses). */
enum pkind { PK_STR, PK_NULL, PK_BOOL, PK_INT, PK_FLOAT };

static bool is_bool11(const char *t)
{
    static const char *const words[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                                        "true", "True", "TRUE", "false", "False", "FALSE",
                                        "on", "On", "ON", "off", "Off", "OFF", NULL};
    for (int i = 0; words[i]; i++)
        if (strcmp(t, words[i]) == 0)
            return true;
    return false;
}

static bool is_true_false(const char *t, bool *v)
{
    if (strcmp(t, "true") == 0 || strcmp(t, "True") == 0 || strcmp(t, "TRUE") == 0) {
        *v = true;
        return true;
    }
    if (strcmp(t, "false") == 0 || strcmp(t, "False") == 0 || strcmp(t, "FALSE") == 0) {
        *v = false;
        return true;
    }
    return false;
}

/* Plain decimal integer: [-+]?[0-9]+ */
static bool is_decimal_int(const char *t)
{
    const char *s = t;
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool is_yaml_int(const char *t)
{
    const char *s = t;
    if (*s == '-' || *s == '+')
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'b' || s[1] == 'o') && s[2]) {
        for (s += 2; *s; s++)
            if (!isxdigit((unsigned char)*s) && *s != '_')
                return false;
        return true;
    }
    if (!isdigit((unsigned char)*s))
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ and .inf/.nan */
static bool is_yaml_float(const char *t)
{
    const char *s = t;
    if (*s == '-' || *s == '+')
        s++;
    if (strcmp(s, ".inf") == 0 || strcmp(s, ".Inf") == 0 || strcmp(s, ".INF") == 0)
        return true;
    if (s == t && (strcmp(s, ".nan") == 0 || strcmp(s, ".NaN") == 0 || strcmp(s, ".NAN") == 0))
        return true;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    } else {
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
        if (*s == '.') {
            s++;
            while (isdigit((unsigned char)*s))
                s++;
        }
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *s == '\0';
}

static enum pkind plain_kind(const struct gs_ynode *n)
{
    if (n->type != GS_Y_SCALAR || !n->plain)
        return PK_STR;
    if (gs_y_is_null(n))
        return PK_NULL;
    if (is_bool11(n->text))
        return PK_BOOL;
    if (is_yaml_int(n->text))
        return PK_INT;
    if (is_yaml_float(n->text))
        return PK_FLOAT;
    return PK_STR;
}

/* ------------------------------------------------------------------ errors */

static int verr(struct gs_ydec *d, int code, const struct gs_ynode *n, const char *fmt, va_list ap)
{
    char msg[sizeof d->err->msg], safe[sizeof d->err->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* Messages quote keys and values of the input: a JSON string may hold a raw DEL or a YAML
     * key a character the terminal would act on. Escape whatever is not printable UTF-8 once,
     * here, for every decoder error. */
    gs_error_quote(msg, (size_t)-1, sizeof msg, safe, sizeof safe);
    return gs_error_set(d->err, code, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, "%s", safe);
}

int gs_y_error(struct gs_ydec *d, const struct gs_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(d, GS_EINVAL, n, fmt, ap);
    va_end(ap);
    return rc;
}

static int y_err_code(struct gs_ydec *d, int code, const struct gs_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int y_err_code(struct gs_ydec *d, int code, const struct gs_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(d, code, n, fmt, ap);
    va_end(ap);
    return rc;
}

int gs_y_unsupported(struct gs_ydec *d, const struct gs_ynode *n, const char *path)
{
    return y_err_code(d, GS_ENOTSUP, n, "not supported yet: %s", path);
}

/* "spec.cluster" or "the top level" for messages. */
static const char *where(const char *path)
{
    return path && *path ? path : "the top level";
}

/* A short description of what node `n` is, for "got ..." in messages. */
static void describe(const struct gs_ynode *n, char *out, size_t sz)
{
    if (!n) {
        snprintf(out, sz, "nothing");
        return;
    }
    if (n->type == GS_Y_MAP) {
        snprintf(out, sz, "a mapping");
        return;
    }
    if (n->type == GS_Y_SEQ) {
        snprintf(out, sz, "a sequence");
        return;
    }
    char t[96];
    clip(n->text, t, sizeof t);
    switch (plain_kind(n)) {
    case PK_NULL:
        snprintf(out, sz, "null");
        break;
    case PK_BOOL:
        snprintf(out, sz, "the boolean %s", t);
        break;
    case PK_INT:
    case PK_FLOAT:
        snprintf(out, sz, "the number %s", t);
        break;
    default:
        snprintf(out, sz, "the string \"%s\"", t);
        break;
    }
}

static int want(struct gs_ydec *d, const struct gs_ynode *n, const char *path, enum gs_ytype t,
                const char *what)
{
    if (n && n->type == t)
        return 0;
    char got[128];
    describe(n, got, sizeof got);
    return gs_y_error(d, n, "expected %s at %s, got %s", what, where(path), got);
}

int gs_y_want_map(struct gs_ydec *d, const struct gs_ynode *n, const char *path)
{
    return want(d, n, path, GS_Y_MAP, "a mapping");
}

int gs_y_want_seq(struct gs_ydec *d, const struct gs_ynode *n, const char *path)
{
    return want(d, n, path, GS_Y_SEQ, "a sequence");
}

int gs_y_want_scalar(struct gs_ydec *d, const struct gs_ynode *n, const char *path)
{
    return want(d, n, path, GS_Y_SCALAR, "a scalar");
}

/* ------------------------------------------------------------------ did you mean */

/* Longer strings are never near anything: their distance is taken as their length. */
#define GS_Y_EDIT_MAX 256

int gs_y_edit_distance(const char *a, const char *b)
{
    /* Optimal string alignment (Levenshtein plus adjacent transposition), case-insensitive for
     * the substitution cost of letters that differ only in case (cost 1 still, but keep simple). */
    size_t la = strlen(a), lb = strlen(b);
    if (la > GS_Y_EDIT_MAX || lb > GS_Y_EDIT_MAX)
        return (int)(la > lb ? la : lb);
    /* Three rows on the stack: nothing to allocate, so a suggestion never depends on memory. */
    int rows[3][GS_Y_EDIT_MAX + 1];
    int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (prev[j - 1] + cost < v)
                v = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            cur[j] = v;
        }
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

static bool in_list(const char *const *list, const char *s)
{
    if (!list)
        return false;
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

static bool ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* Nearest candidate within max(2, len/3), a case-insensitive match first. */
static const char *nearest(const char *s, const char *const *l1, const char *const *l2)
{
    const char *const *lists[2] = {l1, l2};
    for (int k = 0; k < 2; k++)
        for (int i = 0; lists[k] && lists[k][i]; i++)
            if (ieq(s, lists[k][i]))
                return lists[k][i];
    int limit = (int)strlen(s) / 3;
    if (limit < 2)
        limit = 2;
    const char *best = NULL;
    int bd = INT_MAX;
    for (int k = 0; k < 2; k++) {
        for (int i = 0; lists[k] && lists[k][i]; i++) {
            int dd = gs_y_edit_distance(s, lists[k][i]);
            if (dd < bd) {
                bd = dd;
                best = lists[k][i];
            }
        }
    }
    return bd <= limit ? best : NULL;
}

const char *gs_y_suggest(const char *s, const char *const *choices)
{
    return nearest(s, choices, NULL);
}

int gs_y_check_map(struct gs_ydec *d, const struct gs_ynode *m, const char *path,
                   const char *const *known, const char *const *unsupported,
                   const char *const *required)
{
    int rc = gs_y_want_map(d, m, path);
    if (rc)
        return rc;
    for (int i = 0; i < m->n; i++) {
        const struct gs_ynode *k = m->pairs[i].key;
        if (in_list(known, k->text))
            continue;
        if (in_list(unsupported, k->text))
            return y_err_code(d, GS_ENOTSUP, k, "not supported yet: %s%s%s", path ? path : "",
                              path && *path ? "." : "", k->text);
        char kt[96];
        clip(k->text, kt, sizeof kt);
        const char *near = nearest(k->text, known, NULL);
        const char *in = path && *path ? "in " : "at ";
        if (near)
            return gs_y_error(d, k, "unknown key '%s' %s%s (did you mean '%s'?)", kt, in, where(path), near);
        return gs_y_error(d, k, "unknown key '%s' %s%s", kt, in, where(path));
    }
    for (int i = 0; required && required[i]; i++)
        if (!gs_y_get(m, required[i]))
            return gs_y_error(d, m, "missing required field '%s' %s%s", required[i], path && *path ? "in " : "at ",
                              where(path));
    return 0;
}

/* ------------------------------------------------------------------ typed scalars */

int gs_y_str(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char **out)
{
    if (n && n->type == GS_Y_SCALAR && !gs_y_is_null(n)) {
        *out = n->text;
        return 0;
    }
    char got[128];
    describe(n, got, sizeof got);
    return gs_y_error(d, n, "expected a string at %s, got %s", where(path), got);
}

int gs_y_kstr(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char **out)
{
    if (n && n->type == GS_Y_SCALAR && !gs_y_is_null(n)) {
        enum pkind k = plain_kind(n);
        if (k == PK_BOOL || k == PK_INT || k == PK_FLOAT) {
            char t[96];
            clip(n->text, t, sizeof t);
            return gs_y_error(d, n, "expected a string at %s, got the %s %s (quote it: \"%s\")", where(path),
                              k == PK_BOOL ? "boolean" : "number", t, t);
        }
    }
    return gs_y_str(d, n, path, out);
}

static int want_number_scalar(struct gs_ydec *d, const struct gs_ynode *n, const char *path,
                              const char *what)
{
    if (n && n->type == GS_Y_SCALAR && !gs_y_is_null(n))
        return 0;
    char got[128];
    describe(n, got, sizeof got);
    return gs_y_error(d, n, "expected %s at %s, got %s", what, where(path), got);
}

int gs_y_int(struct gs_ydec *d, const struct gs_ynode *n, const char *path, int64_t min, int64_t max,
             int64_t *out)
{
    int rc = want_number_scalar(d, n, path, "an integer");
    if (rc)
        return rc;
    char t[96];
    clip(n->text, t, sizeof t);
    if (!n->plain) {
        if (is_decimal_int(n->text))
            return gs_y_error(d, n, "expected an integer at %s, got the string \"%s\" (remove the quotes)",
                              where(path), t);
        return gs_y_error(d, n, "expected an integer at %s, got the string \"%s\"", where(path), t);
    }
    if (!is_decimal_int(n->text)) {
        if (is_yaml_float(n->text))
            return gs_y_error(d, n, "expected an integer at %s, got %s", where(path), t);
        char got[128];
        describe(n, got, sizeof got);
        return gs_y_error(d, n, "expected an integer at %s, got %s", where(path), got);
    }
    const char *digits = n->text + (n->text[0] == '-' || n->text[0] == '+');
    if (digits[0] == '0' && digits[1])
        return gs_y_error(d, n, "expected an integer at %s, got %s (leading zeros are not allowed)",
                          where(path), t);
    errno = 0;
    char *end;
    long long v = strtoll(n->text, &end, 10);
    if (errno == ERANGE || v < min || v > max) {
        /* A bound of a million or more reads as "no bound" to a user: say only the one that
         * was crossed. */
        bool below = errno == ERANGE ? n->text[0] == '-' : v < min;
        if (below && max >= 1000000)
            return y_err_code(d, GS_EINVAL, n, "%s must be >= %" PRId64 ", got %s", where(path), min, t);
        if (!below && min <= -1000000)
            return y_err_code(d, GS_EINVAL, n, "%s must be <= %" PRId64 ", got %s", where(path), max, t);
        return y_err_code(d, GS_EINVAL, n, "%s must be between %" PRId64 " and %" PRId64 ", got %s",
                          where(path), min, max, t);
    }
    *out = (int64_t)v;
    return 0;
}

int gs_y_bool(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool *out)
{
    int rc = want_number_scalar(d, n, path, "true or false");
    if (rc)
        return rc;
    char t[96];
    clip(n->text, t, sizeof t);
    bool v;
    if (n->plain && is_true_false(n->text, &v)) {
        *out = v;
        return 0;
    }
    if (!n->plain && is_true_false(n->text, &v))
        return gs_y_error(d, n, "expected true or false at %s, got the string \"%s\" (remove the quotes)",
                          where(path), t);
    if (n->plain && is_bool11(n->text))
        return gs_y_error(d, n,
                          "expected true or false at %s, got '%s' (YAML 1.1 yes/no/on/off are not "
                          "booleans here: write true or false)",
                          where(path), t);
    char got[128];
    describe(n, got, sizeof got);
    return gs_y_error(d, n, "expected true or false at %s, got %s", where(path), got);
}

int gs_y_double(struct gs_ydec *d, const struct gs_ynode *n, const char *path, double *out)
{
    int rc = want_number_scalar(d, n, path, "a number");
    if (rc)
        return rc;
    char t[96];
    clip(n->text, t, sizeof t);
    if (!n->plain)
        return gs_y_error(d, n, "expected a number at %s, got the string \"%s\"%s", where(path), t,
                          is_yaml_float(n->text) ? " (remove the quotes)" : "");
    if (!is_yaml_float(n->text) || strchr(n->text, 'n') || strchr(n->text, 'N') ||
        strchr(n->text, 'i') || strchr(n->text, 'I')) {
        char got[128];
        describe(n, got, sizeof got);
        return gs_y_error(d, n, "expected a finite number at %s, got %s", where(path), got);
    }
    errno = 0;
    double v = strtod(n->text, NULL);
    if (errno == ERANGE || !isfinite(v))
        return gs_y_error(d, n, "number out of range at %s: %s", where(path), t);
    *out = v;
    return 0;
}

int gs_y_duration(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool allow_negative,
                  gs_time *out)
{
    int rc = want_number_scalar(d, n, path, "a duration");
    if (rc)
        return rc;
    char t[96];
    clip(n->text, t, sizeof t);
    int64_t us;
    rc = gs_duration_parse(n->text, &us);
    if (rc == GS_ERANGE)
        return gs_y_error(d, n, "duration \"%s\" at %s is out of range (at most 2562047h)", t, where(path));
    if (rc)
        return gs_y_error(d, n, "invalid duration \"%s\" at %s: expected a Go duration such as 90s, 1h30m or 250ms",
                          t, where(path));
    if (us < 0 && !allow_negative)
        return gs_y_error(d, n, "%s must not be negative, got %s", where(path), t);
    *out = us;
    return 0;
}

int gs_y_quantity(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_quantity *out)
{
    int rc = want_number_scalar(d, n, path, "a quantity");
    if (rc)
        return rc;
    char t[96];
    clip(n->text, t, sizeof t);
    rc = gs_quantity_parse(n->text, out);
    if (rc == GS_ERANGE)
        return gs_y_error(d, n, "invalid quantity \"%s\" at %s: out of range", t, where(path));
    if (rc)
        return gs_y_error(d, n,
                          "invalid quantity \"%s\" at %s: quantities must match the regular expression "
                          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
                          t, where(path));
    return 0;
}

int gs_y_enum(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *const *choices,
              int *out)
{
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; choices[i] && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (!n || n->type != GS_Y_SCALAR || gs_y_is_null(n)) {
        char got[128];
        describe(n, got, sizeof got);
        return gs_y_error(d, n, "expected one of %s at %s, got %s", list, where(path), got);
    }
    for (int i = 0; choices[i]; i++) {
        if (strcmp(n->text, choices[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    char t[96];
    clip(n->text, t, sizeof t);
    const char *near = nearest(n->text, choices, NULL);
    if (near)
        return gs_y_error(d, n, "invalid value '%s' at %s: expected one of %s (did you mean '%s'?)", t,
                          where(path), list, near);
    return gs_y_error(d, n, "invalid value '%s' at %s: expected one of %s", t, where(path), list);
}

int gs_y_labels(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_labels *out)
{
    int rc = gs_y_want_map(d, n, path);
    if (rc || n->n == 0)
        return rc;
    struct gs_kv *kv = gs_malloc(sizeof *kv * (size_t)n->n);
    if (!kv)
        return gs_error_set(d->err, GS_ENOMEM, n->file, n->line, n->col, "out of memory");
    for (int i = 0; i < n->n && !rc; i++) {
        const struct gs_ynode *k = n->pairs[i].key, *v = n->pairs[i].value;
        char kt[96];
        clip(k->text, kt, sizeof kt);
        if (v->type != GS_Y_SCALAR) {
            char got[128];
            describe(v, got, sizeof got);
            rc = gs_y_error(d, v, "expected a string at %s.%s, got %s", where(path), kt, got);
            break;
        }
        const char *val = v->text;
        if (gs_y_is_null(v)) {
            val = "";
        } else {
            enum pkind pk = plain_kind(v);
            if (pk == PK_BOOL || pk == PK_INT || pk == PK_FLOAT) {
                char vt[96];
                clip(v->text, vt, sizeof vt);
                rc = gs_y_error(d, v, "label value at %s.%s must be a string, got the %s %s (quote it: \"%s\")",
                                where(path), kt, pk == PK_BOOL ? "boolean" : "number", vt, vt);
                break;
            }
        }
        kv[i] = (struct gs_kv){.key = k->text, .value = val};
    }
    /* All at once: sorted once, not inserted one by one (models/labels.c). */
    if (!rc && gs_labels_set_all(out, d->arena, kv, n->n))
        rc = gs_error_set(d->err, GS_ENOMEM, n->file, n->line, n->col, "out of memory");
    gs_free(kv);
    return rc;
}
