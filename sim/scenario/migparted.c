/* gpusim: decoding a mig-parted config file from a YAML tree (sim/mig_yaml.h). Follows
 * NVIDIA/mig-parted api/spec/v1/spec.go (Spec and MigConfigSpec UnmarshalJSON) and helpers.go
 * (device filters); messages quote mig-parted's, prefixed with where in the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/mig_yaml.h"
#include "sim/scenario/ydec_util.h"

/* "0x20B010DE" -> 0x20B010DE (mig-parted types.NewDeviceIDFromString: a 32-bit hex number). */
static bool parse_pci(const char *s, uint32_t *out)
{
    if (!s || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2] || strlen(s) > 10)
        return false;
    char *end;
    unsigned long v = strtoul(s + 2, &end, 16);
    if (*end)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* [Nc.]Ng.Mgb followed by +me, +me.all, -me or +gfx (mig-parted types MigProfile names). */
static bool profile_name_ok(const char *s)
{
    const char *p = s;
    int digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (digits && p[0] == 'c' && p[1] == '.') {
        p += 2;
        digits = 0;
        while (*p >= '0' && *p <= '9')
            p++, digits++;
    }
    if (!digits || *p++ != 'g' || *p++ != '.')
        return false;
    digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (!digits || strncmp(p, "gb", 2) != 0)
        return false;
    p += 2;
    while (*p) {
        if (strncmp(p, "+me.all", 7) == 0)
            p += 7;
        else if (strncmp(p, "+me", 3) == 0 || strncmp(p, "-me", 3) == 0)
            p += 3;
        else if (strncmp(p, "+gfx", 4) == 0)
            p += 4;
        else
            return false;
    }
    return true;
}

static int decode_filter(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_migparted_entry *e)
{
    const struct gs_ynode *one = n;
    int count = 1;
    if (n->type == GS_Y_SEQ)
        count = n->n;
    else if (n->type != GS_Y_SCALAR)
        return gs_y_error(d, n, "%s: device-filter must be a string or a list of strings", path);
    uint32_t *ids = gs_arena_alloc(d->arena, sizeof *ids * (size_t)(count ? count : 1));
    if (!ids)
        return gs_y_nomem(d, n);
    for (int i = 0; i < count; i++) {
        if (n->type == GS_Y_SEQ)
            one = n->items[i];
        if (one->type != GS_Y_SCALAR || !parse_pci(one->text, &ids[i]))
            return gs_y_error(d, one,
                              "%s: invalid device-filter '%.40s': expected a PCI device ID such as 0x20B010DE "
                              "(mig-parted would match no GPU)",
                              path, one->type == GS_Y_SCALAR ? one->text : "");
    }
    e->device_filter = ids;
    e->nfilter = count;
    return 0;
}

static int decode_devices(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_migparted_entry *e)
{
    if (n->type == GS_Y_SCALAR) {
        if (strcmp(n->text, "all") != 0)
            return gs_y_error(d, n, "%s: invalid string input for 'devices': %.60s", path, n->text);
        e->all_devices = true;
        return 0;
    }
    if (n->type != GS_Y_SEQ)
        return gs_y_error(d, n, "%s: devices must be 'all' or a list of GPU indices", path);
    int *idx = gs_arena_alloc(d->arena, sizeof *idx * (size_t)(n->n ? n->n : 1));
    if (!idx)
        return gs_y_nomem(d, n);
    char p[GS_YPATH_MAX];
    for (int i = 0; i < n->n; i++) {
        int64_t v;
        int rc = gs_y_int(d, n->items[i], gs_ypath(p, "%s.devices[%d]", path, i), 0, GS_MIG_MAX_GPUS - 1, &v);
        if (rc)
            return rc;
        idx[i] = (int)v;
    }
    e->devices = idx;
    e->ndevices = n->n;
    return 0;
}

static int decode_counts(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_migparted_entry *e)
{
    if (gs_y_is_null(n)) /* `mig-devices:` with nothing: an empty map, as {} */
        return 0;
    if (n->type != GS_Y_MAP)
        return gs_y_error(d, n, "%s: mig-devices must be a map of MIG profile to count", path);
    struct gs_mig_count *c = gs_arena_alloc(d->arena, sizeof *c * (size_t)(n->n ? n->n : 1));
    if (!c)
        return gs_y_nomem(d, n);
    char p[GS_YPATH_MAX];
    for (int i = 0; i < n->n; i++) {
        const struct gs_ynode *k = n->pairs[i].key;
        if (!profile_name_ok(k->text))
            return gs_y_error(d, k,
                              "%s: error validating values in 'mig-devices' field: invalid MIG profile '%.40s' "
                              "(expected e.g. 1g.10gb or 1g.10gb+me)",
                              path, k->text);
        int64_t v;
        int rc = gs_y_int(d, n->pairs[i].value, gs_ypath(p, "%s.mig-devices.%s", path, k->text), 0, 64, &v);
        if (rc)
            return rc;
        c[i] = (struct gs_mig_count){.profile = k->text, .count = (int)v};
    }
    e->mig_devices = c;
    e->nmig_devices = n->n;
    return 0;
}

