/* gpusim: loading models/catalog/mig-profiles.yaml (mig.h gs_mig_catalog_load). A gpusim/v1alpha1
 * document of kind MIGCatalog with `gpus` (the profile tables) and `defaultMigPartedConfig` (the
 * operator's mig-parted config). Unknown keys are errors with the nearest valid key, exactly as in
 * sim/catalog.c, and every error names file:line:column.
 * Checks beyond types: names, products and profile names/IDs are unique; a placement's size is the
 * profile's memorySlices, its starts ascend and stay inside the GPU; a profile's slices fit the GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/readfile.h"
#include "sim/scenario/mig_yaml.h"
#include "sim/scenario/ydec_util.h"

static int geti(struct gs_ydec *d, const struct gs_ynode *m, const char *key, const char *path, int64_t lo,
                int64_t hi, int64_t *out)
{
    char p[GS_YPATH_MAX];
    return gs_y_int(d, gs_y_get(m, key), gs_ypath(p, "%s.%s", path, key), lo, hi, out);
}

static int decode_placement(struct gs_ydec *d, const struct gs_ynode *m, const char *path, int gpu_slices,
                            struct gs_mig_profile *p)
{
    static const char *const keys[] = {"starts", "size", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, keys);
    if (rc)
        return rc;
    int64_t size;
    if ((rc = geti(d, m, "size", path, 1, GS_MIG_MAX_SLICES, &size)))
        return rc;
    if (size != p->memory_slices)
        return gs_y_error(d, gs_y_get(m, "size"), "%s.size is %lld but the profile takes %d memory slices", path,
                          (long long)size, p->memory_slices);
    const struct gs_ynode *s = gs_y_get(m, "starts");
    char sp[GS_YPATH_MAX];
    gs_ypath(sp, "%s.starts", path);
    if ((rc = gs_y_want_seq(d, s, sp)))
        return rc;
    if (s->n < 1 || s->n > GS_MIG_MAX_SLICES)
        return gs_y_error(d, s, "%s must list 1 to %d start offsets, got %d", sp, GS_MIG_MAX_SLICES, s->n);
    for (int i = 0; i < s->n; i++) {
        char ip[GS_YPATH_MAX];
        int64_t v;
        if ((rc = gs_y_int(d, s->items[i], gs_ypath(ip, "%s[%d]", sp, i), 0, GS_MIG_MAX_SLICES - 1, &v)))
            return rc;
        if (i > 0 && v <= p->starts[i - 1])
            return gs_y_error(d, s->items[i], "%s: start offsets must ascend (%lld after %d)", sp, (long long)v,
                              p->starts[i - 1]);
        if (v + size > gpu_slices)
            return gs_y_error(d, s->items[i], "%s: an instance at %lld of size %lld runs past the GPU's %d memory slices",
                              sp, (long long)v, (long long)size, gpu_slices);
        p->starts[i] = (int)v;
    }
    p->nstarts = s->n;
    return 0;
}

static int decode_profile(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const struct gs_mig_gpu *g,
                          struct gs_mig_profile *p)
{
    static const char *const keys[] = {"name",         "id",        "memoryMiB",       "computeSlices", "memorySlices",
                                       "maxInstances", "placement", "multiprocessors", NULL};
    static const char *const req[] = {"name",         "id",        "memoryMiB", "computeSlices", "memorySlices",
                                      "maxInstances", "placement", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, req);
    if (rc)
        return rc;
    char p2[GS_YPATH_MAX];
    if ((rc = gs_y_str(d, gs_y_get(m, "name"), gs_ypath(p2, "%s.name", path), &p->name)))
        return rc;
    int64_t v;
    if ((rc = geti(d, m, "id", path, 0, 255, &v)))
        return rc;
    p->id = (int)v;
    if ((rc = geti(d, m, "memoryMiB", path, 1, (int64_t)1 << 30, &p->memory_mib)))
        return rc;
    if ((rc = geti(d, m, "computeSlices", path, 1, g->compute_slices, &v)))
        return rc;
    p->compute_slices = (int)v;
    if ((rc = geti(d, m, "memorySlices", path, 1, g->memory_slices, &v)))
        return rc;
    p->memory_slices = (int)v;
    if ((rc = geti(d, m, "maxInstances", path, 1, GS_MIG_MAX_SLICES, &v)))
        return rc;
    p->max_instances = (int)v;
    if (gs_y_get(m, "multiprocessors")) {
        if ((rc = geti(d, m, "multiprocessors", path, 0, 100000, &v)))
            return rc;
        p->multiprocessors = (int)v;
    }
    return decode_placement(d, gs_y_get(m, "placement"), gs_ypath(p2, "%s.placement", path), g->memory_slices, p);
}

static int decode_strings(struct gs_ydec *d, const struct gs_ynode *s, const char *path, const char ***out, int *n)
{
    int rc = gs_y_want_seq(d, s, path);
    if (rc)
        return rc;
    if (s->n < 1)
        return gs_y_error(d, s, "%s must not be empty", path);
    const char **arr = gs_arena_alloc(d->arena, sizeof *arr * (size_t)s->n);
    if (!arr)
        return gs_y_nomem(d, s);
    for (int i = 0; i < s->n; i++) {
        char ip[GS_YPATH_MAX];
        if ((rc = gs_y_str(d, s->items[i], gs_ypath(ip, "%s[%d]", path, i), &arr[i])))
            return rc;
    }
    *out = arr;
    *n = s->n;
    return 0;
}

static int decode_gpu(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_mig_gpu *g)
{
    static const char *const keys[] = {"name",         "products",   "pciDeviceIds", "computeSlices",
                                       "memorySlices", "unverified", "profiles",     NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, keys);
    if (rc)
        return rc;
    char p[GS_YPATH_MAX];
    int64_t v;
    if ((rc = gs_y_str(d, gs_y_get(m, "name"), gs_ypath(p, "%s.name", path), &g->name)))
        return rc;
    const char **products, **pci;
    int npci;
    if ((rc = decode_strings(d, gs_y_get(m, "products"), gs_ypath(p, "%s.products", path), &products, &g->nproducts)))
        return rc;
    g->products = products;
    const struct gs_ynode *pn = gs_y_get(m, "pciDeviceIds");
    if ((rc = decode_strings(d, pn, gs_ypath(p, "%s.pciDeviceIds", path), &pci, &npci)))
        return rc;
    uint32_t *ids = gs_arena_alloc(d->arena, sizeof *ids * (size_t)npci);
    if (!ids)
        return gs_y_nomem(d, pn);
    for (int i = 0; i < npci; i++) {
        char *end;
        unsigned long x = strtoul(pci[i], &end, 16);
        if (strncmp(pci[i], "0x", 2) != 0 || *end || strlen(pci[i]) != 10)
            return gs_y_error(d, pn->items[i], "%s[%d]: expected a PCI device ID such as \"0x20B010DE\", got \"%.40s\"",
                              p, i, pci[i]);
        ids[i] = (uint32_t)x;
    }
    g->pci_ids = ids;
    g->npci = npci;
    if ((rc = geti(d, m, "computeSlices", path, 1, GS_MIG_MAX_SLICES, &v)))
        return rc;
    g->compute_slices = (int)v;
    if ((rc = geti(d, m, "memorySlices", path, 1, GS_MIG_MAX_SLICES, &v)))
        return rc;
    g->memory_slices = (int)v;
    if ((rc = gs_y_bool(d, gs_y_get(m, "unverified"), gs_ypath(p, "%s.unverified", path), &g->unverified)))
        return rc;
    const struct gs_ynode *ps = gs_y_get(m, "profiles");
    gs_ypath(p, "%s.profiles", path);
    if ((rc = gs_y_want_seq(d, ps, p)))
        return rc;
    if (ps->n < 1 || ps->n > GS_MIG_MAX_PROFILES)
        return gs_y_error(d, ps, "%s must list 1 to %d profiles, got %d", p, GS_MIG_MAX_PROFILES, ps->n);
    struct gs_mig_profile *prof = gs_arena_alloc(d->arena, sizeof *prof * (size_t)ps->n);
    if (!prof)
        return gs_y_nomem(d, ps);
    for (int i = 0; i < ps->n; i++) {
        char ip[GS_YPATH_MAX];
        if ((rc = decode_profile(d, ps->items[i], gs_ypath(ip, "%s[%d]", p, i), g, &prof[i])))
            return rc;
        for (int j = 0; j < i; j++)
            if (strcmp(prof[j].name, prof[i].name) == 0 || prof[j].id == prof[i].id)
                return gs_y_error(d, ps->items[i], "%s: duplicate profile %s '%s' in %s (first at %s[%d])", ip,
                                  prof[j].id == prof[i].id ? "id of" : "name", prof[i].name, g->name, p, j);
    }
    g->profiles = prof;
    g->nprofiles = ps->n;
    return 0;
}

static int decode_gpus(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_mig_catalog *c)
{
    int rc = gs_y_want_seq(d, seq, "gpus");
    if (rc)
        return rc;
    struct gs_mig_gpu *gpus = gs_arena_alloc(d->arena, sizeof *gpus * (size_t)(seq->n ? seq->n : 1));
    if (!gpus)
        return gs_y_nomem(d, seq);
    for (int i = 0; i < seq->n; i++) {
        char p[GS_YPATH_MAX];
        gs_ypath(p, "gpus[%d]", i);
        if ((rc = decode_gpu(d, seq->items[i], p, &gpus[i])))
            return rc;
        for (int j = 0; j < i; j++) {
            if (strcmp(gpus[j].name, gpus[i].name) == 0)
                return gs_y_error(d, gs_y_get(seq->items[i], "name"), "duplicate MIG GPU '%s' in gpus (first at gpus[%d])",
                                  gpus[i].name, j);
            for (int a = 0; a < gpus[i].nproducts; a++)
                for (int b = 0; b < gpus[j].nproducts; b++)
                    if (strcmp(gpus[i].products[a], gpus[j].products[b]) == 0)
                        return gs_y_error(d, gs_y_get(seq->items[i], "products"),
                                          "product '%s' of %s is already listed under %s", gpus[i].products[a],
                                          gpus[i].name, gpus[j].name);
        }
    }
    c->gpus = gpus;
    c->ngpus = seq->n;
    return 0;
}

int gs_mig_catalog_load(const char *dir, struct gs_arena *a, struct gs_mig_catalog *c, struct gs_error *err)
{
    memset(c, 0, sizeof *c);
    struct gs_ydec d = {.err = err, .arena = a};
    char *path = gs_arena_printf(a, "%s/mig-profiles.yaml", dir ? dir : ".");
    if (!path)
        return gs_error_set(err, GS_ENOMEM, "mig-profiles.yaml", 0, 0, "out of memory");
    struct gs_ynode *root;
    int rc = gs_yaml_load_file(path, "a catalog file", GS_SCN_CATALOG_LIMIT, a, &root, err);
    if (rc == GS_EIO && !gs_read_is_too_large(err)) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return gs_error_set(err, GS_EIO, path, 0, 0,
                            "%s: the gpusim catalog is missing (set GPUSIM_CATALOG to the models/catalog directory)", msg);
    }
    if (rc)
        return rc;
    static const char *const keys[] = {"apiVersion", "kind", "gpus", "defaultMigPartedConfig", NULL};
    if ((rc = gs_y_check_map(&d, root, "", keys, NULL, keys)))
        return rc;
    const char *s;
    const struct gs_ynode *n = gs_y_get(root, "apiVersion");
    if ((rc = gs_y_str(&d, n, "apiVersion", &s)))
        return rc;
    if (strcmp(s, "gpusim/v1alpha1") != 0)
        return gs_y_error(&d, n, "unsupported apiVersion \"%.60s\": expected gpusim/v1alpha1", s);
    n = gs_y_get(root, "kind");
    if ((rc = gs_y_str(&d, n, "kind", &s)))
        return rc;
    if (strcmp(s, "MIGCatalog") != 0)
        return gs_y_error(&d, n, "unsupported kind \"%.60s\": expected MIGCatalog", s);
    rc = decode_gpus(&d, gs_y_get(root, "gpus"), c);
    if (!rc)
        rc = gs_migparted_decode(&d, gs_y_get(root, "defaultMigPartedConfig"), "defaultMigPartedConfig", &c->defaults);
    if (rc)
        memset(c, 0, sizeof *c);
    return rc;
}
