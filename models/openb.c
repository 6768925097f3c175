/* gpusim: reading the openb node and pod lists (see openb.h). */
#include "base/alloc.h"
#include "base/array.h"
#include "base/readfile.h"
#include "base/strmap.h"
#include "models/openb.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/devices/gpushare.h"

#define MAX_COLS 32
/* Room for a field quoted in a message (gs_error_quote: up to 60 bytes, 4 bytes each escaped). */
#define QUOTE_MAX 256

int gs_openb_model_id(struct gs_openb_models *m, const char *name, int len, bool add)
{
    if (len <= 0 || len >= GS_OPENB_NAME_MAX)
        return GS_ERANGE;
    for (int i = 0; i < m->n; i++)
        if ((int)strlen(m->name[i]) == len && memcmp(m->name[i], name, (size_t)len) == 0)
            return i;
    if (!add)
        return -1;
    if (m->n >= GS_OPENB_MODELS_MAX)
        return GS_ERANGE;
    memcpy(m->name[m->n], name, (size_t)len);
    m->name[m->n][len] = '\0';
    return m->n++;
}

int gs_openb_spec_mask(struct gs_openb_models *m, const char *text, int len, uint32_t *mask)
{
    *mask = 0;
    int i = 0;
    while (i <= len) {
        int j = i;
        while (j < len && text[j] != '|')
            j++;
        if (j > i) {
            int id = gs_openb_model_id(m, text + i, j - i, true);
            if (id < 0)
                return GS_ERANGE;
            *mask |= 1u << id;
        }
        i = j + 1;
    }
    return 0;
}

bool gs_openb_model_allowed(uint32_t spec_mask, int model)
{
    if (spec_mask == 0)
        return true;
    if (model < 0 || model >= GS_OPENB_MODELS_MAX)
        return false;
    return (spec_mask >> model) & 1u;
}

/* ---- a tiny CSV reader: no quoting (the trace has none), one record per line ---- */

struct field {
    const char *p;
    int len;
};

struct csv {
    const char *name;
    const char *s; /* current position */
    int line;      /* 1-based line of the record just split */
};

/* Split the next non-empty line into fields. Returns the field count, 0 at the end of input,
 * or -1 (err set) for a line with too many fields or a quote. */
static int csv_next(struct csv *c, struct field *f, struct gs_error *err)
{
    for (;;) {
        if (!*c->s)
            return 0;
        c->line++;
        const char *eol = strchr(c->s, '\n');
        const char *end = eol ? eol : c->s + strlen(c->s);
        const char *line = c->s;
        c->s = eol ? eol + 1 : end;
        if (end > line && end[-1] == '\r')
            end--;
        if (end == line)
            continue; /* blank line */
        int n = 0;
        const char *p = line;
        for (;;) {
            const char *q = p;
            while (q < end && *q != ',') {
                if (*q == '"') {
                    gs_error_set(err, GS_EINVAL, c->name, c->line, (int)(q - line) + 1,
                                 "quoted CSV fields are not supported");
                    return -1;
                }
                q++;
            }
            if (n >= MAX_COLS) {
                gs_error_set(err, GS_EINVAL, c->name, c->line, (int)(p - line) + 1,
                             "more than %d fields", MAX_COLS);
                return -1;
            }
            f[n].p = p;
            f[n].len = (int)(q - p);
            n++;
            if (q >= end)
                break;
            p = q + 1;
        }
        return n;
    }
}

static bool feq(const struct field *f, const char *s)
{
    return (int)strlen(s) == f->len && memcmp(f->p, s, (size_t)f->len) == 0;
}

/* Column of a field within its line, 1-based. */
static int fcol(const struct field *fs, int i)
{
    int col = 1;
    for (int k = 0; k < i; k++)
        col += fs[k].len + 1;
    return col;
}

