/* The Cluster Autoscaler's part of a scenario (sim/autoscaler.h): a node pool's
 *   autoscaling: {minSize, maxSize, provisioning}
 * and the optional spec.autoscaler with the cluster-autoscaler flags in camelCase
 * (kubernetes/autoscaler cluster-autoscaler 1.35.2 config/flags/flags.go, config/const.go) and
 * the priority expander's ConfigMap `priorities` (expander/priority/priority.go: a YAML map of
 * integer priority to a list of regular expressions over node group names, given as a map or
 * as the ConfigMap's string). Documented in docs/scenario-format.md, "Cluster Autoscaler". */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "sim/autoscaler.h"
#include "sim/scenario/catalog_yaml.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

#define AS_MAX_NODES 1000000 /* as a pool's count (cluster.c) */

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, "out of memory");
}

static int decode_group(struct gs_ydec *d, const struct gs_ynode *pool, const struct gs_ynode *m, const char *path,
                        int count, struct gs_as_group *g)
{
    static const char *const keys[] = {"minSize", "maxSize", "provisioning", NULL};
    static const char *const req[] = {"maxSize", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, req);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    int64_t v = 0;
    const struct gs_ynode *n;
    if ((n = gs_y_get(m, "minSize")) &&
        (rc = gs_y_int(d, n, gs_scn_path(p, "%s.minSize", path), 0, AS_MAX_NODES, &v)))
        return rc;
    g->min_size = (int)v;
    n = gs_y_get(m, "maxSize");
    if ((rc = gs_y_int(d, n, gs_scn_path(p, "%s.maxSize", path), 1, AS_MAX_NODES, &v)))
        return rc;
    g->max_size = (int)v;
    if (g->max_size < g->min_size)
        return gs_y_error(d, n, "%s.maxSize (%d) is below minSize (%d)", path, g->max_size, g->min_size);
    if (count < g->min_size || count > g->max_size) {
        const struct gs_ynode *cn = gs_y_get(pool, "count");
        return gs_y_error(d, cn ? cn : m,
                          "node pool count %d is outside its autoscaling range: it must be between minSize %d "
                          "and maxSize %d",
                          count, g->min_size, g->max_size);
    }
    g->provisioning.kind = GS_DUR_FIXED;
    g->provisioning.fixed = 0;
    if ((n = gs_y_get(m, "provisioning")) &&
        (rc = gs_catalog_decode_dur(d, n, gs_scn_path(p, "%s.provisioning", path), &g->provisioning)))
        return rc;
    g->enabled = true;
    return 0;
}

/* The priority expander's `priorities`: {<int>: [regex, ...]}. */
static int decode_priorities(struct gs_ydec *d, const struct gs_ynode *m, const char *path,
                             struct gs_autoscaler_spec *as)
{
    int rc;
    if ((rc = gs_y_want_map(d, m, path)))
        return rc;
    if (m->n == 0)
        return gs_y_error(d, m, "%s is empty: give at least one priority with its list of node group regexes", path);
    as->priorities = gs_arena_alloc(d->arena, sizeof *as->priorities * (size_t)m->n);
    if (!as->priorities)
        return nomem(d, m);
    as->npriorities = m->n;
    for (int i = 0; i < m->n; i++) {
        const struct gs_ynode *k = m->pairs[i].key, *seq = m->pairs[i].value;
        struct gs_as_priority *pr = &as->priorities[i];
        char *end;
        long long prio = strtoll(k->text, &end, 10);
        if (!k->text[0] || *end)
            return gs_y_error(d, k, "priority '%.40s' in %s is not an integer (the priority expander's keys are "
                                    "integers, the highest wins)", k->text, path);
        pr->priority = prio;
        char p[GS_SCN_PATH];
        gs_scn_path(p, "%s.%lld", path, prio);
        if ((rc = gs_y_want_seq(d, seq, p)))
            return rc;
        const char **re = gs_arena_alloc(d->arena, sizeof *re * (size_t)(seq->n ? seq->n : 1));
        if (!re)
            return nomem(d, seq);
        for (int j = 0; j < seq->n; j++) {
            char ip[GS_SCN_PATH];
            if ((rc = gs_y_str(d, seq->items[j], gs_scn_path(ip, "%s[%d]", p, j), &re[j])))
                return rc;
            regex_t r;
            int e = regcomp(&r, re[j], REG_EXTENDED | REG_NOSUB);
            if (e) {
                char why[128];
                regerror(e, &r, why, sizeof why);
                return gs_y_error(d, seq->items[j], "invalid regular expression '%.80s' at %s: %s", re[j], ip, why);
            }
            regfree(&r);
        }
        pr->regex = re;
        pr->nregex = seq->n;
    }
    return 0;
}

