/* gpusim: decoding the device plugin's v1 config file (sim/scenario/dpconfig.h), as
 * NVIDIA/k8s-device-plugin api/config/v1 decodes it: unknown keys are warnings, refused values
 * are errors with the plugin's message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/array.h"
#include "sim/scenario/dpconfig.h"
#include "sim/scenario/ydec_util.h"

/* "invalid device-plugin config at <path>: <the plugin's message>" */
static int refuse(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gs_y_error(d, n, "invalid device-plugin config at %s: %s", path, msg);
}

static int warn(struct gs_ydec *d, struct gs_dp_configs *w, const struct gs_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int warn(struct gs_ydec *d, struct gs_dp_configs *w, const struct gs_ynode *n, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct gs_dp_warning *arr = (struct gs_dp_warning *)w->warnings;
    char *m = gs_arena_strdup(d->arena, msg);
    if (!m || GS_ARENA_GROW(d->arena, arr, w->warnings_cap, w->nwarnings + 1))
        return gs_y_nomem(d, n);
    arr[w->nwarnings] = (struct gs_dp_warning){.file = n->file, .line = n->line, .col = n->col, .msg = m};
    w->warnings = arr;
    w->nwarnings++;
    return 0;
}

/* Warn about keys of map `m` not in `keys`; `ci`: Go struct decoding, keys match case-insensitively. */
static int check_keys(struct gs_ydec *d, struct gs_dp_configs *w, const struct gs_ynode *m, const char *path,
                      const char *const *keys, bool ci)
{
    for (int i = 0; i < m->n; i++) {
        const struct gs_ynode *k = m->pairs[i].key;
        const char *match = NULL;
        for (int j = 0; keys[j] && !match; j++)
            if (strcmp(keys[j], k->text) == 0)
                match = keys[j];
        int rc = 0;
        if (match)
            continue;
        for (int j = 0; ci && keys[j] && !match; j++)
            if (strcasecmp(keys[j], k->text) == 0)
                match = keys[j];
        if (match) {
            rc = warn(d, w, k, "key '%s' in %s is read as '%s' (the device plugin matches it case-insensitively)",
                      k->text, path, match);
        } else {
            const char *near = gs_y_suggest(k->text, keys);
            if (near)
                rc = warn(d, w, k, "unknown key '%s' in %s: ignored by the device plugin (did you mean '%s'?)", k->text,
                          path, near);
            else
                rc = warn(d, w, k, "unknown key '%s' in %s: ignored by the device plugin", k->text, path);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* The value of `key` (the last match, as encoding/json keeps the last duplicate). */
static const struct gs_ynode *get(const struct gs_ynode *m, const char *key, bool ci)
{
    const struct gs_ynode *v = NULL;
    for (int i = 0; m && m->type == GS_Y_MAP && i < m->n; i++)
        if (ci ? strcasecmp(m->pairs[i].key->text, key) == 0 : strcmp(m->pairs[i].key->text, key) == 0)
            v = m->pairs[i].value;
    return v;
}

static const char *json_type(const struct gs_ynode *n)
{
    if (!n || gs_y_is_null(n))
        return "null";
    if (n->type == GS_Y_MAP)
        return "object";
    if (n->type == GS_Y_SEQ)
        return "array";
    return n->plain ? "number" : "string";
}

static bool is_int_text(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static int dp_bool(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N", NULL};
    if (n && n->type == GS_Y_SCALAR && n->plain) {
        for (int i = 0; yes[i]; i++)
            if (strcmp(n->text, yes[i]) == 0)
                return *out = true, 0;
        for (int i = 0; no[i]; i++)
            if (strcmp(n->text, no[i]) == 0)
                return *out = false, 0;
    }
    if (gs_y_is_null(n)) /* null leaves a Go bool unchanged */
        return 0;
    const char *t = json_type(n);
    if (n->type == GS_Y_SCALAR && n->plain && !is_int_text(n->text))
        t = "string";
    return refuse(d, n, path, "json: cannot unmarshal %s into Go value of type bool", t);
}

static int dp_string(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char **out)
{
    if (n && n->type == GS_Y_SCALAR && !(n->plain && (is_int_text(n->text) || strcmp(n->text, "true") == 0 ||
                                                       strcmp(n->text, "false") == 0))) {
        *out = n->text;
        return 0;
    }
    const char *t = json_type(n);
    if (n && n->type == GS_Y_SCALAR && !is_int_text(n->text))
        t = "bool";
    return refuse(d, n, path, "json: cannot unmarshal %s into Go value of type string", t);
}

static int dp_int(struct gs_ydec *d, const struct gs_ynode *n, const char *path, int64_t *out)
{
    if (n && n->type == GS_Y_SCALAR && n->plain && is_int_text(n->text)) {
        long long v = strtoll(n->text, NULL, 10);
        if (v > 1000000 || v < -1000000)
            return refuse(d, n, path, "value %s is out of range", n->text);
        *out = v;
        return 0;
    }
    const char *t = json_type(n);
    if (n && n->type == GS_Y_SCALAR && n->plain)
        t = strchr(n->text, '.') ? "number" : "string";
    if (t[0] == 'n' && t[1] == 'u')
        return refuse(d, n, path, "json: cannot unmarshal number %s into Go value of type int", n->text);
    return refuse(d, n, path, "json: cannot unmarshal %s into Go value of type int", t);
}

/* api/config/v1 NewResourceName: prefix "nvidia.com/", at most 63 characters, the part after the
 * prefix a DNS-1123 subdomain. */
static int resource_name(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char **out)
{
    const char *raw;
    int rc = dp_string(d, n, path, &raw);
    if (rc)
        return rc;
    char *full = strncmp(raw, "nvidia.com/", 11) == 0 ? gs_arena_strdup(d->arena, raw)
                                                      : gs_arena_printf(d->arena, "nvidia.com/%s", raw);
    if (!full)
        return gs_y_nomem(d, n);
    if (strlen(full) > 63)
        return refuse(d, n, path, "fully-qualified resource name must be 63 characters or less: %s", full);
    const char *name = strchr(full, '/');
    name = name ? name + 1 : full;
    size_t len = strlen(name);
    bool ok = len > 0 && len <= 253;
    for (size_t i = 0; ok && i < len; i++) {
        char c = name[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !(c == '-' || c == '.'))
            ok = false;
        if ((i == 0 || i == len - 1 || name[i - 1] == '.' || name[i + 1] == '.') && !alnum)
            ok = false;
    }
    if (!ok)
        return refuse(d, n, path,
                      "incorrect format for resource name '%s': [a lowercase RFC 1123 subdomain must consist of lower "
                      "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                      "(e.g. 'example.com', regex used for validation is "
                      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]",
                      full);
    *out = full;
    return 0;
}

/* ReplicatedDevices: "all", a count > 0, or a list of GPU indices, MIG indices ("0:1") or UUIDs. */
static int devices(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_dp_resource *r)
{
    if (n->type == GS_Y_SCALAR && !(n->plain && is_int_text(n->text))) {
        if (strcmp(n->text, "all") != 0)
            return refuse(d, n, path, "devices set as '%s' but the only valid string input is 'all'", n->text);
        r->devices = GS_DP_DEVICES_ALL;
        return 0;
    }
    if (n->type == GS_Y_SCALAR) {
        long long v = strtoll(n->text, NULL, 10);
        if (v <= 0 || v > 1000000)
            return refuse(d, n, path, "devices set as '%s' but a count of devices must be > 0", n->text);
        r->devices = GS_DP_DEVICES_COUNT;
        r->count = (int)v;
        return 0;
    }
    if (n->type != GS_Y_SEQ)
        return refuse(d, n, path, "unrecognized type for devices spec: an object");
    const char **list = gs_arena_alloc(d->arena, sizeof *list * (size_t)(n->n ? n->n : 1));
    if (!list)
        return gs_y_nomem(d, n);
    for (int i = 0; i < n->n; i++) {
        const struct gs_ynode *it = n->items[i];
        const char *s = it->type == GS_Y_SCALAR ? it->text : "";
        bool ok = it->type == GS_Y_SCALAR && is_int_text(s) && s[0] != '-';
        if (!ok && it->type == GS_Y_SCALAR) {
            const char *colon = strchr(s, ':');
            char a[32];
            ok = colon && (size_t)(colon - s) < sizeof a && is_int_text(colon + 1) && colon[1] != '-' &&
                 (snprintf(a, sizeof a, "%.*s", (int)(colon - s), s), is_int_text(a) && a[0] != '-');
            ok = ok || (strncmp(s, "GPU-", 4) == 0 && strlen(s) == 40) || strncmp(s, "MIG-", 4) == 0;
        }
        if (!ok)
            return refuse(d, it, path, "unsupported type for device in devices list: %s, string", s);
        list[i] = s;
    }
    r->devices = GS_DP_DEVICES_LIST;
    r->list = list;
    r->nlist = n->n;
    return 0;
}

static int resource(struct gs_ydec *d, struct gs_dp_configs *w, const struct gs_ynode *n, const char *path,
                    struct gs_dp_resource *r)
{
    static const char *const keys[] = {"name", "rename", "devices", "replicas", NULL};
    if (!n || n->type != GS_Y_MAP)
        return refuse(d, n, path, "json: cannot unmarshal %s into Go value of type map[string]json.RawMessage",
                      json_type(n));
    int rc = check_keys(d, w, n, path, keys, false);
    if (rc)
        return rc;
    memset(r, 0, sizeof *r);
    char p[GS_YPATH_MAX];
    const struct gs_ynode *v = get(n, "name", false);
    if (!v)
        return refuse(d, n, path, "no resource name specified");
    if ((rc = resource_name(d, v, gs_ypath(p, "%s.name", path), &r->name)))
        return rc;
    if ((v = get(n, "devices", false)) && (rc = devices(d, v, gs_ypath(p, "%s.devices", path), r)))
        return rc;
    if (!(v = get(n, "replicas", false)))
        return refuse(d, n, path, "no replicas specified");
    int64_t reps = 0;
    if ((rc = dp_int(d, v, gs_ypath(p, "%s.replicas", path), &reps)))
        return rc;
    if (reps < 2)
        return refuse(d, v, p, "number of replicas must be >= 2");
    r->replicas = (int)reps;
    if ((v = get(n, "rename", false)) && (rc = resource_name(d, v, gs_ypath(p, "%s.rename", path), &r->rename)))
        return rc;
    return 0;
}

/* sharing.timeSlicing or sharing.mps (ReplicatedResources). */
struct replicated {
    bool given, rename_by_default, fail_gt1, fail_gt1_given;
    struct gs_dp_resource *res;
    int n;
};

static int replicated(struct gs_ydec *d, struct gs_dp_configs *w, const struct gs_ynode *n, const char *path,
                      struct replicated *out)
{
    static const char *const keys[] = {"renameByDefault", "failRequestsGreaterThanOne", "resources", NULL};
    memset(out, 0, sizeof *out);
    if (gs_y_is_null(n))
        return 0;
    if (n->type != GS_Y_MAP)
        return refuse(d, n, path, "json: cannot unmarshal %s into Go value of type map[string]json.RawMessage",
                      json_type(n));
    out->given = true;
    int rc = check_keys(d, w, n, path, keys, false);
    if (rc)
        return rc;
    char p[GS_YPATH_MAX];
    const struct gs_ynode *v;
    if ((v = get(n, "renameByDefault", false)) &&
        (rc = dp_bool(d, v, gs_ypath(p, "%s.renameByDefault", path), &out->rename_by_default)))
        return rc;
    if ((v = get(n, "failRequestsGreaterThanOne", false))) {
        if ((rc = dp_bool(d, v, gs_ypath(p, "%s.failRequestsGreaterThanOne", path), &out->fail_gt1)))
            return rc;
        out->fail_gt1_given = !gs_y_is_null(v);
    }
    v = get(n, "resources", false);
    if (!v || gs_y_is_null(v) || (v->type == GS_Y_SEQ && v->n == 0))
        return refuse(d, v ? v : n, path, "no resources specified");
    if (v->type != GS_Y_SEQ)
        return refuse(d, v, path, "json: cannot unmarshal %s into Go value of type []v1.ReplicatedResource",
                      json_type(v));
    out->res = gs_arena_alloc(d->arena, sizeof *out->res * (size_t)v->n);
    if (!out->res)
        return gs_y_nomem(d, v);
    for (int i = 0; i < v->n; i++) {
        if ((rc = resource(d, w, v->items[i], gs_ypath(p, "%s.resources[%d]", path, i), &out->res[i])))
            return rc;
        if (out->rename_by_default && !out->res[i].rename) {
            out->res[i].rename = gs_arena_printf(d->arena, "%s.shared", out->res[i].name);
            if (!out->res[i].rename)
                return gs_y_nomem(d, v);
        }
    }
    out->n = v->n;
    return 0;
}

static const char *const top_keys[] = {"version", "flags", "resources", "sharing", "imex", "health", NULL};
static const char *const flag_keys[] = {
    "migStrategy", "failOnInitError", "restartOnDeviceUnhealthy", "mpsRoot", "nvidiaDriverRoot", "nvidiaDevRoot",
    "gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI", "deviceDiscoveryStrategy",
    "resourceNamePrefix", "plugin", "gfd", NULL};
static const char *const plugin_keys[] = {"passDeviceSpecs",    "deviceListStrategy", "deviceIDStrategy",
                                          "cdiAnnotationPrefix", "nvidiaCDIHookPath", "nvidiaCTKPath",
                                          "containerDriverRoot", "driverRootCtrPath", "kubeletSocket",
                                          "cdiFeatureFlags",     NULL};
static const char *const gfd_keys[] = {"oneshot", "noTimestamp", "sleepInterval", "outputFile", "machineTypeFile", NULL};
static const char *const sharing_keys[] = {"timeSlicing", "mps", NULL};
static const char *const imex_keys[] = {"channelIDs", "required", NULL};

static int flags(struct gs_ydec *d, struct gs_dp_configs *w, const struct gs_ynode *n, const char *path,
                 int mig_override, struct gs_dp_config *c)
{
    if (n->type != GS_Y_MAP)
        return refuse(d, n, path, "json: cannot unmarshal %s into Go value of type v1.Flags", json_type(n));
    int rc = check_keys(d, w, n, path, flag_keys, true);
    if (rc)
        return rc;
    char p[GS_YPATH_MAX];
    const struct gs_ynode *v;
    if ((v = get(n, "migStrategy", true)) && !gs_y_is_null(v)) {
        const char *s;
        if ((rc = dp_string(d, v, gs_ypath(p, "%s.migStrategy", path), &s)))
            return rc;
        static const char *const names[] = {"none", "single", "mixed"};
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(s, names[i]) == 0)
                k = i;
        if (k < 0 && mig_override < 0)
            return refuse(d, v, p, "unknown MIG strategy: %s", s);
        c->mig_strategy_given = true;
        if (mig_override < 0)
            c->mig_strategy = (enum gs_mig_strategy)k;
        else if (k != mig_override &&
                 (rc = warn(d, w, v,
                            "%s '%s' is overridden by the deployment's MIG strategy '%s' (environment MIG_STRATEGY "
                            "takes precedence over the config file)",
                            p, s, gs_mig_strategy_name((enum gs_mig_strategy)mig_override))))
            return rc;
    }
    if ((v = get(n, "failOnInitError", true)) && (rc = dp_bool(d, v, gs_ypath(p, "%s.failOnInitError", path),
                                                               &c->fail_on_init_error)))
        return rc;
    const struct gs_ynode *pl = get(n, "plugin", true);
    if (pl && pl->type == GS_Y_MAP) {
        if ((rc = check_keys(d, w, pl, gs_ypath(p, "%s.plugin", path), plugin_keys, true)))
            return rc;
        if ((v = get(pl, "deviceIDStrategy", true)) && !gs_y_is_null(v)) {
            const char *s;
            char ip[GS_YPATH_MAX];
            if ((rc = dp_string(d, v, gs_ypath(ip, "%s.deviceIDStrategy", p), &s)))
                return rc;
            if (strcmp(s, "uuid") != 0 && strcmp(s, "index") != 0)
                return refuse(d, v, ip, "invalid --device-id-strategy option: %s", s);
        }
    }
    const struct gs_ynode *g = get(n, "gfd", true);
    if (g && g->type == GS_Y_MAP && (rc = check_keys(d, w, g, gs_ypath(p, "%s.gfd", path), gfd_keys, true)))
        return rc;
    return 0;
}

int gs_scn_dpconfig(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *name, int mig_override,
                    struct gs_dp_config *out, struct gs_dp_configs *w)
{
    gs_dp_config_default(out, mig_override >= 0 ? (enum gs_mig_strategy)mig_override : GS_MIG_NONE);
    out->name = name ? name : "";
    if (!n || n->type != GS_Y_MAP)
        return refuse(d, n, path, "unmarshal error: json: cannot unmarshal %s into Go value of type v1.Config",
                      json_type(n));
    int rc = check_keys(d, w, n, path, top_keys, true);
    if (rc)
        return rc;
    char p[GS_YPATH_MAX];
    const struct gs_ynode *v;
    if ((v = get(n, "version", true)) && !gs_y_is_null(v)) {
        const char *s;
        if ((rc = dp_string(d, v, gs_ypath(p, "%s.version", path), &s)))
            return rc;
        if (*s && strcmp(s, "v1") != 0)
            return refuse(d, v, p, "unknown version: %s", s);
    }
    if ((v = get(n, "flags", true)) && !gs_y_is_null(v) &&
        (rc = flags(d, w, v, gs_ypath(p, "%s.flags", path), mig_override, out)))
        return rc;
    if ((v = get(n, "resources", true)) && !gs_y_is_null(v) &&
        (rc = warn(d, w, v, "%s.resources: customizing the 'resources' field is not yet supported in the config; "
                            "ignored by the device plugin", path)))
        return rc;
    if ((v = get(n, "imex", true)) && v->type == GS_Y_MAP &&
        (rc = check_keys(d, w, v, gs_ypath(p, "%s.imex", path), imex_keys, true)))
        return rc;
    const struct gs_ynode *sh = get(n, "sharing", true);
    if (!sh || gs_y_is_null(sh))
        return 0;
    gs_ypath(p, "%s.sharing", path);
    if (sh->type != GS_Y_MAP)
        return refuse(d, sh, p, "json: cannot unmarshal %s into Go value of type v1.Sharing", json_type(sh));
    if ((rc = check_keys(d, w, sh, p, sharing_keys, true)))
        return rc;
    struct replicated ts, mps;
    char sp[GS_YPATH_MAX];
    if ((rc = replicated(d, w, get(sh, "timeSlicing", true), gs_ypath(sp, "%s.timeSlicing", p), &ts)) ||
        (rc = replicated(d, w, get(sh, "mps", true), gs_ypath(sp, "%s.mps", p), &mps)))
        return rc;
    /* Sharing.SharingStrategy(): MPS when it has resources, else time-slicing. */
    const struct replicated *act = NULL;
    if (mps.n > 0) {
        act = &mps;
        out->sharing = GS_SHARING_MPS;
        if (ts.n > 0 && (rc = warn(d, w, get(sh, "timeSlicing", true),
                                   "%s.timeSlicing is ignored: sharing.mps takes precedence in the device plugin", p)))
            return rc;
        /* NewConfig: MPS keeps failing requests > 1 unless explicitly relaxed (PR #1762). */
        out->fail_requests_greater_than_one = mps.fail_gt1_given ? mps.fail_gt1 : true;
    } else if (ts.n > 0) {
        act = &ts;
        out->sharing = GS_SHARING_TIME_SLICING;
        out->fail_requests_greater_than_one = ts.fail_gt1;
    }
    if (act) {
        out->rename_by_default = act->rename_by_default;
        out->resources = act->res;
        out->nresources = act->n;
    }
    if (out->sharing == GS_SHARING_MPS && out->mig_strategy == GS_MIG_MIXED)
        return refuse(d, get(sh, "mps", true), p, "using --mig-strategy=mixed is not supported with MPS");
    return 0;
}

/* A data value: a mapping, or a string holding the YAML document. */
static int doc_node(struct gs_ydec *d, const struct gs_ynode *v, const char *path, const struct gs_ynode **out)
{
    if (v && v->type == GS_Y_SCALAR && !v->plain) {
        struct gs_ynode *root;
        int rc = gs_yaml_load_fragment(v->file, v->text, v->line, v->col, d->arena, &root, d->err);
        if (rc)
            return rc;
        *out = root;
        return 0;
    }
    if (!v || v->type != GS_Y_MAP)
        return gs_y_error(d, v, "%s: expected a device-plugin config (a mapping, or a string holding one)", path);
    *out = v;
    return 0;
}

int gs_scn_dpconfigs(struct gs_ydec *d, const struct gs_ynode *n, const char *path, int mig_override,
                     struct gs_dp_configs *out)
{
    memset(out, 0, sizeof *out);
    int rc = gs_y_want_map(d, n, path);
    if (rc)
        return rc;
    const struct gs_ynode *data = gs_y_get(n, "data");
    struct gs_dp_config *cfgs;
    if (!data) {
        if (!(cfgs = gs_arena_alloc(d->arena, sizeof *cfgs)))
            return gs_y_nomem(d, n);
        if ((rc = gs_scn_dpconfig(d, n, path, "", mig_override, cfgs, out)))
            return rc;
        out->configs = cfgs;
        out->n = 1;
        return 0;
    }
    static const char *const keys[] = {"name", "create", "default", "data", NULL};
    if ((rc = gs_y_check_map(d, n, path, keys, NULL, NULL)))
        return rc;
    char p[GS_YPATH_MAX];
    if ((rc = gs_y_want_map(d, data, gs_ypath(p, "%s.data", path))))
        return rc;
    if (data->n == 0)
        return gs_y_error(d, data, "%s is empty: give at least one named config", p);
    if (!(cfgs = gs_arena_alloc(d->arena, sizeof *cfgs * (size_t)data->n)))
        return gs_y_nomem(d, data);
    out->named = true;
    for (int i = 0; i < data->n; i++) {
        const struct gs_ynode *doc = NULL;
        char ip[GS_YPATH_MAX];
        gs_ypath(ip, "%s.data.%s", path, data->pairs[i].key->text);
        if ((rc = doc_node(d, data->pairs[i].value, ip, &doc)) ||
            (rc = gs_scn_dpconfig(d, doc, ip, data->pairs[i].key->text, mig_override, &cfgs[i], out)))
            return rc;
    }
    out->configs = cfgs;
    out->n = data->n;
    const struct gs_ynode *def = gs_y_get(n, "default");
    if (def && !gs_y_is_null(def)) {
        if ((rc = gs_y_str(d, def, gs_ypath(p, "%s.default", path), &out->default_name)))
            return rc;
        bool found = false;
        for (int i = 0; i < out->n; i++)
            found |= strcmp(cfgs[i].name, out->default_name) == 0;
        if (!found)
            return gs_y_error(d, def, "%s: default config '%s' is not in %s.data", p, out->default_name, path);
    }
    return 0;
}