static int decode_entry(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_migparted_entry *e)
{
    if (!n || n->type != GS_Y_MAP)
        return gs_y_error(d, n, "%s: expected a mapping (device-filter, devices, mig-enabled, mig-devices)", path);
    static const char *const keys[] = {"device-filter", "devices", "mig-enabled", "mig-devices"};
    for (int i = 0; i < n->n; i++) {
        bool known = false;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            known |= strcmp(n->pairs[i].key->text, keys[k]) == 0;
        if (!known)
            return gs_y_error(d, n->pairs[i].key, "%s: unexpected field: %.60s", path, n->pairs[i].key->text);
    }
    if (!gs_y_get(n, "devices"))
        return gs_y_error(d, n, "%s: missing required field: devices", path);
    if (!gs_y_get(n, "mig-enabled"))
        return gs_y_error(d, n, "%s: missing required field: mig-enabled", path);
    memset(e, 0, sizeof *e);
    const struct gs_ynode *v;
    int rc;
    char p[GS_YPATH_MAX];
    if ((v = gs_y_get(n, "device-filter")) && (rc = decode_filter(d, v, path, e)))
        return rc;
    if ((rc = decode_devices(d, gs_y_get(n, "devices"), path, e)))
        return rc;
    if ((rc = gs_y_bool(d, gs_y_get(n, "mig-enabled"), gs_ypath(p, "%s.mig-enabled", path), &e->mig_enabled)))
        return rc;
    const struct gs_ynode *md = gs_y_get(n, "mig-devices");
    if (md && (rc = decode_counts(d, md, path, e)))
        return rc;
    if (e->mig_enabled && !md)
        return gs_y_error(d, n, "%s: missing required field 'mig-devices' when 'mig-enabled' is true", path);
    if (!e->mig_enabled && e->nmig_devices > 0)
        return gs_y_error(d, md, "%s: MIG devices included when 'mig-enabled' is false", path);
    return 0;
}

int gs_migparted_decode(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_migparted_config *out)
{
    memset(out, 0, sizeof *out);
    if (!n || n->type != GS_Y_MAP)
        return gs_y_error(d, n, "%s: expected a mig-parted config (version: v1, mig-configs: ...)", path);
    for (int i = 0; i < n->n; i++) {
        const char *k = n->pairs[i].key->text;
        if (strcmp(k, "version") != 0 && strcmp(k, "mig-configs") != 0)
            return gs_y_error(d, n->pairs[i].key, "%s: unexpected field: %.60s", path, k);
    }
    const struct gs_ynode *ver = gs_y_get(n, "version");
    if (!ver && n->n > 0)
        return gs_y_error(d, n, "%s: unable to parse with missing 'version' field", path);
    char p[GS_YPATH_MAX];
    const char *vs = "";
    int rc;
    if (ver && (rc = gs_y_str(d, ver, gs_ypath(p, "%s.version", path), &vs)))
        return rc;
    if (strcmp(vs, "v1") != 0)
        return gs_y_error(d, ver ? ver : n, "%s: unknown version: %.40s", path, vs);
    const struct gs_ynode *mc = gs_y_get(n, "mig-configs");
    if (!mc) /* a file with only a version has no configs: every selection fails later */
        return 0;
    if (mc->type != GS_Y_MAP)
        return gs_y_error(d, mc, "%s.mig-configs: expected a mapping of config name to entries", path);
    if (mc->n == 0)
        return gs_y_error(d, mc, "%s: at least one entry in 'mig-configs' is required", path);
    struct gs_migparted_named *cfgs = gs_arena_alloc(d->arena, sizeof *cfgs * (size_t)mc->n);
    if (!cfgs)
        return gs_y_nomem(d, mc);
    for (int i = 0; i < mc->n; i++) {
        const struct gs_ynode *k = mc->pairs[i].key, *v = mc->pairs[i].value;
        gs_ypath(p, "%s.mig-configs.%s", path, k->text);
        if (!v || v->type != GS_Y_SEQ || v->n == 0) {
            if (v && v->type != GS_Y_SEQ && !gs_y_is_null(v))
                return gs_y_error(d, v, "%s: expected a list of entries", p);
            return gs_y_error(d, v ? v : k, "%s: at least one entry in '%.60s' is required", p, k->text);
        }
        struct gs_migparted_entry *ents = gs_arena_alloc(d->arena, sizeof *ents * (size_t)v->n);
        if (!ents)
            return gs_y_nomem(d, v);
        for (int j = 0; j < v->n; j++) {
            char ep[GS_YPATH_MAX];
            if ((rc = decode_entry(d, v->items[j], gs_ypath(ep, "%s[%d]", p, j), &ents[j])))
                return rc;
        }
        cfgs[i] = (struct gs_migparted_named){.name = k->text, .entries = ents, .nentries = v->n};
    }
    out->configs = cfgs;
    out->nconfigs = mc->n;
    return 0;
}