/* Parse a non-negative decimal integer in [0, max]. Empty is an error. */
static int parse_int(const struct csv *c, const struct field *fs, int i, const char *what, int64_t max,
                     int64_t *out, struct gs_error *err)
{
    const struct field *f = &fs[i];
    int64_t v = 0;
    char qt[QUOTE_MAX];
    if (f->len == 0)
        return gs_error_set(err, GS_EINVAL, c->name, c->line, fcol(fs, i),
                            "empty %s: expected an integer from 0 to %lld", what, (long long)max);
    for (int k = 0; k < f->len; k++) {
        char ch = f->p[k];
        if (ch < '0' || ch > '9')
            return gs_error_set(err, GS_EINVAL, c->name, c->line, fcol(fs, i) + k,
                                "bad %s '%s': expected an integer from 0 to %lld", what,
                                gs_error_quote(f->p, (size_t)f->len, 40, qt, sizeof qt), (long long)max);
        if (v > (max - (ch - '0')) / 10)
            return gs_error_set(err, GS_EINVAL, c->name, c->line, fcol(fs, i),
                                "%s '%s' out of range: expected an integer from 0 to %lld", what,
                                gs_error_quote(f->p, (size_t)f->len, 40, qt, sizeof qt), (long long)max);
        v = v * 10 + (ch - '0');
    }
    *out = v;
    return 0;
}

/* The whole of `path` (an openb `what`, smaller than `limit` bytes: base/readfile.h), NUL-terminated. */
static int read_file(const char *path, const char *what, size_t limit, char **text, struct gs_error *err)
{
    size_t len;
    int rc = gs_read_input(path, what, limit, text, &len, err);
    if (rc)
        return rc;
    if (memchr(*text, '\0', len)) {
        gs_free(*text);
        *text = NULL;
        return gs_error_set(err, GS_EINVAL, path, 0, 0, "binary file (NUL byte): expected CSV text");
    }
    return 0;
}

static const char *skip_bom(const char *t)
{
    return strncmp(t, "\xEF\xBB\xBF", 3) == 0 ? t + 3 : t;
}

/* Map header names to column indices. `names` lists the known columns; idx[k] gets the
 * column of names[k] or -1. Required columns are the first `nreq`. */
static int map_header(struct csv *c, const struct field *h, int nh, const char *const *names, int nnames,
                      int nreq, const char *expected, int *idx, struct gs_error *err)
{
    for (int k = 0; k < nnames; k++)
        idx[k] = -1;
    for (int i = 0; i < nh; i++)
        for (int k = 0; k < nnames; k++)
            if (feq(&h[i], names[k])) {
                if (idx[k] >= 0)
                    return gs_error_set(err, GS_EINVAL, c->name, c->line, fcol(h, i),
                                        "duplicate column '%s' in the header", names[k]);
                idx[k] = i;
            }
    for (int k = 0; k < nreq; k++)
        if (idx[k] < 0)
            return gs_error_set(err, GS_EINVAL, c->name, c->line, 1,
                                "header lacks column '%s': expected %s", names[k], expected);
    return 0;
}

static int copy_name(const struct csv *c, const struct field *fs, int i, const char *what, char *dst,
                     struct gs_error *err)
{
    const struct field *f = &fs[i];
    if (f->len == 0 || f->len >= GS_OPENB_NAME_MAX)
        return gs_error_set(err, GS_EINVAL, c->name, c->line, fcol(fs, i),
                            "%s: expected 1 to %d characters", what, GS_OPENB_NAME_MAX - 1);
    memcpy(dst, f->p, (size_t)f->len);
    dst[f->len] = '\0';
    return 0;
}

/* Read the header record of `c` into f and map it with map_header (same arguments). Returns the
 * header's field count (> 0), or a negative GS_E* code with err set: an empty file, a bad line or
 * a missing or repeated column. */
static int read_header(struct csv *c, struct field *f, const char *const *names, int nnames, int nreq,
                       const char *expected, int *idx, struct gs_error *err)
{
    int nh = csv_next(c, f, err);
    if (nh < 0)
        return GS_EINVAL;
    if (nh == 0)
        return gs_error_set(err, GS_EINVAL, c->name, 1, 1, "empty file: expected the header %s", expected);
    int rc = map_header(c, f, nh, names, nnames, nreq, expected, idx, err);
    return rc ? rc : nh;
}

/* Split the next body record of `c` into f, before item number `count` (0-based) is added: it
 * must have nh fields, and count must stay below INT_MAX / 2 ("too many <what>"). Returns 1 with
 * a record, 0 at the end of input, or -1 with err set. */
