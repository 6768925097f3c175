/* gpusim: loading the catalogs (catalog.h): models/catalog/gpus.yaml and operands.yaml, and the
 * decoders a scenario's spec.catalog and operator.timings share with them (catalog_yaml.h).
 *
 * Both files are gpusim/v1alpha1 documents: kind GPUCatalog with `gpus`, kind OperandTimings
 * with `timingProfiles`. Unknown keys are errors with the nearest valid key, exactly as in
 * scenarios (sim/scenario/yaml.h does the checking), and every error names file:line:column.
 * Checks beyond types: a product must be GFD's sanitised form of its NVML name, its family what
 * GFD derives from the compute capability; product and profile names are unique; `default`
 * comes first in operands.yaml and gives every step; uniform bounds are ordered, a lognormal
 * median is positive and its sigma finite and >= 0.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/readfile.h"
#include "base/strmap.h"
#include "models/catalog.h"
#include "models/gfd.h"
#include "sim/scenario/catalog_yaml.h"

#define GS_CAT_API_VERSION "gpusim/v1alpha1"
#define GS_CAT_PATH 320
#define GS_CAT_MAX_MIB ((int64_t)1 << 30)

static char *pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *pathf(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, GS_CAT_PATH, fmt, ap);
    va_end(ap);
    if (n >= GS_CAT_PATH) /* cut long paths visibly */
        memcpy(buf + GS_CAT_PATH - 4, "...", 4);
    return buf;
}

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, "out of memory");
}

/* Profile names: what a scenario writes in operator.timings; lowercase letters, digits, '-'. */
static bool profile_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

/* ------------------------------------------------------------------ durations */

int gs_catalog_decode_dur(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_dur *out)
{
    static const char *const kinds[] = {"uniform", "exponential", "lognormal", NULL};
    char p[GS_CAT_PATH];
    int rc;
    memset(out, 0, sizeof *out);
    if (n && n->type == GS_Y_SEQ)
        return gs_y_error(d, n,
                          "expected a duration such as 90s or a distribution ({uniform: [a, b]}, {exponential: "
                          "mean} or {lognormal: {median: m, sigma: s}}) at %s, got a sequence",
                          path);
    if (!n || n->type != GS_Y_MAP) {
        out->kind = GS_DUR_FIXED;
        return gs_y_duration(d, n, path, false, &out->fixed);
    }
    for (int i = 0; i < n->n; i++)
        if (strcmp(n->pairs[i].key->text, "distribution") == 0)
            return gs_y_error(d, n->pairs[i].key,
                          "%s: a timing distribution is written {uniform: [a, b]}, {exponential: mean} or "
                          "{lognormal: {median: m, sigma: s}}",
                          path);
    if ((rc = gs_y_check_map(d, n, path, kinds, NULL, NULL)))
        return rc;
    if (n->n != 1)
        return gs_y_error(d, n, "%s: give one of uniform, exponential or lognormal", path);
    const struct gs_ynode *v = n->pairs[0].value;
    const char *kind = n->pairs[0].key->text;
    if (strcmp(kind, "uniform") == 0) {
        pathf(p, "%s.uniform", path);
        if ((rc = gs_y_want_seq(d, v, p)))
            return rc;
        if (v->n != 2)
            return gs_y_error(d, v, "%s takes two durations, [min, max], got %d", p, v->n);
        char ip[GS_CAT_PATH];
        if ((rc = gs_y_duration(d, v->items[0], pathf(ip, "%s[0]", p), false, &out->min)) ||
            (rc = gs_y_duration(d, v->items[1], pathf(ip, "%s[1]", p), false, &out->max)))
            return rc;
        if (out->min > out->max)
            return gs_y_error(d, v, "%s: min (%s) is above max (%s)", p, v->items[0]->text, v->items[1]->text);
        out->kind = GS_DUR_UNIFORM;
        return 0;
    }
    if (strcmp(kind, "exponential") == 0) {
        out->kind = GS_DUR_EXPONENTIAL;
        return gs_y_duration(d, v, pathf(p, "%s.exponential", path), false, &out->mean);
    }
    /* lognormal */
    static const char *const lkeys[] = {"median", "sigma", NULL};
    pathf(p, "%s.lognormal", path);
    if ((rc = gs_y_check_map(d, v, p, lkeys, NULL, lkeys)))
        return rc;
    char ip[GS_CAT_PATH];
    const struct gs_ynode *med = gs_y_get(v, "median"), *sig = gs_y_get(v, "sigma");
    if ((rc = gs_y_duration(d, med, pathf(ip, "%s.median", p), false, &out->median)))
        return rc;
    if (out->median <= 0)
        return gs_y_error(d, med, "%s.median must be positive, got %s", p, med->text);
    if ((rc = gs_y_double(d, sig, pathf(ip, "%s.sigma", p), &out->sigma)))
        return rc;
    if (!(out->sigma >= 0) || !isfinite(out->sigma))
        return gs_y_error(d, sig, "%s.sigma must be >= 0, got %s", p, sig->text);
    out->kind = GS_DUR_LOGNORMAL;
    return 0;
}

