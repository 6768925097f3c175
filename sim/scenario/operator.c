/* gpusim: spec.versions, spec.catalog and spec.operator (decode.h) -> sc->gpu_operator_version,
 * sc->catalog and sc->op (struct gs_operator_config, bringup.h).
 *
 * spec.operator is the GPU Operator's ClusterPolicy (OP api/nvidia/v1/clusterpolicy_types.go,
 * chart deployments/gpu-operator/values.yaml) reduced to what the bring-up model uses, plus
 * gpusim's own keys: timings, precompiledKernels, availableHeaders, managedBy. Defaults are
 * gs_operator_config_defaults (the chart's) with these choices:
 *   - timings: the catalog's `default` profile;
 *   - availableHeaders absent: every kernel has headers (all_headers); [] means none has;
 *   - precompiledKernels absent: no precompiled image exists;
 *   - daemonsets.tolerations / nfd.worker.tolerations absent: the chart defaults (has_* false);
 *     given, they replace the chart's list as a Helm value does;
 *   - devicePlugin.env DP_DISABLE_HEALTHCHECKS / DP_ENABLE_HEALTHCHECKS set the Xid policy as the
 *     plugin parses them (DP internal/rm/health.go); other variables are accepted and have no
 *     effect (the plugin's other switches do not change what the scheduler sees).
 * Image coordinates (repository, image, imagePullPolicy, imagePullSecrets, resources) are
 * accepted everywhere and have no effect: gpusim does not model images. Real ClusterPolicy keys
 * whose behaviour a later release models are "not supported yet" with their path:
 * driver.upgradePolicy (use the driverUpgrade event), and the rest listed below. draDriver (the
 * NVIDIA DRA driver chart's values) is decoded by sim/scenario/dra.c.
 * devicePlugin.config is the plugin's v1 file or the chart's named form (sim/scenario/dpconfig.c;
 * unknown keys inside it are warnings in sc->dp.warnings), mig.strategy none|single|mixed,
 * migManager.config any name (a missing one fails at run time, as mig-manager does) and
 * migManager.configFile a mig-parted file (sim/migparted.c).
 *
 * managedBy helm is the standalone k8s-device-plugin chart (DP deployments/helm/
 * nvidia-device-plugin, release "nvidia-device-plugin", spec.versions.k8s-device-plugin
 * v0.19.1): its defaults are gfd.enabled false, devicePlugin.enabled true, and the bundled NFD
 * deployed when nfd.enabled is true or, unset, when gfd.enabled is (the dependency condition
 * `nfd.enabled,gfd.enabled`); driver and toolkit come with the node image, so the GPU
 * Operator-only sections (driver, toolkit, dcgmExporter, migManager, validator,
 * precompiledKernels, availableHeaders) are errors there. daemonsets.tolerations stands for the
 * chart's top-level `tolerations`.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim/scenario/catalog_yaml.h"
#include "sim/scenario/mig_yaml.h"
#include "sim/scenario/dpconfig.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0,
                        "out of memory");
}

/* The GPU Operator releases whose behaviour gpusim models (the first is the default). */
static const char *const operator_versions[] = {"v25.3.0", "v23.9.2", "v1.5.2", NULL};

/* Accepted and without effect on the simulation (images are not modelled). */
#define GS_IMAGE_KEYS "repository", "image", "imagePullPolicy", "imagePullSecrets", "resources"

/* ------------------------------------------------------------------ spec.versions */