static int decode_expander(struct gs_ydec *d, const struct gs_ynode *n, struct gs_autoscaler_spec *as)
{
    static const char *const names[] = {"least-waste", "most-pods", "random", "priority", NULL};
    const char *s;
    int rc = gs_y_str(d, n, "spec.autoscaler.expander", &s);
    if (rc)
        return rc;
    as->expander_text = s;
    as->nexpanders = 0;
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ')
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        int k = -1;
        for (int i = 0; names[i]; i++)
            if (strlen(names[i]) == len && strncmp(names[i], p, len) == 0)
                k = i;
        if (k < 0)
            return gs_y_error(d, n,
                              "unknown expander '%.*s' in spec.autoscaler.expander: gpusim models least-waste, "
                              "most-pods, random and priority (a comma-separated chain, e.g. priority,least-waste)",
                              (int)(len > 60 ? 60 : len), p);
        if (as->nexpanders == GS_AS_MAX_EXPANDERS)
            return gs_y_error(d, n, "spec.autoscaler.expander chains at most %d expanders", GS_AS_MAX_EXPANDERS);
        as->expanders[as->nexpanders++] = (enum gs_as_expander)k;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* The YAML document in the string `n` (the value of `priorities` in map `m`), with positions in
 * the scenario file: a block scalar (`priorities: |`) starts on the next line, its lines
 * indented as the keys under `priorities` usually are (two more than the key). */
static int parse_string(struct gs_ydec *d, const struct gs_ynode *m, const struct gs_ynode *n, struct gs_ynode **root)
{
    if (!strchr(n->text, '\n'))
        return gs_yaml_load_fragment(n->file, n->text, n->line, n->col, d->arena, root, d->err);
    int indent = 2;
    for (int i = 0; i < m->n; i++)
        if (m->pairs[i].value == n)
            indent = m->pairs[i].key->col + 1;
    size_t lines = 1;
    for (const char *p = n->text; *p; p++)
        lines += *p == '\n';
    size_t len = (size_t)n->line + strlen(n->text) + lines * (size_t)indent + 1;
    char *text = gs_arena_alloc(d->arena, len);
    if (!text)
        return nomem(d, n);
    size_t k = 0;
    for (int i = 0; i < n->line; i++)
        text[k++] = '\n';
    bool bol = true;
    for (const char *p = n->text; *p; p++) {
        if (bol && *p != '\n')
            for (int i = 0; i < indent; i++)
                text[k++] = ' ';
        text[k++] = *p;
        bol = *p == '\n';
    }
    text[k] = '\0';
    return gs_yaml_load_string(n->file, text, d->arena, root, d->err);
}

static int decode_spec(struct gs_ydec *d, const struct gs_ynode *m, struct gs_autoscaler_spec *as)
{
    static const char *const keys[] = {"scanInterval",
                                       "expander",
                                       "maxNodeProvisionTime",
                                       "scaleDownEnabled",
                                       "scaleDownUtilizationThreshold",
                                       "scaleDownGpuUtilizationThreshold",
                                       "scaleDownUnneededTime",
                                       "scaleDownDelayAfterAdd",
                                       "initialNodeGroupBackoffDuration",
                                       "maxNodeGroupBackoffDuration",
                                       "nodeGroupBackoffResetTimeout",
                                       "maxEmptyBulkDelete",
                                       "newPodScaleUpDelay",
                                       "priorities",
                                       NULL};
    int rc = gs_y_check_map(d, m, "spec.autoscaler", keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *n;
    struct {
        const char *key;
        gs_time *out;
    } durs[] = {
        {"scanInterval", &as->scan_interval},
        {"maxNodeProvisionTime", &as->max_node_provision_time},
        {"scaleDownUnneededTime", &as->unneeded_time},
        {"scaleDownDelayAfterAdd", &as->delay_after_add},
        {"initialNodeGroupBackoffDuration", &as->initial_backoff},
        {"maxNodeGroupBackoffDuration", &as->max_backoff},
        {"nodeGroupBackoffResetTimeout", &as->backoff_reset},
        {"newPodScaleUpDelay", &as->new_pod_scale_up_delay},
    };
    char p[GS_SCN_PATH];
    for (size_t i = 0; i < sizeof durs / sizeof durs[0]; i++)
        if ((n = gs_y_get(m, durs[i].key)) &&
            (rc = gs_y_duration(d, n, gs_scn_path(p, "spec.autoscaler.%s", durs[i].key), false, durs[i].out)))
            return rc;
    if ((n = gs_y_get(m, "scanInterval")) && as->scan_interval < GS_SEC(1))
        return gs_y_error(d, n, "spec.autoscaler.scanInterval must be at least 1s, got %.40s", n->text);
    if ((n = gs_y_get(m, "expander")) && (rc = decode_expander(d, n, as)))
        return rc;
    if ((n = gs_y_get(m, "scaleDownEnabled")) && (rc = gs_y_bool(d, n, "spec.autoscaler.scaleDownEnabled",
                                                                 &as->scale_down_enabled)))
        return rc;
    const char *th[] = {"scaleDownUtilizationThreshold", "scaleDownGpuUtilizationThreshold"};
    double *tv[] = {&as->util_threshold, &as->gpu_util_threshold};
    for (int i = 0; i < 2; i++)
        if ((n = gs_y_get(m, th[i]))) {
            if ((rc = gs_y_double(d, n, gs_scn_path(p, "spec.autoscaler.%s", th[i]), tv[i])))
                return rc;
            if (*tv[i] < 0 || *tv[i] > 1)
                return gs_y_error(d, n, "spec.autoscaler.%s must be between 0 and 1, got %.40s", th[i], n->text);
        }
    int64_t v;
    if ((n = gs_y_get(m, "maxEmptyBulkDelete"))) {
        if ((rc = gs_y_int(d, n, "spec.autoscaler.maxEmptyBulkDelete", 1, 1000000, &v)))
            return rc;
        as->max_empty_bulk_delete = (int)v;
    }
    if ((n = gs_y_get(m, "priorities"))) {
        if (n->type == GS_Y_SCALAR) {
            /* The ConfigMap's data.priorities: a YAML document in a string. */
            struct gs_ynode *root;
            if ((rc = parse_string(d, m, n, &root)))
                return rc;
            n = root;
        }
        if ((rc = decode_priorities(d, n, "spec.autoscaler.priorities", as)))
            return rc;
    }
    if (as->max_backoff < as->initial_backoff)
        return gs_y_error(d, m, "spec.autoscaler.maxNodeGroupBackoffDuration is below initialNodeGroupBackoffDuration");
    for (int i = 0; i < as->nexpanders; i++)
        if (as->expanders[i] == GS_AS_PRIORITY && !as->priorities)
            return gs_y_error(d, gs_y_get(m, "expander"),
                              "the priority expander needs spec.autoscaler.priorities (the data of the "
                              "cluster-autoscaler-priority-expander ConfigMap: {<priority>: [<regex>, ...]})");
    return 0;
}

int gs_scn_autoscaling(struct gs_ydec *d, const struct gs_ynode *spec, const char *horizon_source,
                       struct gs_scenario *sc)
{
    sc->autoscaler = NULL;
    const struct gs_ynode *seq = gs_y_get(gs_y_get(spec, "cluster"), "nodePools");
    const struct gs_ynode *asn = gs_y_get(spec, "autoscaler");
    const struct gs_ynode *first = NULL;
    struct gs_world *w = &sc->world;
    for (int i = 0; seq && seq->type == GS_Y_SEQ && i < seq->n && i < w->npools && !first; i++)
        if (!gs_y_is_null(gs_y_get(seq->items[i], "autoscaling")))
            first = gs_y_get(seq->items[i], "autoscaling");
    if (!first && gs_y_is_null(asn))
        return 0;
    struct gs_autoscaler_spec *as = gs_arena_alloc(d->arena, sizeof *as);
    if (!as)
        return nomem(d, spec);
    memset(as, 0, sizeof *as);
    as->groups = gs_arena_alloc(d->arena, sizeof *as->groups * (size_t)(w->npools ? w->npools : 1));
    if (!as->groups)
        return nomem(d, spec);
    memset(as->groups, 0, sizeof *as->groups * (size_t)(w->npools ? w->npools : 1));
    /* The defaults of cluster-autoscaler 1.35.2 (config/flags/flags.go, config/const.go). */
    as->scan_interval = GS_SEC(10);
    as->nexpanders = 1;
    as->expanders[0] = GS_AS_LEAST_WASTE;
    as->expander_text = "least-waste";
    as->max_node_provision_time = GS_SEC(15 * 60);
    as->scale_down_enabled = true;
    as->util_threshold = 0.5;
    as->gpu_util_threshold = 0.5;
    as->unneeded_time = GS_SEC(10 * 60);
    as->delay_after_add = GS_SEC(10 * 60);
    as->initial_backoff = GS_SEC(5 * 60);
    as->max_backoff = GS_SEC(30 * 60);
    as->backoff_reset = GS_SEC(3 * 3600);
    as->max_empty_bulk_delete = 10;
    as->new_pod_scale_up_delay = 0;
    int rc;
    if (!gs_y_is_null(asn) && (rc = decode_spec(d, asn, as)))
        return rc;
    if (!first)
        return 0; /* spec.autoscaler alone: checked, but no node group to scale */
    if (!horizon_source)
        return gs_y_error(d, first,
                          "node pool autoscaling needs a horizon (spec.horizon or --horizon): the Cluster "
                          "Autoscaler scans every scanInterval until the run ends");
    for (int i = 0; i < seq->n && i < w->npools; i++) {
        const struct gs_ynode *m = gs_y_get(seq->items[i], "autoscaling");
        if (gs_y_is_null(m))
            continue;
        char p[GS_SCN_PATH];
        if ((rc = decode_group(d, seq->items[i], m, gs_scn_path(p, "spec.cluster.nodePools[%d].autoscaling", i),
                               w->pools[i].count, &as->groups[i])))
            return rc;
    }
    sc->autoscaler = as;
    return 0;
}
