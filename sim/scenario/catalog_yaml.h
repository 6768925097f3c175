/* gpusim internal: decoding catalog content from a YAML tree, shared by the catalog files
 * (sim/catalog.c) and a scenario's spec.catalog and operator.timings (sim/scenario/). Not a
 * public header. Errors go to d->err with file:line:column; everything lives in d->arena. */
#ifndef GPUSIM_SIM_CATALOG_YAML_H
#define GPUSIM_SIM_CATALOG_YAML_H

#include <stdbool.h>

#include "models/catalog.h"
#include "sim/scenario/yaml.h"

/* A `gpus:` sequence at `path` into `c`. With `replace` (spec.catalog) an entry whose product
 * is already in `c` replaces it; without (gpus.yaml) that is a duplicate-product error. Two
 * entries of the same sequence with one product are always an error. */
int gs_catalog_decode_gpus(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, bool replace,
                           struct gs_catalog *c);

/* A `timingProfiles:` mapping at `path` into `c`, in document order. A profile starts from its
 * `base` (a profile already in `c`, or defined earlier in the mapping); without `base` it starts
 * from the profile of the same name when `c` has one (an override), else from `default`.
 * `default` must then exist: with `file` (operands.yaml) it must be the first profile and list
 * every step. New profiles are appended; overrides replace in place. */
int gs_catalog_decode_profiles(struct gs_ydec *d, const struct gs_ynode *map, const char *path, bool file,
                               struct gs_catalog *c);

/* One inline profile (operator.timings: {...}) at `path` named `name`, starting from its `base`
 * or `default` of `c`, into *out (arena). */
int gs_catalog_decode_profile(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const char *name,
                              const struct gs_catalog *c, const struct gs_timing_profile **out);

/* One duration or distribution at `path` (see catalog.h, struct gs_dur). */
int gs_catalog_decode_dur(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_dur *out);

#endif
