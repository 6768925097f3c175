/* gpusim: loading a scenario (scenario.h): the YAML tree, `--set` overrides, the top level and
 * spec's scalar keys, then the section decoders of decode.h.
 *
 * Defaults: seed 1; horizon unset (GS_TIME_MAX, has_horizon false; 0 is refused);
 * kubernetesVersion "1.34" (accepted: "1.28".."1.35", also "v1.34", "1.34.2" and a plain YAML
 * number as written, e.g. 1.30 -> 30); sampleInterval 60s (at least 1s); startLatency 0s;
 * featureGates: only DynamicResourceAllocation (default: on from 1.34) — any other gate is "not
 * supported yet"; admission "podByPod"; the scheduler config is gs_sched_config_default for
 * the release even without spec.scheduler. versions: only gpu-operator (operator.c). The catalog
 * (models/catalog via gs_catalog_default_dir, then spec.catalog) is loaded when a pool has GPUs
 * or spec.operator or spec.catalog is given, and every pool's gpu.product must then be in it;
 * sc->op starts from gs_operator_config_defaults with
 * op.enabled false unless spec.operator is given. metadata.name is
 * required and must be a DNS-1123 label; metadata takes only name and description.
 *
 * --set path=value: `path` is dotted, relative to the document root when it starts with
 * apiVersion, kind, metadata or spec, else relative to spec. `[N]` indexes a sequence (N equal
 * to its length appends), `[any.key/with.dots]` names a map key that contains dots. Missing
 * map keys (and null values on the way) are created. The value is parsed as YAML (so `8` is
 * an int, `"8"` a string, `{a: b}` a mapping). Errors name the file "--set", the line is the
 * ordinal of the --set argument (1-based), the column the 1-based position in the argument.
 * The containers along the path are copied first, so nodes shared through YAML aliases keep
 * their value elsewhere.
 *
 * Memory: everything the scenario holds (the YAML tree, strings, pools, events,
 * expectations) lives in the world's arena, so gs_scenario_free is gs_world_free. On error the
 * loaders free what they built and leave `sc` zeroed (gs_scenario_free on it is harmless). */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "sim/scenario.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/yaml.h"

#define GS_SCN_API_VERSION "gpusim/v1alpha1"
#define GS_SCN_MIN_MINOR 28
#define GS_SCN_MAX_MINOR 35
#define GS_SCN_DEFAULT_MINOR 34

/* ------------------------------------------------------------------ --set */

struct setpath {
    const char *arg;   /* the whole argument */
    int line;          /* ordinal of the --set argument, 1-based */
    struct gs_error *err;
    struct gs_arena *a;
};