/* ------------------------------------------------------------------ products */

/* "9.0" (a string or a plain number as written) -> 9, 0. */
static int decode_cc(struct gs_ydec *d, const struct gs_ynode *n, const char *path, int *major, int *minor)
{
    const char *s;
    int rc = gs_y_str(d, n, path, &s);
    if (rc)
        return rc;
    const char *p = s;
    long ma = 0, mi = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 4) {
        ma = ma * 10 + (*p++ - '0');
        digits++;
    }
    bool ok = digits > 0 && *p == '.';
    if (ok) {
        p++;
        digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 4) {
            mi = mi * 10 + (*p++ - '0');
            digits++;
        }
        ok = digits > 0 && *p == '\0';
    }
    if (!ok)
        return gs_y_error(d, n, "invalid computeCapability \"%.40s\" at %s: expected \"major.minor\" such as \"9.0\"",
                          s, path);
    *major = (int)ma;
    *minor = (int)mi;
    return 0;
}

static int decode_product(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_gpu_product *g)
{
    static const char *const keys[] = {"product",        "nvmlName",     "memoryMiB",    "computeCapability",
                                       "family",         "migCapable",   "typicalPerNode", "architecture",
                                       "brand",          NULL};
    char p[GS_CAT_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, keys);
    if (rc)
        return rc;
    int64_t v;
    const struct gs_ynode *pn = gs_y_get(m, "product"), *nn = gs_y_get(m, "nvmlName");
    if ((rc = gs_y_str(d, pn, pathf(p, "%s.product", path), &g->product)) ||
        (rc = gs_y_str(d, nn, pathf(p, "%s.nvmlName", path), &g->nvml_name)))
        return rc;
    char want[256];
    if (gs_gfd_sanitize(g->nvml_name, want, sizeof want) >= (int)sizeof want)
        return gs_y_error(d, nn, "%s.nvmlName is too long (over %d characters)", path, (int)sizeof want - 1);
    if (strcmp(want, g->product) != 0)
        return gs_y_error(d, pn,
                          "product '%.80s' at %s.product is not GFD's form of nvmlName '%.80s': expected '%s' "
                          "(characters outside [A-Za-z0-9-_. ] dropped, spaces turned into '-')",
                          g->product, path, g->nvml_name, want);
    if ((rc = gs_y_int(d, gs_y_get(m, "memoryMiB"), pathf(p, "%s.memoryMiB", path), 1, GS_CAT_MAX_MIB, &v)))
        return rc;
    g->memory_mib = v;
    const struct gs_ynode *ccn = gs_y_get(m, "computeCapability"), *fn = gs_y_get(m, "family");
    if ((rc = decode_cc(d, ccn, pathf(p, "%s.computeCapability", path), &g->compute_major, &g->compute_minor)))
        return rc;
    if ((rc = gs_y_str(d, fn, pathf(p, "%s.family", path), &g->family)))
        return rc;
    const char *fam = gs_gpu_family(g->compute_major, g->compute_minor);
    if (strcmp(fam, g->family) != 0)
        return gs_y_error(d, fn, "family '%.40s' at %s.family does not match computeCapability %d.%d: GFD derives '%s'",
                          g->family, path, g->compute_major, g->compute_minor, fam);
    if ((rc = gs_y_bool(d, gs_y_get(m, "migCapable"), pathf(p, "%s.migCapable", path), &g->mig_capable)))
        return rc;
    if ((rc = gs_y_int(d, gs_y_get(m, "typicalPerNode"), pathf(p, "%s.typicalPerNode", path), 1, 1024, &v)))
        return rc;
    g->typical_per_node = (int)v;
    if ((rc = gs_y_str(d, gs_y_get(m, "architecture"), pathf(p, "%s.architecture", path), &g->architecture)) ||
        (rc = gs_y_str(d, gs_y_get(m, "brand"), pathf(p, "%s.brand", path), &g->brand)))
        return rc;
    return 0;
}

