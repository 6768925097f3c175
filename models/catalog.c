/* The catalog's pure side (catalog.h): step names, GFD families, lookups. Loading (YAML) is in
 * sim/catalog.c. */
#include <string.h>

#include "models/catalog.h"

/* operands.yaml keys, in the order of enum gs_step. */
static const char *const step_names[GS_STEP_COUNT] = {
    [GS_STEP_NFD_LABEL] = "nfdLabel",
    [GS_STEP_OPERATOR_LABEL] = "operatorLabel",
    [GS_STEP_DRIVER_COMPILE] = "driverCompile",
    [GS_STEP_DRIVER_PRECOMPILED] = "driverPrecompiled",
    [GS_STEP_DRIVER_HOST] = "driverHost",
    [GS_STEP_DRIVER_VALIDATION] = "driverValidation",
    [GS_STEP_TOOLKIT] = "toolkit",
    [GS_STEP_TOOLKIT_VALIDATION] = "toolkitValidation",
    [GS_STEP_DEVICE_PLUGIN] = "devicePlugin",
    [GS_STEP_GFD] = "gfd",
    [GS_STEP_MIG_MANAGER] = "migManager",
    [GS_STEP_DCGM_EXPORTER] = "dcgmExporter",
    [GS_STEP_CUDA_VALIDATION] = "cudaValidation",
    [GS_STEP_PLUGIN_VALIDATION] = "pluginValidation",
    [GS_STEP_REBOOT] = "reboot",
    [GS_STEP_IMAGE_PULL_BACKOFF] = "imagePullRetry",
    [GS_STEP_MIG_RECONFIGURE] = "migReconfigure",
    [GS_STEP_MIG_MODE_CHANGE] = "migModeChange",
};

const char *gs_step_name(enum gs_step s)
{
    if ((int)s < 0 || s >= GS_STEP_COUNT)
        return NULL;
    return step_names[s];
}

int gs_step_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < GS_STEP_COUNT; i++)
        if (strcmp(step_names[i], name) == 0)
            return i;
    return -1;
}

/* DP internal/lm/resource.go getArchFamily: the family from the compute capability (13 rubin
 * per the reference §4, the newest main). */
const char *gs_gpu_family(int major, int minor)
{
    switch (major) {
    case 1:
        return "tesla";
    case 2:
        return "fermi";
    case 3:
        return "kepler";
    case 5:
        return "maxwell";
    case 6:
        return "pascal";
    case 7:
        return minor < 5 ? "volta" : "turing";
    case 8:
        return minor < 9 ? "ampere" : "ada-lovelace";
    case 9:
        return "hopper";
    case 10:
    case 12:
        return "blackwell";
    case 13:
        return "rubin";
    default:
        return "undefined";
    }
}

const struct gs_gpu_product *gs_catalog_product(const struct gs_catalog *c, const char *product)
{
    if (!c || !product)
        return NULL;
    for (int i = 0; i < c->nproducts; i++)
        if (strcmp(c->products[i].product, product) == 0)
            return &c->products[i];
    return NULL;
}

const struct gs_timing_profile *gs_catalog_profile(const struct gs_catalog *c, const char *name)
{
    if (!c || !name)
        return NULL;
    for (int i = 0; i < c->nprofiles; i++)
        if (strcmp(c->profiles[i].name, name) == 0)
            return &c->profiles[i];
    return NULL;
}