static int next_row(struct csv *c, struct field *f, int nh, int count, const char *what, struct gs_error *err)
{
    int n = csv_next(c, f, err);
    if (n <= 0)
        return n;
    if (n != nh) {
        gs_error_set(err, GS_EINVAL, c->name, c->line, 1, "%d fields: expected %d as in the header", n, nh);
        return -1;
    }
    if (count == INT_MAX / 2) {
        gs_error_set(err, GS_ERANGE, c->name, c->line, 1, "too many %s", what);
        return -1;
    }
    return 1;
}

/* Make room for item number `count` in *items, an array of *cap items of `size` bytes each
 * (gs_array_grow). Returns 0, or GS_ENOMEM with err set; *items then stays valid and the
 * caller's to free. */
static int grow(void **items, int count, int *cap, size_t size, const char *name, struct gs_error *err)
{
    if (gs_array_grow(items, cap, count + 1, size))
        return gs_error_set(err, GS_ENOMEM, name, 0, 0, "out of memory");
    return 0;
}

/* Field fs[i] as an index into names[0..n-1]. Returns the index, or -1 with err set:
 * "<what> '<text>': expected <expected>". */
static int parse_enum(const struct csv *c, const struct field *fs, int i, const char *const *names, int n,
                      const char *what, const char *expected, struct gs_error *err)
{
    const struct field *f = &fs[i];
    for (int k = 0; k < n; k++)
        if (feq(f, names[k]))
            return k;
    char qt[QUOTE_MAX];
    gs_error_set(err, GS_EINVAL, c->name, c->line, fcol(fs, i), "%s '%s': expected %s", what,
                 gs_error_quote(f->p, (size_t)f->len, 40, qt, sizeof qt), expected);
    return -1;
}

void gs_openb_cluster_free(struct gs_openb_cluster *c)
{
    if (!c)
        return;
    gs_free(c->nodes);
    memset(c, 0, sizeof *c);
}

void gs_openb_workload_free(struct gs_openb_workload *w)
{
    if (!w)
        return;
    gs_free(w->pods);
    for (int i = 0; i < w->nspecs; i++)
        gs_free(w->specs[i]);
    gs_free(w->specs);
    memset(w, 0, sizeof *w);
}