int gs_catalog_decode_gpus(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, bool replace,
                           struct gs_catalog *c)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc || seq->n == 0)
        return rc;
    int cap = c->nproducts + seq->n;
    struct gs_gpu_product *arr = gs_arena_alloc(d->arena, sizeof *arr * (size_t)cap);
    const struct gs_ynode **first = gs_arena_alloc(d->arena, sizeof *first * (size_t)cap);
    if (!arr || !first)
        return nomem(d, seq);
    if (c->nproducts)
        memcpy(arr, c->products, sizeof *arr * (size_t)c->nproducts);
    int n = c->nproducts;
    /* Products by name: a map of those so far (product -> index in arr). */
    struct gs_strmap index = {0};
    for (int j = 0; j < n && !rc; j++)
        if (gs_strmap_add(&index, arr[j].product, j, NULL) < 0)
            rc = nomem(d, seq);
    char p[GS_CAT_PATH];
    for (int i = 0; i < seq->n && !rc; i++) {
        struct gs_gpu_product g = {0};
        pathf(p, "%s[%d]", path, i);
        if ((rc = decode_product(d, seq->items[i], p, &g)))
            break;
        const struct gs_ynode *pn = gs_y_get(seq->items[i], "product");
        int at = gs_strmap_get(&index, g.product);
        if (at >= 0 && first[at]) {
            rc = gs_y_error(d, pn, "duplicate product '%.80s' in %s (first at line %d column %d)", g.product, path,
                            first[at]->line, first[at]->col);
            break;
        }
        if (at >= 0 && !replace) {
            rc = gs_y_error(d, pn, "duplicate product '%.80s' in %s: it is already in the catalog", g.product, path);
            break;
        }
        if (at < 0) {
            at = n++;
            if (gs_strmap_add(&index, g.product, at, NULL) < 0)
                rc = nomem(d, seq);
        }
        arr[at] = g;
        first[at] = pn;
    }
    gs_strmap_free(&index);
    if (rc)
        return rc;
    c->products = arr;
    c->nproducts = n;
    return 0;
}

/* ------------------------------------------------------------------ timing profiles */

/* "base" and the step names (enum gs_step order), for gs_y_check_map. */
static const char *const profile_keys[] = {
    "base",          "nfdLabel",       "operatorLabel",    "driverCompile",    "driverPrecompiled",
    "driverHost",    "driverValidation", "toolkit",        "toolkitValidation", "devicePlugin",
    "gfd",           "migManager",     "dcgmExporter",     "cudaValidation",   "pluginValidation",
    "reboot",        "imagePullRetry", "migReconfigure", "migModeChange", NULL};
_Static_assert(sizeof profile_keys / sizeof profile_keys[0] == GS_STEP_COUNT + 2, "one key per step");

static int unknown_profile(struct gs_ydec *d, const struct gs_ynode *n, const char *what, const char *name,
                           const char *path, const struct gs_catalog *c)
{
    const char *names[65];
    int k = 0;
    for (int i = 0; i < c->nprofiles && k < 64; i++)
        names[k++] = c->profiles[i].name;
    names[k] = NULL;
    const char *near = gs_y_suggest(name, names);
    if (near)
        return gs_y_error(d, n, "unknown %s '%.60s' at %s (did you mean '%s'?)", what, name, path, near);
    char list[512];
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; i < k && len < sizeof list - 80; i++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
        if (w > 0)
            len += (size_t)w;
    }
    return gs_y_error(d, n, "unknown %s '%.60s' at %s: the catalog has %s", what, name, path,
                      k ? list : "no timing profiles");
}

/* Decode one profile mapping `m` into `out`, starting from `start` (NULL: nothing, and every step
 * must be given). A `base` is looked up in `index` (profile name -> index in c->profiles) when
 * given, else by a scan of c. */
