/* gpusim internal: small helpers the YAML decoders (sim/scenario/, sim/mig_catalog.c,
 * sim/migparted.c) share on top of yaml.h: building the dotted path of a node for messages, the
 * "out of memory" error at a node, and a rate scalar ("12/h"). Not a public header.
 * (gs_scn_path in podspec.h writes paths too, but does not mark a cut path with "...".)
 */
#ifndef GPUSIM_SCENARIO_YDEC_UTIL_H
#define GPUSIM_SCENARIO_YDEC_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/yaml.h"

/* Size in bytes (NUL included) of a path buffer for gs_ypath. */
#define GS_YPATH_MAX 320

/* printf `fmt` into buf (GS_YPATH_MAX bytes, caller-owned) as a node path such as
 * "spec.devices[2].name"; a path that does not fit is cut and ends in "...". Returns buf. */
static inline char *gs_ypath(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline char *gs_ypath(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, GS_YPATH_MAX, fmt, ap);
    va_end(ap);
    if (n >= GS_YPATH_MAX)
        memcpy(buf + GS_YPATH_MAX - 4, "...", 4);
    return buf;
}

/* Fill d->err with "out of memory" at node n (may be NULL: no position), code GS_ENOMEM.
 * Returns GS_ENOMEM. */
static inline int gs_y_nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, "out of memory");
}

/* A rate scalar at `path`: a positive number (at most 1e12) per second, minute or hour ("10/s",
 * "0.5/m", "12/h") into *per_us, per microsecond. Else GS_EINVAL with "invalid rate '<text>' at
 * <path>: expected a positive number of <what> per second, minute or hour, such as <examples>". */
static inline int gs_y_rate(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *what,
                            const char *examples, double *per_us)
{
    const char *s;
    int rc = gs_y_str(d, n, path, &s);
    if (rc)
        return rc;
    const char *slash = strchr(s, '/');
    char *end = NULL;
    double v = slash ? strtod(s, &end) : 0;
    double unit = 0;
    if (slash) {
        if (strcmp(slash, "/s") == 0)
            unit = 1e6;
        else if (strcmp(slash, "/m") == 0)
            unit = 60e6;
        else if (strcmp(slash, "/h") == 0)
            unit = 3600e6;
    }
    if (!slash || end != slash || unit == 0 || !(v > 0) || v > 1e12)
        return gs_y_error(d, n, "invalid rate '%s' at %s: expected a positive number of %s per second, minute or "
                                "hour, such as %s", s, path, what, examples);
    *per_us = v / unit;
    return 0;
}

#endif