static int set_err(struct setpath *s, int pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int set_err(struct setpath *s, int pos, const char *fmt, ...)
{
    char msg[sizeof s->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gs_error_set(s->err, GS_EINVAL, "--set", s->line, pos + 1, "%s", msg);
}

static struct gs_ynode *new_node(struct setpath *s, enum gs_ytype t, int pos)
{
    struct gs_ynode *n = gs_arena_alloc(s->a, sizeof *n);
    if (!n)
        return NULL;
    n->type = t;
    n->file = "--set";
    n->line = s->line;
    n->col = pos + 1;
    n->text = "";
    n->plain = true;
    return n;
}

/* A shallow copy of a map or sequence (its pair/item array copied, with room for one more),
 * so that changing it never changes a node shared through a YAML alias. */
static struct gs_ynode *clone_container(struct gs_arena *a, const struct gs_ynode *n)
{
    struct gs_ynode *c = gs_arena_alloc(a, sizeof *c);
    if (!c)
        return NULL;
    *c = *n;
    if (n->type == GS_Y_MAP) {
        c->pairs = gs_arena_alloc(a, sizeof *c->pairs * (size_t)(n->n + 1));
        if (!c->pairs)
            return NULL;
        if (n->n)
            memcpy(c->pairs, n->pairs, sizeof *c->pairs * (size_t)n->n);
    } else if (n->type == GS_Y_SEQ) {
        c->items = gs_arena_alloc(a, sizeof *c->items * (size_t)(n->n + 1));
        if (!c->items)
            return NULL;
        if (n->n)
            memcpy(c->items, n->items, sizeof *c->items * (size_t)n->n);
    }
    return c;
}

/* One path segment: a key (`a`, `[some.key/with.dots]`) or an index (`[3]`). */
struct seg {
    const char *key; /* arena; NULL for an index */
    long index;
    int pos;         /* 0-based position in the argument */
};

static int parse_path(struct setpath *s, const char *path, size_t len, struct seg **out, int *nout)
{
    int cap = 0, n = 0;
    struct seg *segs = NULL;
    size_t i = 0;
    bool need_key = true; /* at the start and after '.' a key must follow */
    if (len == 0)
        return set_err(s, 0, "invalid --set '%s': expected path=value, e.g. scheduler.tieBreak=first", s->arg);
    while (i < len) {
        if (GS_ARENA_GROW(s->a, segs, cap, n + 1))
            return GS_ENOMEM;
        struct seg *g = &segs[n];
        g->pos = (int)i;
        if (path[i] == '[') {
            const char *close = memchr(path + i, ']', len - i);
            if (!close)
                return set_err(s, (int)i, "invalid --set path: '[' without a matching ']'");
            size_t blen = (size_t)(close - (path + i)) - 1;
            if (blen == 0)
                return set_err(s, (int)i, "invalid --set path: empty []");
            const char *b = path + i + 1;
            bool digits = true;
            for (size_t k = 0; k < blen; k++)
                if (!isdigit((unsigned char)b[k]))
                    digits = false;
            if (digits) {
                if (blen > 9)
                    return set_err(s, (int)i + 1, "invalid --set path: index too large");
                g->key = NULL;
                g->index = strtol(b, NULL, 10);
            } else {
                char *k = gs_arena_alloc(s->a, blen + 1);
                if (!k)
                    return GS_ENOMEM;
                memcpy(k, b, blen);
                g->key = k;
            }
            i = (size_t)(close - path) + 1;
            n++;
            need_key = false;
            if (i < len && path[i] == '.') {
                i++;
                need_key = true;
                if (i == len)
                    return set_err(s, (int)i - 1, "invalid --set path: nothing after '.'");
            } else if (i < len && path[i] != '[') {
                return set_err(s, (int)i, "invalid --set path: expected '.' or '[' after ']'");
            }
            continue;
        }
        size_t j = i;
        while (j < len && path[j] != '.' && path[j] != '[')
            j++;
        if (j == i)
            return set_err(s, (int)i, "invalid --set path: empty key%s",
                           need_key ? "" : " (write a.b, a[0] or a[some.key])");
        char *k = gs_arena_alloc(s->a, j - i + 1);
        if (!k)
            return GS_ENOMEM;
        memcpy(k, path + i, j - i);
        g->key = k;
        n++;
        i = j;
        need_key = false;
        if (i < len && path[i] == '.') {
            i++;
            need_key = true;
            if (i == len)
                return set_err(s, (int)i - 1, "invalid --set path: nothing after '.'");
        }
    }
    *out = segs;
    *nout = n;
    return 0;
}

static const char *type_name(const struct gs_ynode *n)
{
    if (n->type == GS_Y_MAP)
        return "a mapping";
    if (n->type == GS_Y_SEQ)
        return "a sequence";
    return "a scalar";
}

/* Apply one `path=value` to the tree at *root (which may be replaced). */
static int apply_set(struct gs_ynode **root, const char *arg, int ordinal, struct gs_arena *a,
                     struct gs_error *err)
{
    struct setpath s = {.arg = arg, .line = ordinal, .err = err, .a = a};
    const char *eq = strchr(arg, '=');
    if (!eq)
        return set_err(&s, 0, "invalid --set '%s': expected path=value, e.g. scheduler.tieBreak=first", arg);
    struct seg *segs = NULL;
    int nsegs = 0;
    int rc = parse_path(&s, arg, (size_t)(eq - arg), &segs, &nsegs);
    if (rc)
        return rc == GS_ENOMEM ? gs_error_set(err, GS_ENOMEM, "--set", ordinal, 0, "out of memory") : rc;
    struct gs_ynode *value;
    rc = gs_yaml_load_fragment("--set", eq + 1, ordinal, (int)(eq + 1 - arg), a, &value, err);
    if (rc)
        return rc;

    /* Paths are relative to spec unless they start at a top-level key. */
    static const char *const top[] = {"apiVersion", "kind", "metadata", "spec", NULL};
    bool from_root = false;
    for (int i = 0; top[i]; i++)
        if (segs[0].key && strcmp(segs[0].key, top[i]) == 0)
            from_root = true;
    struct seg spec_seg = {.key = "spec", .pos = 0};
    struct seg *all = segs;
    int nall = nsegs;
    if (!from_root) {
        all = gs_arena_alloc(a, sizeof *all * (size_t)(nsegs + 1));
        if (!all)
            return gs_error_set(err, GS_ENOMEM, "--set", ordinal, 0, "out of memory");
        all[0] = spec_seg;
        memcpy(all + 1, segs, sizeof *segs * (size_t)nsegs);
        nall = nsegs + 1;
    }

    /* Walk from the root, copying each container on the way (aliases stay untouched). */
    if ((*root)->type != GS_Y_MAP)
        return set_err(&s, 0, "cannot apply --set: the document is not a mapping");
    struct gs_ynode **slot = root;
    char done[512];
    size_t dl = 0;
    done[0] = '\0';
    for (int i = 0; i < nall; i++) {
        struct seg *g = &all[i];
        bool last = i == nall - 1;
        struct gs_ynode *cur = *slot;
        /* A null where a container is needed becomes an empty one. */
        if (gs_y_is_null(cur)) {
            cur = new_node(&s, g->key ? GS_Y_MAP : GS_Y_SEQ, g->pos);
            if (!cur)
                return gs_error_set(err, GS_ENOMEM, "--set", ordinal, 0, "out of memory");
        }
        const char *shown = dl ? done : "the document";
        if (g->key && cur->type != GS_Y_MAP)
            return set_err(&s, g->pos, "cannot set key '%s': %s is %s%s", g->key, shown, type_name(cur),
                           cur->type == GS_Y_SEQ ? " (use [index])" : "");
        if (!g->key && cur->type != GS_Y_SEQ)
            return set_err(&s, g->pos, "cannot index [%ld]: %s is %s, not a sequence", g->index, shown,
                           type_name(cur));
        cur = clone_container(a, cur);
        if (!cur)
            return gs_error_set(err, GS_ENOMEM, "--set", ordinal, 0, "out of memory");
        *slot = cur;
        struct gs_ynode **next = NULL;
        if (g->key) {
            for (int k = 0; k < cur->n; k++)
                if (strcmp(cur->pairs[k].key->text, g->key) == 0)
                    next = &cur->pairs[k].value;
            if (!next) {
                /* clone_container left room for one more pair */
                struct gs_ynode *key = new_node(&s, GS_Y_SCALAR, g->pos);
                struct gs_ynode *val = last ? value : new_node(&s, all[i + 1].key ? GS_Y_MAP : GS_Y_SEQ, g->pos);
                if (!key || !val)
                    return gs_error_set(err, GS_ENOMEM, "--set", ordinal, 0, "out of memory");
                key->text = g->key;
                cur->pairs[cur->n].key = key;
                cur->pairs[cur->n].value = val;
                next = &cur->pairs[cur->n].value;
                cur->n++;
            }
            int w = snprintf(done + dl, sizeof done - dl, "%s%s", dl ? "." : "", g->key);
            if (w > 0 && (size_t)w < sizeof done - dl)
                dl += (size_t)w;
        } else {
            if (g->index > cur->n)
                return set_err(&s, g->pos, "index [%ld] out of range: %s has %d item%s (use [%d] to append)",
                               g->index, shown, cur->n, cur->n == 1 ? "" : "s", cur->n);
            if (g->index == cur->n) {
                struct gs_ynode *val = last ? value : new_node(&s, all[i + 1].key ? GS_Y_MAP : GS_Y_SEQ, g->pos);
                if (!val)
                    return gs_error_set(err, GS_ENOMEM, "--set", ordinal, 0, "out of memory");
                cur->items[cur->n++] = val;
            }
            next = &cur->items[g->index];
            int w = snprintf(done + dl, sizeof done - dl, "[%ld]", g->index);
            if (w > 0 && (size_t)w < sizeof done - dl)
                dl += (size_t)w;
        }
        if (last)
            *next = value;
        slot = next;
    }
    return 0;
}

/* ------------------------------------------------------------------ the top level */

static int dir_of(struct gs_arena *a, const char *path, const char **out)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        *out = ".";
    else if (slash == path)
        *out = "/";
    else
        *out = gs_arena_printf(a, "%.*s", (int)(slash - path), path);
    return *out ? 0 : GS_ENOMEM;
}

/* "1.34", "v1.34", "1.34.2" (or a plain YAML number as written) -> 34. */
static int decode_k8s_version(struct gs_ydec *d, const struct gs_ynode *n, int *minor)
{
    const char *path = "spec.kubernetesVersion";
    if (!n || n->type != GS_Y_SCALAR || gs_y_is_null(n))
        return gs_y_error(d, n, "expected a Kubernetes release such as \"1.34\" at %s", path);
    const char *t = n->text;
    const char *p = t;
    if (*p == 'v')
        p++;
    bool ok = p[0] == '1' && p[1] == '.' && isdigit((unsigned char)p[2]);
    long m = 0;
    if (ok) {
        char *end;
        m = strtol(p + 2, &end, 10);
        if (*end == '.') {
            end++;
            if (!isdigit((unsigned char)*end))
                ok = false;
            while (isdigit((unsigned char)*end))
                end++;
        }
        if (*end != '\0' || (p[2] == '0' && isdigit((unsigned char)p[3])) || end - (p + 2) > 8)
            ok = false;
    }
    if (!ok)
        return gs_y_error(d, n, "invalid kubernetesVersion \"%.60s\" at %s: expected a release such as \"1.34\"", t,
                          path);
    if (m < GS_SCN_MIN_MINOR || m > GS_SCN_MAX_MINOR)
        return gs_y_error(d, n, "unsupported kubernetesVersion \"%.60s\" at %s: gpusim models 1.%d to 1.%d", t,
                          path, GS_SCN_MIN_MINOR, GS_SCN_MAX_MINOR);
    *minor = (int)m;
    return 0;
}

static int decode_feature_gates(struct gs_ydec *d, const struct gs_ynode *fg, int *dra)
{
    const char *path = "spec.featureGates";
    int rc = gs_y_want_map(d, fg, path);
    if (rc)
        return rc;
    for (int i = 0; i < fg->n; i++) {
        const struct gs_ynode *k = fg->pairs[i].key;
        char p[GS_SCN_PATH];
        gs_scn_path(p, "%s.%s", path, k->text);
        bool v;
        if ((rc = gs_y_bool(d, fg->pairs[i].value, p, &v)))
            return rc;
        if (strcmp(k->text, "DynamicResourceAllocation") == 0)
            *dra = v;
        else
            return gs_y_unsupported(d, k, p);
    }
    return 0;
}

/* A top-level section that must be a sequence when present; null counts as absent. */
static const struct gs_ynode *opt_section(const struct gs_ynode *spec, const char *key)
{
    const struct gs_ynode *n = gs_y_get(spec, key);
    return n && gs_y_is_null(n) ? NULL : n;
}

static int decode_root(struct gs_ydec *d, const struct gs_ynode *root, int64_t seed_override,
                       int64_t horizon_override, struct gs_scenario *sc)
{
    static const char *const top_keys[] = {"apiVersion", "kind", "metadata", "spec", NULL};
    int rc = gs_y_check_map(d, root, "", top_keys, NULL, top_keys);
    if (rc)
        return rc;

    const char *s;
    const struct gs_ynode *n = gs_y_get(root, "apiVersion");
    if ((rc = gs_y_str(d, n, "apiVersion", &s)))
        return rc;
    if (strcmp(s, GS_SCN_API_VERSION) != 0)
        return gs_y_error(d, n, "unsupported apiVersion \"%.60s\": expected %s", s, GS_SCN_API_VERSION);
    n = gs_y_get(root, "kind");
    if ((rc = gs_y_str(d, n, "kind", &s)))
        return rc;
    if (strcmp(s, "Scenario") != 0)
        return gs_y_error(d, n, "unsupported kind \"%.60s\": expected Scenario", s);

    /* metadata */
    const struct gs_ynode *md = gs_y_get(root, "metadata");
    static const char *const md_keys[] = {"name", "description", NULL};
    static const char *const md_req[] = {"name", NULL};
    if ((rc = gs_y_check_map(d, md, "metadata", md_keys, NULL, md_req)))
        return rc;
    n = gs_y_get(md, "name");
    if ((rc = gs_y_str(d, n, "metadata.name", &sc->name)))
        return rc;
    if (!gs_scn_is_dns_label(sc->name))
        return gs_y_error(d, n,
                          "invalid metadata.name \"%.80s\": must be a DNS-1123 label (at most 63 lowercase "
                          "letters, digits or '-', starting and ending with a letter or digit, e.g. 'gang-deadlock')",
                          sc->name);
    if ((n = gs_y_get(md, "description")) && !gs_y_is_null(n) &&
        (rc = gs_y_str(d, n, "metadata.description", &sc->description)))
        return rc;

    /* spec: its scalar keys first (the scheduler defaults depend on the release) */
    const struct gs_ynode *spec = gs_y_get(root, "spec");
    static const char *const spec_keys[] = {"seed",      "horizon",  "kubernetesVersion", "sampleInterval",
                                            "startLatency", "featureGates", "versions",       "catalog",
                                            "objects",   "cluster",  "operator",          "scheduler",
                                            "workloads", "events",   "expect",            "autoscaler", NULL};
    static const char *const spec_req[] = {"cluster", NULL};
    if ((rc = gs_y_check_map(d, spec, "spec", spec_keys, NULL, spec_req)))
        return rc;

    sc->seed = 1;
    if ((n = gs_y_get(spec, "seed"))) {
        int64_t v;
        if ((rc = gs_y_int(d, n, "spec.seed", 0, INT64_MAX, &v)))
            return rc;
        sc->seed = (uint64_t)v;
    }
    if (seed_override >= 0)
        sc->seed = (uint64_t)seed_override;

    sc->has_horizon = false;
    sc->horizon = GS_TIME_MAX;
    if ((n = gs_y_get(spec, "horizon"))) {
        if ((rc = gs_y_duration(d, n, "spec.horizon", false, &sc->horizon)))
            return rc;
        if (sc->horizon == 0)
            return gs_y_error(d, n, "spec.horizon must be positive, got %s", n->text);
        sc->has_horizon = true;
    }
    const char *horizon_source = sc->has_horizon ? "spec.horizon" : NULL;
    if (horizon_override >= 0) {
        sc->horizon = horizon_override;
        sc->has_horizon = true;
        horizon_source = "--horizon";
    }

    sc->k8s_minor = GS_SCN_DEFAULT_MINOR;
    if ((n = gs_y_get(spec, "kubernetesVersion")) && (rc = decode_k8s_version(d, n, &sc->k8s_minor)))
        return rc;

    sc->sample_interval = GS_SEC(60);
    if ((n = gs_y_get(spec, "sampleInterval"))) {
        if ((rc = gs_y_duration(d, n, "spec.sampleInterval", false, &sc->sample_interval)))
            return rc;
        /* A finer period only makes the trace huge (a sample row per pool each time). */
        if (sc->sample_interval < GS_SEC(1))
            return gs_y_error(d, n, "spec.sampleInterval must be at least 1s, got %.60s", n->text);
    }
    sc->start_latency = 0;
    if ((n = gs_y_get(spec, "startLatency")) &&
        (rc = gs_y_duration(d, n, "spec.startLatency", false, &sc->start_latency)))
        return rc;

    int dra = -1;
    if ((n = gs_y_get(spec, "featureGates")) && (rc = decode_feature_gates(d, n, &dra)))
        return rc;

    if ((rc = gs_scn_versions(d, gs_y_get(spec, "versions"), sc)))
        return rc;

    gs_sched_config_default(&sc->sched, sc->k8s_minor);
    sc->sched.k8s_minor = sc->k8s_minor;
    sc->sched.dra_enabled = dra >= 0 ? dra == 1 : sc->k8s_minor >= 34;
    if (!sc->sched.dra_enabled)
        gs_sched_config_remove_plugin(&sc->sched, "DynamicResources");
    if (!sc->sched.scheduler_name)
        sc->sched.scheduler_name = "default-scheduler";
    sc->admission = "podByPod";

    /* the sections, in dependency order */
    const struct gs_ynode *sec = opt_section(spec, "objects");
    if (sec && (rc = gs_y_want_seq(d, sec, "spec.objects")))
        return rc;
    if ((rc = gs_scn_objects(d, sec, sc)))
        return rc;
    if ((rc = gs_scn_cluster(d, gs_y_get(spec, "cluster"), sc)))
        return rc;
    /* node pools' autoscaling and spec.autoscaler (sim/scenario/autoscaling.c) */
    if ((rc = gs_scn_autoscaling(d, spec, horizon_source, sc)))
        return rc;
    /* the catalog and the operator (the Xid policy defaults apply without an operator too) */
    gs_operator_config_defaults(&sc->op);
    sc->op.enabled = false;
    const struct gs_ynode *op = opt_section(spec, "operator"), *cat = opt_section(spec, "catalog");
    bool gpus = false;
    for (int i = 0; i < sc->world.npools; i++)
        gpus = gpus || sc->world.pools[i].gpu_product;
    if (gpus || op || cat) {
        if ((rc = gs_catalog_load(gs_catalog_default_dir(), d->arena, &sc->catalog, d->err)))
            return rc;
        /* MIG profiles and the operator's default mig-parted configs (models/catalog). */
        if ((rc = gs_mig_catalog_load(gs_catalog_default_dir(), d->arena, &sc->mig_catalog, d->err)))
            return rc;
        sc->migparted = sc->mig_catalog.defaults;
        if (cat && (rc = gs_scn_catalog(d, cat, sc)))
            return rc;
    }
    if (gpus && (rc = gs_scn_cluster_products(d, gs_y_get(spec, "cluster"), sc)))
        return rc;
    if (op && (rc = gs_scn_operator(d, op, sc)))
        return rc;
    if ((sec = opt_section(spec, "scheduler")) && (rc = gs_scn_scheduler(d, sec, sc)))
        return rc;
    if ((sec = opt_section(spec, "workloads")) &&
        ((rc = gs_y_want_seq(d, sec, "spec.workloads")) || (rc = gs_scn_workloads(d, sec, sc))))
        return rc;
    /* DRA references (device classes, pods' claims and templates) once all are known. */
    if ((rc = gs_scn_dra_finish(d, opt_section(spec, "objects"), sc)))
        return rc;
    if ((sec = opt_section(spec, "events")) &&
        ((rc = gs_y_want_seq(d, sec, "spec.events")) || (rc = gs_scn_events(d, sec, sc))))
        return rc;
    if ((sec = opt_section(spec, "expect")) &&
        ((rc = gs_y_want_seq(d, sec, "spec.expect")) || (rc = gs_scn_expect(d, sec, horizon_source, sc))))
        return rc;
    return gs_scn_limits(d, spec, sc);
}

/* Common tail of both loaders: `root` is in sc->world.arena. */
static int finish(struct gs_scenario *sc, struct gs_ynode *root, const char *const *sets, int nsets,
                  int64_t seed_override, int64_t horizon_override, struct gs_error *err)
{
    int rc;
    for (int i = 0; i < nsets; i++) {
        if (root->type != GS_Y_MAP) {
            struct gs_ydec d0 = {.err = err, .arena = &sc->world.arena, .world = &sc->world};
            return gs_y_want_map(&d0, root, "");
        }
        if ((rc = apply_set(&root, sets[i] ? sets[i] : "", i + 1, &sc->world.arena, err)))
            return rc;
    }
    const char *dir;
    if (dir_of(&sc->world.arena, sc->path, &dir))
        return gs_error_set(err, GS_ENOMEM, sc->path, 0, 0, "out of memory");
    /* The name indexes live as long as the decoding (sim/scenario/names.c). */
    struct gs_ydec d = {.err = err, .arena = &sc->world.arena, .world = &sc->world, .dir = dir};
    if (gs_scn_names_new(&d.names))
        return gs_error_set(err, GS_ENOMEM, sc->path, 0, 0, "out of memory");
    rc = decode_root(&d, root, seed_override, horizon_override, sc);
    gs_scn_names_free(d.names);
    return rc;
}

static int start(struct gs_scenario *sc, const char *path, struct gs_error *err)
{
    memset(sc, 0, sizeof *sc);
    if (gs_world_init(&sc->world))
        return gs_error_set(err, GS_ENOMEM, path, 0, 0, "out of memory");
    sc->path = gs_arena_strdup(&sc->world.arena, path);
    if (!sc->path) {
        gs_world_free(&sc->world);
        return gs_error_set(err, GS_ENOMEM, path, 0, 0, "out of memory");
    }
    return 0;
}

int gs_scenario_load(const char *path, const char *const *sets, int nsets, int64_t seed_override,
                     int64_t horizon_override, struct gs_scenario *sc, struct gs_error *err)
{
    int rc = start(sc, path ? path : "", err);
    if (rc)
        return rc;
    struct gs_ynode *root;
    if (!(rc = gs_yaml_load_file(sc->path, "a scenario file", GS_SCN_SCENARIO_LIMIT, &sc->world.arena, &root, err)))
        rc = finish(sc, root, sets, nsets, seed_override, horizon_override, err);
    if (rc)
        gs_scenario_free(sc);
    return rc;
}

int gs_scenario_load_string(const char *name, const char *text, struct gs_scenario *sc, struct gs_error *err)
{
    int rc = start(sc, name ? name : "<string>", err);
    if (rc)
        return rc;
    struct gs_ynode *root;
    if (!(rc = gs_yaml_load_string(sc->path, text, &sc->world.arena, &root, err)))
        rc = finish(sc, root, NULL, 0, -1, -1, err);
    if (rc)
        gs_scenario_free(sc);
    return rc;
}

void gs_scenario_free(struct gs_scenario *sc)
{
    if (!sc)
        return;
    gs_scn_dra_free(sc); /* compiled CEL programs, before the arena that holds their owners */
    gs_world_free(&sc->world);
    memset(sc, 0, sizeof *sc);
}