static int decode_profile(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const char *name,
                          const struct gs_timing_profile *start, const struct gs_catalog *c,
                          const struct gs_strmap *index, struct gs_timing_profile *out)
{
    int rc = gs_y_check_map(d, m, path, profile_keys, NULL, NULL);
    if (rc)
        return rc;
    char p[GS_CAT_PATH];
    const struct gs_ynode *bn = gs_y_get(m, "base");
    if (bn) {
        const char *base;
        if ((rc = gs_y_str(d, bn, pathf(p, "%s.base", path), &base)))
            return rc;
        if (index) {
            int at = gs_strmap_get(index, base);
            start = at >= 0 ? &c->profiles[at] : NULL;
        } else {
            start = gs_catalog_profile(c, base);
        }
        if (!start)
            return unknown_profile(d, bn, "base profile", base, p, c);
    }
    bool given[GS_STEP_COUNT] = {false};
    if (start)
        *out = *start;
    else
        memset(out, 0, sizeof *out);
    out->name = name;
    for (int i = 0; i < m->n; i++) {
        const struct gs_ynode *k = m->pairs[i].key;
        int s = gs_step_find(k->text);
        if (s < 0)
            continue; /* base */
        if ((rc = gs_catalog_decode_dur(d, m->pairs[i].value, pathf(p, "%s.%s", path, k->text), &out->step[s])))
            return rc;
        given[s] = true;
    }
    if (!start)
        for (int s = 0; s < GS_STEP_FIRST_OPTIONAL; s++)
            if (!given[s])
                return gs_y_error(d, m, "missing step '%s' in %s: the %s profile gives every step",
                                  gs_step_name((enum gs_step)s), path, name);
    return 0;
}

int gs_catalog_decode_profiles(struct gs_ydec *d, const struct gs_ynode *map, const char *path, bool file,
                               struct gs_catalog *c)
{
    int rc = gs_y_want_map(d, map, path);
    if (rc)
        return rc;
    if (map->n == 0) {
        if (file)
            return gs_y_error(d, map, "%s is empty: it must start with the 'default' profile", path);
        return 0;
    }
    int cap = c->nprofiles + map->n;
    struct gs_timing_profile *arr = gs_arena_alloc(d->arena, sizeof *arr * (size_t)cap);
    if (!arr)
        return nomem(d, map);
    if (c->nprofiles)
        memcpy(arr, c->profiles, sizeof *arr * (size_t)c->nprofiles);
    /* Decode against the growing array so that later profiles can name earlier ones; names are
     * found through a map of the profiles so far (name -> index in arr). */
    struct gs_catalog cur = *c;
    cur.profiles = arr;
    struct gs_strmap index = {0};
    for (int j = 0; j < cur.nprofiles && !rc; j++)
        if (gs_strmap_add(&index, arr[j].name, j, NULL) < 0)
            rc = nomem(d, map);
    char p[GS_CAT_PATH];
    for (int i = 0; i < map->n && !rc; i++) {
        const struct gs_ynode *k = map->pairs[i].key, *v = map->pairs[i].value;
        const char *name = k->text;
        if (!profile_name_ok(name)) {
            rc = gs_y_error(d, k,
                            "invalid timing profile name '%.80s' in %s: use lowercase letters, digits and '-' "
                            "(at most 63, e.g. slow-compile)",
                            name, path);
            break;
        }
        bool is_default = strcmp(name, "default") == 0;
        if (file && i == 0 && !is_default) {
            rc = gs_y_error(d, k, "%s must start with the 'default' profile (the others start from it), not '%s'",
                            path, name);
            break;
        }
        pathf(p, "%s.%s", path, name);
        int at = gs_strmap_get(&index, name);
        const struct gs_timing_profile *start = NULL;
        if (file && is_default) {
            if (v && v->type == GS_Y_MAP && gs_y_get(v, "base")) {
                rc = gs_y_error(d, gs_y_get(v, "base"), "%s: the default profile has no base: it gives every step", p);
                break;
            }
        } else {
            int def = at >= 0 ? at : gs_strmap_get(&index, "default");
            start = def >= 0 ? &arr[def] : NULL;
        }
        struct gs_timing_profile prof;
        if ((rc = decode_profile(d, v, p, name, start, &cur, &index, &prof)))
            break;
        if (at < 0) {
            at = cur.nprofiles++;
            if (gs_strmap_add(&index, prof.name, at, NULL) < 0)
                rc = nomem(d, map);
        }
        arr[at] = prof;
    }
    gs_strmap_free(&index);
    if (!rc)
        *c = cur;
    return rc;
}