static const char *const node_cols[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
static const char node_expected[] = "sn,cpu_milli,memory_mib,gpu,model";

int gs_openb_parse_nodes(const char *name, const char *text, struct gs_openb_models *models,
                         struct gs_openb_cluster *out, struct gs_error *err)
{
    char qt[QUOTE_MAX];
    struct gs_error local;
    if (!err)
        err = &local;
    err->code = 0;
    memset(out, 0, sizeof *out);
    struct csv c = {name, skip_bom(text), 0};
    struct field f[MAX_COLS];
    int idx[5];
    int nh = read_header(&c, f, node_cols, 5, 5, node_expected, idx, err);
    if (nh < 0)
        return nh;
    int cap = 0;
    if (grow((void **)&out->nodes, 1023, &cap, sizeof *out->nodes, name, err))
        return err->code;
    for (;;) {
        int r = next_row(&c, f, nh, out->n, "nodes", err);
        if (r < 0)
            goto fail;
        if (r == 0)
            break;
        if (grow((void **)&out->nodes, out->n, &cap, sizeof *out->nodes, name, err))
            goto fail;
        struct gs_openb_node *nd = &out->nodes[out->n];
        memset(nd, 0, sizeof *nd);
        int64_t gpu;
        if (copy_name(&c, f, idx[0], "node name (sn)", nd->name, err) ||
            parse_int(&c, f, idx[1], "cpu_milli", INT64_C(1) << 40, &nd->cpu_milli, err) ||
            parse_int(&c, f, idx[2], "memory_mib", INT64_C(1) << 40, &nd->memory_mib, err) ||
            parse_int(&c, f, idx[3], "gpu", GS_GPUS_MAX, &gpu, err))
            goto fail;
        nd->gpu = (int)gpu;
        const struct field *mf = &f[idx[4]];
        if (mf->len == 0) {
            if (gpu > 0) {
                gs_error_set(err, GS_EINVAL, name, c.line, fcol(f, idx[4]),
                             "empty model for a node with %d GPUs: expected the GPU model", nd->gpu);
                goto fail;
            }
            nd->model = -1;
        } else {
            int id = gs_openb_model_id(models, mf->p, mf->len, true);
            if (id < 0) {
                gs_error_set(err, GS_EINVAL, name, c.line, fcol(f, idx[4]),
                             "model '%s': too long or more than %d distinct models",
                             gs_error_quote(mf->p, (size_t)mf->len, 40, qt, sizeof qt), GS_OPENB_MODELS_MAX);
                goto fail;
            }
            nd->model = gpu > 0 ? id : -1;
        }
        out->total_gpus += nd->gpu;
        out->total_cpu_milli += nd->cpu_milli;
        out->total_memory_mib += nd->memory_mib;
        out->n++;
    }
    return 0;
fail:
    gs_openb_cluster_free(out);
    return err->code ? err->code : GS_EINVAL;
}

static const char *const pod_cols[] = {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli",
                                       "gpu_spec", "qos", "pod_phase", "creation_time", "deletion_time",
                                       "scheduled_time"};
static const char pod_expected[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time]";

/* The index of gpu_spec text `f` in w->specs, added when new; `index` maps the texts so far to
 * their indices (a trace may have many distinct texts: one lookup per row stays O(1)). */
static int spec_index(struct gs_openb_workload *w, struct gs_strmap *index, const struct field *f)
{
    int i = gs_strmap_getn(index, f->p, (size_t)f->len);
    if (i >= 0)
        return i;
    if (GS_GROW(w->specs, w->specs_cap, w->nspecs + 1))
        return GS_ENOMEM;
    char *s = gs_malloc((size_t)f->len + 1);
    if (!s)
        return GS_ENOMEM;
    memcpy(s, f->p, (size_t)f->len);
    s[f->len] = '\0';
    if (gs_strmap_add(index, s, w->nspecs, NULL) < 0) {
        gs_free(s);
        return GS_ENOMEM;
    }
    w->specs[w->nspecs] = s;
    return w->nspecs++;
}

static int parse_time(const struct csv *c, const struct field *f, int col, const char *what, int64_t *out,
                      struct gs_error *err)
{
    if (col < 0 || f[col].len == 0) {
        *out = -1;
        return 0;
    }
    return parse_int(c, f, col, what, INT64_C(1) << 50, out, err);
}

int gs_openb_parse_pods(const char *name, const char *text, struct gs_openb_models *models,
                        struct gs_openb_workload *out, struct gs_error *err)
{
    char qt[QUOTE_MAX];
    struct gs_error local;
    if (!err)
        err = &local;
    err->code = 0;
    memset(out, 0, sizeof *out);
    struct csv c = {name, skip_bom(text), 0};
    struct field f[MAX_COLS];
    int idx[11];
    int nh = read_header(&c, f, pod_cols, 11, 5, pod_expected, idx, err);
    if (nh < 0)
        return nh;
    out->has_spec = idx[5] >= 0;
    out->has_times = idx[8] >= 0;
    struct gs_strmap index = {0};
    struct field empty = {"", 0};
    if (spec_index(out, &index, &empty) < 0) {
        gs_error_set(err, GS_ENOMEM, name, 0, 0, "out of memory");
        goto fail;
    }
    int cap = 0;
    if (grow((void **)&out->pods, 4095, &cap, sizeof *out->pods, name, err))
        goto fail;
    for (;;) {
        int r = next_row(&c, f, nh, out->n, "pods", err);
        if (r < 0)
            goto fail;
        if (r == 0)
            break;
        if (grow((void **)&out->pods, out->n, &cap, sizeof *out->pods, name, err))
            goto fail;
        struct gs_openb_pod *p = &out->pods[out->n];
        memset(p, 0, sizeof *p);
        int64_t ng, gm;
        if (copy_name(&c, f, idx[0], "pod name", p->name, err) ||
            parse_int(&c, f, idx[1], "cpu_milli", INT64_C(1) << 40, &p->cpu_milli, err) ||
            parse_int(&c, f, idx[2], "memory_mib", INT64_C(1) << 40, &p->memory_mib, err) ||
            parse_int(&c, f, idx[3], "num_gpu", GS_GPUS_MAX, &ng, err) ||
            parse_int(&c, f, idx[4], "gpu_milli", GS_GPU_MILLI, &gm, err))
            goto fail;
        p->num_gpu = (int)ng;
        p->gpu_milli = (int)gm;
        struct gs_gpushare_req rq = {p->num_gpu, p->gpu_milli};
        if (gs_gpushare_check_req(&rq)) {
            gs_error_set(err, GS_EINVAL, name, c.line, fcol(f, idx[3]),
                         "num_gpu %d with gpu_milli %d: expected 0 with 0, 1 with 1..999 (a share), "
                         "or 1..%d with 1000", p->num_gpu, p->gpu_milli, GS_GPUS_MAX);
            goto fail;
        }
        if (idx[5] >= 0) {
            const struct field *sf = &f[idx[5]];
            if (gs_openb_spec_mask(models, sf->p, sf->len, &p->spec_mask)) {
                gs_error_set(err, GS_EINVAL, name, c.line, fcol(f, idx[5]),
                             "gpu_spec '%s': model names of 1 to %d characters, at most %d distinct models",
                             gs_error_quote(sf->p, (size_t)sf->len, 60, qt, sizeof qt), GS_OPENB_NAME_MAX - 1,
                             GS_OPENB_MODELS_MAX);
                goto fail;
            }
            int si = spec_index(out, &index, sf);
            if (si < 0) {
                gs_error_set(err, GS_ENOMEM, name, 0, 0, "out of memory");
                goto fail;
            }
            p->spec = si;
        }
        if (idx[6] >= 0) {
            static const char *const q[] = {"", "LS", "BE", "Burstable", "Guaranteed"};
            int k = parse_enum(&c, f, idx[6], q, 5, "qos", "LS, BE, Burstable, Guaranteed or empty", err);
            if (k < 0)
                goto fail;
            p->qos = (enum gs_openb_qos)k;
        }
        if (idx[7] >= 0) {
            static const char *const ph[] = {"", "Pending", "Running", "Succeeded", "Failed"};
            int k = parse_enum(&c, f, idx[7], ph, 5, "pod_phase", "Pending, Running, Succeeded, Failed or empty", err);
            if (k < 0)
                goto fail;
            p->phase = (enum gs_openb_phase)k;
        }
        if (parse_time(&c, f, idx[8], "creation_time", &p->creation_s, err) ||
            parse_time(&c, f, idx[9], "deletion_time", &p->deletion_s, err) ||
            parse_time(&c, f, idx[10], "scheduled_time", &p->scheduled_s, err))
            goto fail;
        if (p->creation_s >= 0 && p->deletion_s >= 0 && p->deletion_s < p->creation_s) {
            gs_error_set(err, GS_EINVAL, name, c.line, fcol(f, idx[9]),
                         "deletion_time %lld before creation_time %lld", (long long)p->deletion_s,
                         (long long)p->creation_s);
            goto fail;
        }
        out->total_gpu_milli += (int64_t)p->num_gpu * p->gpu_milli;
        out->n++;
    }
    gs_strmap_free(&index);
    return 0;
fail:
    gs_strmap_free(&index);
    gs_openb_workload_free(out);
    return err->code ? err->code : GS_EINVAL;
}

int gs_openb_read_nodes(const char *path, struct gs_openb_models *models, struct gs_openb_cluster *out,
                        struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    int rc = read_file(path, "an openb node list", GS_OPENB_NODES_LIMIT, &text, err);
    if (rc)
        return rc;
    rc = gs_openb_parse_nodes(path, text, models, out, err);
    gs_free(text);
    return rc;
}

int gs_openb_read_pods(const char *path, struct gs_openb_models *models, struct gs_openb_workload *out,
                       struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    int rc = read_file(path, "an openb pod list", GS_OPENB_PODS_LIMIT, &text, err);
    if (rc)
        return rc;
    rc = gs_openb_parse_pods(path, text, models, out, err);
    gs_free(text);
    return rc;
}

const char *gs_openb_default_dir(void)
{
    static char buf[4096];
    const char *env = getenv("GPUSIM_OPENB_DIR");
    if (env && *env) {
        snprintf(buf, sizeof buf, "%s", env);
        return buf;
    }
#ifdef GPUSIM_SOURCE_DIR
    snprintf(buf, sizeof buf, "%s/../shared/data/openb", GPUSIM_SOURCE_DIR);
#else
    snprintf(buf, sizeof buf, "../shared/data/openb");
#endif
    return buf;
}