int gs_scn_versions(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc)
{
    sc->gpu_operator_version = operator_versions[0];
    if (!map || gs_y_is_null(map))
        return 0;
    int rc = gs_y_want_map(d, map, "spec.versions");
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    for (int i = 0; i < map->n; i++) {
        const struct gs_ynode *k = map->pairs[i].key, *v = map->pairs[i].value;
        gs_scn_path(p, "spec.versions.%s", k->text);
        if (strcmp(k->text, "kueue") == 0) {
            if ((rc = gs_scn_kueue_version(d, v, p, sc)))
                return rc;
            continue;
        }
        if (strcmp(k->text, "dra-driver-nvidia-gpu") == 0) {
            if ((rc = gs_scn_dra_version(d, v, p, sc)))
                return rc;
            continue;
        }
        bool dp = strcmp(k->text, "k8s-device-plugin") == 0;
        if (strcmp(k->text, "gpu-operator") != 0 && !dp)
            return gs_y_unsupported(d, k, p);
        const char *ver;
        if ((rc = gs_y_str(d, v, p, &ver)))
            return rc;
        if (dp) {
            /* The k8s-device-plugin chart release whose defaults managedBy helm models. */
            if (strcmp(ver, "v0.19.1") != 0) {
                char what[GS_SCN_PATH];
                gs_scn_path(what, "%s: %.40s (gpusim models v0.19.1)", p, ver);
                return gs_y_unsupported(d, v, what);
            }
            sc->device_plugin_version = "v0.19.1";
            continue;
        }
        int found = -1;
        for (int j = 0; operator_versions[j]; j++)
            if (strcmp(ver, operator_versions[j]) == 0)
                found = j;
        if (found < 0) {
            char what[GS_SCN_PATH];
            gs_scn_path(what, "%s: %.40s (gpusim models v25.3.0, v23.9.2 and v1.5.2)", p, ver);
            return gs_y_unsupported(d, v, what);
        }
        sc->gpu_operator_version = operator_versions[found];
    }
    return 0;
}

/* ------------------------------------------------------------------ spec.catalog */

static int build_failures(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, struct gs_scenario *sc)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc || seq->n == 0)
        return rc;
    struct gs_build_failure *bf = gs_arena_alloc(d->arena, sizeof *bf * (size_t)seq->n);
    if (!bf)
        return nomem(d, seq);
    static const char *const keys[] = {"kernelAtLeast", "driverBelow", "message", NULL};
    static const char *const req[] = {"kernelAtLeast", NULL};
    char p[GS_SCN_PATH], kp[GS_SCN_PATH];
    for (int i = 0; i < seq->n; i++) {
        const struct gs_ynode *m = seq->items[i], *v;
        gs_scn_path(p, "%s[%d]", path, i);
        if ((rc = gs_y_check_map(d, m, p, keys, NULL, req)) ||
            (rc = gs_y_str(d, gs_y_get(m, "kernelAtLeast"), gs_scn_path(kp, "%s.kernelAtLeast", p),
                           &bf[i].kernel_at_least)))
            return rc;
        if ((v = gs_y_get(m, "driverBelow")) && !gs_y_is_null(v) &&
            (rc = gs_y_str(d, v, gs_scn_path(kp, "%s.driverBelow", p), &bf[i].driver_below)))
            return rc;
        if ((v = gs_y_get(m, "message")) && !gs_y_is_null(v) &&
            (rc = gs_y_str(d, v, gs_scn_path(kp, "%s.message", p), &bf[i].message)))
            return rc;
    }
    sc->op.build_failures = bf;
    sc->op.nbuild_failures = seq->n;
    return 0;
}

int gs_scn_catalog(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc)
{
    static const char *const keys[] = {"gpus", "timingProfiles", "driverBuildFailures", NULL};
    int rc = gs_y_check_map(d, map, "spec.catalog", keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *v;
    if ((v = gs_y_get(map, "gpus")) && !gs_y_is_null(v) &&
        (rc = gs_catalog_decode_gpus(d, v, "spec.catalog.gpus", true, &sc->catalog)))
        return rc;
    if ((v = gs_y_get(map, "timingProfiles")) && !gs_y_is_null(v) &&
        (rc = gs_catalog_decode_profiles(d, v, "spec.catalog.timingProfiles", false, &sc->catalog)))
        return rc;
    if ((v = gs_y_get(map, "driverBuildFailures")) && !gs_y_is_null(v) &&
        (rc = build_failures(d, v, "spec.catalog.driverBuildFailures", sc)))
        return rc;
    return 0;
}

/* ------------------------------------------------------------------ spec.operator */

/* `enabled` of a section, when present. */
static int enabled(struct gs_ydec *d, const struct gs_ynode *m, const char *path, bool *out)
{
    const struct gs_ynode *v = gs_y_get(m, "enabled");
    if (!v)
        return 0;
    char p[GS_SCN_PATH];
    return gs_y_bool(d, v, gs_scn_path(p, "%s.enabled", path), out);
}

/* An operand section {enabled, image keys} plus `extra` known keys and `later` unsupported ones. */
static int section(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const char *const *extra,
                   const char *const *later, bool *on)
{
    const char *keys[24];
    int n = 0;
    static const char *const base[] = {"enabled", GS_IMAGE_KEYS, NULL};
    for (int i = 0; base[i]; i++)
        keys[n++] = base[i];
    for (int i = 0; extra && extra[i] && n < 23; i++)
        keys[n++] = extra[i];
    keys[n] = NULL;
    int rc = gs_y_check_map(d, m, path, keys, later, NULL);
    if (rc)
        return rc;
    return enabled(d, m, path, on);
}

/* A list of kernel names (precompiledKernels, availableHeaders, hostDriver.kernels). */
static int kernels(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, const char *const **out,
                   int *nout)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc)
        return rc;
    *out = NULL;
    *nout = 0;
    if (seq->n == 0)
        return 0;
    const char **k = gs_arena_alloc(d->arena, sizeof *k * (size_t)seq->n);
    if (!k)
        return nomem(d, seq);
    char p[GS_SCN_PATH];
    for (int i = 0; i < seq->n; i++)
        if ((rc = gs_y_str(d, seq->items[i], gs_scn_path(p, "%s[%d]", path, i), &k[i])))
            return rc;
    *out = k;
    *nout = seq->n;
    return 0;
}