int gs_catalog_decode_profile(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const char *name,
                              const struct gs_catalog *c, const struct gs_timing_profile **out)
{
    struct gs_timing_profile *prof = gs_arena_alloc(d->arena, sizeof *prof);
    if (!prof)
        return nomem(d, m);
    const struct gs_timing_profile *start = gs_catalog_profile(c, "default");
    if (!start && !(m && m->type == GS_Y_MAP && gs_y_get(m, "base")))
        return gs_y_error(d, m, "%s: the catalog has no 'default' profile to start from (give base)", path);
    int rc = decode_profile(d, m, path, name, start, c, NULL, prof);
    if (rc)
        return rc;
    *out = prof;
    return 0;
}

/* ------------------------------------------------------------------ the files */

static int load_doc(struct gs_ydec *d, const char *dir, const char *file, const char *kind, const char *list_key,
                    const struct gs_ynode **list)
{
    char *path = gs_arena_printf(d->arena, "%s/%s", dir, file);
    if (!path)
        return gs_error_set(d->err, GS_ENOMEM, file, 0, 0, "out of memory");
    struct gs_ynode *root;
    int rc = gs_yaml_load_file(path, "a catalog file", GS_SCN_CATALOG_LIMIT, d->arena, &root, d->err);
    if (rc == GS_EIO && !gs_read_is_too_large(d->err)) {
        char msg[sizeof d->err->msg];
        snprintf(msg, sizeof msg, "%s", d->err->msg);
        return gs_error_set(d->err, GS_EIO, path, 0, 0,
                            "%s: the gpusim catalog is missing (set GPUSIM_CATALOG to the models/catalog directory)",
                            msg);
    }
    if (rc)
        return rc;
    const char *keys[] = {"apiVersion", "kind", list_key, NULL};
    if ((rc = gs_y_check_map(d, root, "", keys, NULL, keys)))
        return rc;
    const char *s;
    const struct gs_ynode *n = gs_y_get(root, "apiVersion");
    if ((rc = gs_y_str(d, n, "apiVersion", &s)))
        return rc;
    if (strcmp(s, GS_CAT_API_VERSION) != 0)
        return gs_y_error(d, n, "unsupported apiVersion \"%.60s\": expected %s", s, GS_CAT_API_VERSION);
    n = gs_y_get(root, "kind");
    if ((rc = gs_y_str(d, n, "kind", &s)))
        return rc;
    if (strcmp(s, kind) != 0)
        return gs_y_error(d, n, "unsupported kind \"%.60s\": expected %s", s, kind);
    *list = gs_y_get(root, list_key);
    return 0;
}

int gs_catalog_load(const char *dir, struct gs_arena *a, struct gs_catalog *c, struct gs_error *err)
{
    memset(c, 0, sizeof *c);
    struct gs_ydec d = {.err = err, .arena = a};
    const struct gs_ynode *list;
    int rc = load_doc(&d, dir ? dir : ".", "gpus.yaml", "GPUCatalog", "gpus", &list);
    if (!rc)
        rc = gs_catalog_decode_gpus(&d, list, "gpus", false, c);
    if (!rc)
        rc = load_doc(&d, dir ? dir : ".", "operands.yaml", "OperandTimings", "timingProfiles", &list);
    if (!rc)
        rc = gs_catalog_decode_profiles(&d, list, "timingProfiles", true, c);
    if (rc)
        memset(c, 0, sizeof *c);
    return rc;
}

/* ------------------------------------------------------------------ where it is */

static bool has_catalog(const char *dir)
{
    char p[PATH_MAX];
    int n = snprintf(p, sizeof p, "%s/gpus.yaml", dir);
    return n > 0 && (size_t)n < sizeof p && access(p, R_OK) == 0;
}

const char *gs_catalog_default_dir(void)
{
    static char buf[PATH_MAX];
    const char *env = getenv("GPUSIM_CATALOG");
    if (env && *env) {
        snprintf(buf, sizeof buf, "%s", env);
        return buf;
    }
#ifdef GPUSIM_SOURCE_DIR
    snprintf(buf, sizeof buf, "%s/models/catalog", GPUSIM_SOURCE_DIR);
    if (has_catalog(buf))
        return buf;
#endif
    /* <dir of the executable>/../share/gpusim/catalog (an installed gpusim) */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            int w = snprintf(buf, sizeof buf, "%s/../share/gpusim/catalog", exe);
            if (w > 0 && (size_t)w < sizeof buf)
                return buf;
        }
    }
    snprintf(buf, sizeof buf, "models/catalog");
    return buf;
}