int gs_scn_kernels(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, const char *const **out,
                   int *nout)
{
    return kernels(d, seq, path, out, nout);
}

/* One env entry {name, value}; *value NULL when absent. */
static int env_entry(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const char **name,
                     const char **value)
{
    static const char *const keys[] = {"name", "value", NULL};
    static const char *const later[] = {"valueFrom", NULL};
    static const char *const req[] = {"name", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, later, req);
    if (rc || (rc = gs_y_kstr(d, gs_y_get(m, "name"), gs_scn_path(p, "%s.name", path), name)))
        return rc;
    *value = NULL;
    const struct gs_ynode *v = gs_y_get(m, "value");
    if (v && !gs_y_is_null(v) && (rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.value", path), value)))
        return rc;
    return 0;
}

/* The device plugin reads its Xid lists as comma-separated numbers or all/xids; an entry it
 * would skip with "Ignoring malformed Xid value" is an error here, so a typo does not pass. */
static int xid_list(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *name,
                    const char *value)
{
    const char *p = value;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *s = p, *e = p + len;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        size_t l = (size_t)(e - s);
        bool digits = l > 0 && l <= 19;
        for (size_t i = 0; i < l && digits; i++)
            digits = s[i] >= '0' && s[i] <= '9';
        bool word = (l == 3 && strncasecmp(s, "all", 3) == 0) || (l == 4 && strncasecmp(s, "xids", 4) == 0);
        if (l > 0 && !digits && !word)
            return gs_y_error(d, n,
                              "invalid Xid '%.*s' in %s at %s: expected all, xids or comma-separated Xid numbers "
                              "such as \"94,79\" (the device plugin would ignore it)",
                              (int)(l > 40 ? 40 : l), s, name, path);
        p = comma ? comma + 1 : p + len;
    }
    return 0;
}

static int device_plugin(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_operator_config *op)
{
    /* `config` is decoded by gs_scn_operator once mig.strategy is known. */
    static const char *const extra[] = {"env", "config", NULL};
    static const char *const later[] = {"args", "mps", NULL};
    int rc = section(d, m, path, extra, later, &op->device_plugin_enabled);
    if (rc)
        return rc;
    const struct gs_ynode *env = gs_y_get(m, "env");
    if (!env || gs_y_is_null(env))
        return 0;
    char p[GS_SCN_PATH], ep[GS_SCN_PATH];
    gs_scn_path(p, "%s.env", path);
    if ((rc = gs_y_want_seq(d, env, p)))
        return rc;
    const char *disable = NULL, *enable = NULL;
    for (int i = 0; i < env->n; i++) {
        const char *name, *value;
        gs_scn_path(ep, "%s[%d]", p, i);
        if ((rc = env_entry(d, env->items[i], ep, &name, &value)))
            return rc;
        bool dis = strcmp(name, "DP_DISABLE_HEALTHCHECKS") == 0, en = strcmp(name, "DP_ENABLE_HEALTHCHECKS") == 0;
        if (!dis && !en)
            continue;
        const struct gs_ynode *vn = gs_y_get(env->items[i], "value");
        char vp[GS_SCN_PATH];
        gs_scn_path(vp, "%s.value", ep);
        /* The last entry of a name wins, as for a container's env. */
        if (value && (rc = xid_list(d, vn, vp, name, value)))
            return rc;
        if (dis)
            disable = value;
        else
            enable = value;
    }
    /* The plugin lower-cases both lists (strings.ToLower) before parsing them. */
    char *dl = disable ? gs_arena_strdup(d->arena, disable) : NULL;
    char *el = enable ? gs_arena_strdup(d->arena, enable) : NULL;
    if ((disable && !dl) || (enable && !el))
        return nomem(d, env);
    for (char *c = dl; c && *c; c++)
        *c = (char)tolower((unsigned char)*c);
    for (char *c = el; c && *c; c++)
        *c = (char)tolower((unsigned char)*c);
    if (gs_xid_policy_parse(&op->xid, dl, el))
        return gs_y_error(d, env, "invalid Xid list in %s", p);
    return 0;
}

static int mig_manager(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_scenario *sc)
{
    struct gs_operator_config *op = &sc->op;
    static const char *const extra[] = {"config", "configFile", NULL};
    static const char *const later[] = {"env", "gpuClientsConfig", NULL};
    int rc = section(d, m, path, extra, later, &op->mig_manager_enabled);
    if (rc)
        return rc;
    char fp[GS_SCN_PATH];
    const struct gs_ynode *file = gs_y_get(m, "configFile");
    /* A mig-parted config file replaces the operator's default-mig-parted-config. */
    if (file && !gs_y_is_null(file) &&
        (rc = gs_migparted_decode(d, file, gs_scn_path(fp, "%s.configFile", path), &sc->migparted)))
        return rc;
    const struct gs_ynode *c = gs_y_get(m, "config");
    if (!c || gs_y_is_null(c))
        return 0;
    char p[GS_SCN_PATH], vp[GS_SCN_PATH];
    gs_scn_path(p, "%s.config", path);
    /* `config: all-disabled` (SCENARIO.md) or the chart's {name, default} shape. */
    const struct gs_ynode *v = c;
    if (c->type == GS_Y_MAP) {
        static const char *const keys[] = {"default", "create", NULL};
        static const char *const later2[] = {"name", "data", NULL};
        if ((rc = gs_y_check_map(d, c, p, keys, later2, NULL)))
            return rc;
        if (gs_y_get(c, "create")) {
            bool create;
            if ((rc = gs_y_bool(d, gs_y_get(c, "create"), gs_scn_path(vp, "%s.create", p), &create)))
                return rc;
        }
        v = gs_y_get(c, "default");
        if (!v || gs_y_is_null(v))
            return 0;
        gs_scn_path(p, "%s.config.default", path);
    }
    const char *name;
    if ((rc = gs_y_str(d, v, p, &name)))
        return rc;
    /* A name missing from the mig-parted configs is not refused here: mig-manager sets
     * nvidia.com/mig.config.state=failed at run time, as the real one does. */
    (void)vp;
    op->mig_config_default = name;
    return 0;
}

static int validator(struct gs_ydec *d, const struct gs_ynode *m, const char *path)
{
    static const char *const keys[] = {"env", "plugin", "cuda", "driver", "toolkit", "vfioPCI", GS_IMAGE_KEYS, NULL};
    static const char *const later[] = {"args", NULL};
    int rc = gs_y_check_map(d, m, path, keys, later, NULL);
    if (rc)
        return rc;
    static const char *const comps[] = {"", "plugin", "cuda", "driver", "toolkit", "vfioPCI", NULL};
    char cp[GS_SCN_PATH], p[GS_SCN_PATH], ep[GS_SCN_PATH];
    for (int c = 0; comps[c]; c++) {
        const struct gs_ynode *sec = m;
        if (c > 0) {
            sec = gs_y_get(m, comps[c]);
            if (!sec || gs_y_is_null(sec))
                continue;
            static const char *const ckeys[] = {"env", NULL};
            gs_scn_path(cp, "%s.%s", path, comps[c]);
            if ((rc = gs_y_check_map(d, sec, cp, ckeys, NULL, NULL)))
                return rc;
        } else {
            gs_scn_path(cp, "%s", path);
        }
        const struct gs_ynode *env = gs_y_get(sec, "env");
        if (!env || gs_y_is_null(env))
            continue;
        gs_scn_path(p, "%s.env", cp);
        if ((rc = gs_y_want_seq(d, env, p)))
            return rc;
        for (int i = 0; i < env->n; i++) {
            const char *name, *value;
            if ((rc = env_entry(d, env->items[i], gs_scn_path(ep, "%s[%d]", p, i), &name, &value)))
                return rc;
            /* plugin validation with a workload pod (validator main.go WITH_WORKLOAD): its GPU pod
             * is not modelled; the chart default "false" is. */
            if (strcmp(comps[c], "plugin") == 0 && strcmp(name, "WITH_WORKLOAD") == 0 && value &&
                strcmp(value, "false") != 0) {
                char what[GS_SCN_PATH];
                gs_scn_path(what, "%s[%d]: WITH_WORKLOAD=%.20s", p, i, value);
                return gs_y_unsupported(d, env->items[i], what);
            }
        }
    }
    return 0;
}

static int nfd(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_operator_config *op)
{
    static const char *const keys[] = {"enabled", "worker", NULL};
    static const char *const later[] = {"nodefeaturerules", NULL};
    int rc = gs_y_check_map(d, m, path, keys, later, NULL);
    if (rc || (rc = enabled(d, m, path, &op->nfd_enabled)))
        return rc;
    const struct gs_ynode *w = gs_y_get(m, "worker");
    if (!w || gs_y_is_null(w))
        return 0;
    char p[GS_SCN_PATH], tp[GS_SCN_PATH];
    static const char *const wkeys[] = {"tolerations", NULL};
    static const char *const wlater[] = {"nodeSelector", "affinity", "config", NULL};
    gs_scn_path(p, "%s.worker", path);
    if ((rc = gs_y_check_map(d, w, p, wkeys, wlater, NULL)))
        return rc;
    const struct gs_ynode *t = gs_y_get(w, "tolerations");
    if (!t)
        return 0;
    struct gs_toleration *tol;
    if ((rc = gs_scn_tolerations(d, t, gs_scn_path(tp, "%s.tolerations", p), &tol, &op->nnfd_tolerations)))
        return rc;
    op->nfd_tolerations = tol;
    op->has_nfd_tolerations = true;
    return 0;
}

static int daemonsets(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_operator_config *op)
{
    static const char *const keys[] = {"tolerations", NULL};
    static const char *const later[] = {"updateStrategy", "rollingUpdate", "priorityClassName", "labels",
                                        "annotations",    NULL};
    int rc = gs_y_check_map(d, m, path, keys, later, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *t = gs_y_get(m, "tolerations");
    if (!t)
        return 0;
    char p[GS_SCN_PATH];
    struct gs_toleration *tol;
    if ((rc = gs_scn_tolerations(d, t, gs_scn_path(p, "%s.tolerations", path), &tol, &op->nds_tolerations)))
        return rc;
    op->ds_tolerations = tol;
    op->has_ds_tolerations = true;
    return 0;
}

bool gs_scn_driver_version_ok(const char *s)
{
    int parts = 0, len = 0;
    for (const char *p = s;; p++) {
        if (*p >= '0' && *p <= '9') {
            if (++len > 6)
                return false;
            continue;
        }
        if (len == 0 || (*p != '.' && *p != '\0'))
            return false;
        parts++;
        len = 0;
        if (*p == '\0')
            return parts <= 4;
    }
}

static int driver(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_operator_config *op)
{
    static const char *const extra[] = {"usePrecompiled", "version", NULL};
    static const char *const later[] = {"upgradePolicy", "startupProbe",      "livenessProbe",  "readinessProbe",
                                        "kernelModuleType", "useOpenKernelModules", "useNvidiaDriverCRD",
                                        "nvidiaDriverCRD", "env",             "args",           "manager",
                                        "rdma",           "licensingConfig",  "repoConfig",     "certConfig",
                                        "kernelModuleConfig", "virtualTopology", NULL};
    char p[GS_SCN_PATH];
    int rc = section(d, m, path, extra, later, &op->driver_enabled);
    if (rc)
        return rc;
    const struct gs_ynode *v;
    if ((v = gs_y_get(m, "usePrecompiled")) &&
        (rc = gs_y_bool(d, v, gs_scn_path(p, "%s.usePrecompiled", path), &op->use_precompiled)))
        return rc;
    if ((v = gs_y_get(m, "version"))) {
        const char *ver;
        if ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.version", path), &ver)))
            return rc;
        if (!gs_scn_driver_version_ok(ver))
            return gs_y_error(d, v,
                              "invalid driver version \"%.60s\" at %s: expected a version such as \"550.90.07\" "
                              "(with usePrecompiled, a branch such as \"550\")",
                              ver, p);
        op->driver_version = ver;
    }
    return 0;
}

int gs_scn_operator(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc)
{
    static const char *const keys[] = {"managedBy",    "driver",     "toolkit",   "devicePlugin",
                                       "gfd",          "dcgmExporter", "migManager", "mig",
                                       "timings",      "precompiledKernels", "availableHeaders", "daemonsets",
                                       "validator",    "nfd",        "draDriver",  NULL};
    static const char *const later[] = {"dcgm",        "nodeStatusExporter", "sandboxWorkloads",
                                        "sandboxDevicePlugin", "vgpuManager", "vgpuDeviceManager", "vfioManager",
                                        "kataManager", "ccManager",   "cdi",               "gds",
                                        "gdrcopy",     "hostPaths",   "psa",               "psp",
                                        "operator",    NULL};
    struct gs_operator_config *op = &sc->op;
    int rc = gs_y_check_map(d, map, "spec.operator", keys, later, NULL);
    if (rc)
        return rc;
    op->enabled = true;
    op->timings = gs_catalog_profile(&sc->catalog, "default");
    const struct gs_ynode *v;

    if ((v = gs_y_get(map, "managedBy"))) {
        static const char *const who[] = {"gpu-operator", "helm", "host", NULL};
        int k;
        if ((rc = gs_y_enum(d, v, "spec.operator.managedBy", who, &k)))
            return rc;
        op->managed_by = k == 2 ? GS_MANAGED_HOST : k == 1 ? GS_MANAGED_HELM : GS_MANAGED_GPU_OPERATOR;
    }
    /* managedBy host: the node image runs the device plugin (and GFD) outside Kubernetes, with
     * the same operator-only sections refused as for helm. */
    bool helm = op->managed_by == GS_MANAGED_HELM || op->managed_by == GS_MANAGED_HOST;
    if (helm) {
        /* The k8s-device-plugin chart installs the plugin, GFD and NFD only; the GPU Operator's
         * other settings have nothing to act on. */
        static const char *const operator_only[] = {"driver", "toolkit", "dcgmExporter", "migManager",
                                                    "precompiledKernels", "availableHeaders", "validator", NULL};
        for (int i = 0; i < map->n; i++) {
            const struct gs_ynode *k = map->pairs[i].key;
            for (int j = 0; operator_only[j]; j++)
                if (strcmp(k->text, operator_only[j]) == 0)
                    return gs_y_error(d, k,
                                  "spec.operator.%s does not apply with managedBy %s: the k8s-device-plugin "
                                  "chart installs only the device plugin, GFD and NFD (driver and toolkit come "
                                      "with the node image)",
                                      k->text, op->managed_by == GS_MANAGED_HOST ? "host" : "helm");
        }
        /* Chart defaults (DP deployments/helm/nvidia-device-plugin/values.yaml): gfd.enabled false;
         * the host's driver and toolkit; no operator-managed MIG or DCGM. */
        op->gfd_enabled = false;
        op->driver_enabled = op->toolkit_enabled = false;
        op->mig_manager_enabled = op->dcgm_exporter_enabled = false;
    }
    if ((v = gs_y_get(map, "driver")) && (rc = driver(d, v, "spec.operator.driver", op)))
        return rc;
    static const char *const toolkit_later[] = {"env", "args", "installDir", NULL};
    if ((v = gs_y_get(map, "toolkit")) &&
        (rc = section(d, v, "spec.operator.toolkit", NULL, toolkit_later, &op->toolkit_enabled)))
        return rc;
    if ((v = gs_y_get(map, "devicePlugin")) && (rc = device_plugin(d, v, "spec.operator.devicePlugin", op)))
        return rc;
    static const char *const gfd_later[] = {"env", "args", NULL};
    if ((v = gs_y_get(map, "gfd")) && (rc = section(d, v, "spec.operator.gfd", NULL, gfd_later, &op->gfd_enabled)))
        return rc;
    static const char *const dcgm_later[] = {"config", "env", "args", "serviceMonitor", NULL};
    if ((v = gs_y_get(map, "dcgmExporter")) &&
        (rc = section(d, v, "spec.operator.dcgmExporter", NULL, dcgm_later, &op->dcgm_exporter_enabled)))
        return rc;
    if ((v = gs_y_get(map, "migManager")) && (rc = mig_manager(d, v, "spec.operator.migManager", sc)))
        return rc;
    bool mig_given = false;
    if ((v = gs_y_get(map, "mig"))) {
        static const char *const mkeys[] = {"strategy", NULL};
        static const char *const strategies[] = {"none", "single", "mixed", NULL};
        if ((rc = gs_y_check_map(d, v, "spec.operator.mig", mkeys, NULL, NULL)))
            return rc;
        const struct gs_ynode *s = gs_y_get(v, "strategy");
        int k;
        if (s && (rc = gs_y_enum(d, s, "spec.operator.mig.strategy", strategies, &k)))
            return rc;
        if (s) {
            op->mig_strategy = strategies[k];
            mig_given = true;
        }
    }
    if ((v = gs_y_get(map, "timings"))) {
        if (v->type == GS_Y_MAP) {
            if ((rc = gs_catalog_decode_profile(d, v, "spec.operator.timings", "inline", &sc->catalog, &op->timings)))
                return rc;
        } else {
            const char *name;
            if ((rc = gs_y_str(d, v, "spec.operator.timings", &name)))
                return rc;
            op->timings = gs_catalog_profile(&sc->catalog, name);
            if (!op->timings) {
                const char *names[65];
                int k = 0;
                for (int i = 0; i < sc->catalog.nprofiles && k < 64; i++)
                    names[k++] = sc->catalog.profiles[i].name;
                names[k] = NULL;
                const char *near = gs_y_suggest(name, names);
                if (near)
                    return gs_y_error(d, v,
                                      "unknown timing profile '%.60s' at spec.operator.timings (did you mean '%s'?)",
                                      name, near);
                return gs_y_error(d, v,
                                  "unknown timing profile '%.60s' at spec.operator.timings: profiles come from "
                                  "models/catalog/operands.yaml and spec.catalog.timingProfiles",
                                  name);
            }
        }
    }
    if ((v = gs_y_get(map, "precompiledKernels")) && !gs_y_is_null(v) &&
        (rc = kernels(d, v, "spec.operator.precompiledKernels", &op->precompiled_kernels, &op->nprecompiled_kernels)))
        return rc;
    if ((v = gs_y_get(map, "availableHeaders")) && !gs_y_is_null(v)) {
        if ((rc = kernels(d, v, "spec.operator.availableHeaders", &op->available_headers, &op->navailable_headers)))
            return rc;
        op->all_headers = false;
    }
    if ((v = gs_y_get(map, "daemonsets")) && (rc = daemonsets(d, v, "spec.operator.daemonsets", op)))
        return rc;
    if ((v = gs_y_get(map, "validator")) && (rc = validator(d, v, "spec.operator.validator")))
        return rc;
    /* The NVIDIA DRA driver's chart values (sim/scenario/dra.c). */
    const struct gs_ynode *dra = gs_y_get(map, "draDriver");
    if (dra && !gs_y_is_null(dra) && (rc = gs_scn_dra_driver(d, dra, "spec.operator.draDriver", sc)))
        return rc;
    if ((v = gs_y_get(map, "nfd")) && (rc = nfd(d, v, "spec.operator.nfd", op)))
        return rc;
    /* The chart's NFD dependency has condition `nfd.enabled,gfd.enabled`: Helm uses the first
     * value that is set, and nfd.enabled is unset by default, so GFD brings NFD along. */
    if (helm && !(v && gs_y_get(v, "enabled")))
        op->nfd_enabled = op->gfd_enabled;
    /* devicePlugin.config, now that mig.strategy is known: the GPU Operator passes its
     * mig.strategy to the plugin (MIG_STRATEGY), which wins over flags.migStrategy; the
     * device-plugin chart and a host install pass one only when mig.strategy is given. */
    const struct gs_ynode *dpn = (v = gs_y_get(map, "devicePlugin")) && v->type == GS_Y_MAP ? gs_y_get(v, "config") : NULL;
    if (dpn && !gs_y_is_null(dpn)) {
        int mig_override = -1;
        if (op->managed_by == GS_MANAGED_GPU_OPERATOR || mig_given)
            mig_override = strcmp(op->mig_strategy, "mixed") == 0    ? GS_MIG_MIXED
                           : strcmp(op->mig_strategy, "single") == 0 ? GS_MIG_SINGLE
                                                                     : GS_MIG_NONE;
        if ((rc = gs_scn_dpconfigs(d, dpn, "spec.operator.devicePlugin.config", mig_override, &sc->dp)))
            return rc;
        sc->has_dp = true;
    }
    return 0;
}
