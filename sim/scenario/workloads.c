/* spec.workloads: plain workloads (name, replicas, arrival, duration, group, template),
 * manifest entries (a v1 Pod or batch/v1 Job, inline or from a file next to the scenario) and
 * trace entries (a pod list file: sim/scenario/podtrace.c). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/readfile.h"
#include "models/devices/gpushare_pod.h"
#include "models/quantity.h"
#include "base/strmap.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/source.h"
#include "sim/scenario/ydec_util.h"

#define GS_MAX_REPLICAS 1000000
#define GS_MAX_ARRIVALS INT_MAX

/* ------------------------------------------------------------------ arrival */

#define GS_HOUR_US ((gs_time)3600 * 1000000)
#define GS_DAY_US (24 * GS_HOUR_US)
/* P(more arrivals than the bound) for an open Poisson process: so far in the tail that no run
 * reaches it (docs/scenario-format.md, "Arrivals until the horizon"). */
#define GS_OPEN_TAIL 1e-12
/* Beyond this mean the bound is INT_MAX, far past GS_MAX_PODS: the limits check refuses it. */
#define GS_OPEN_MEAN_MAX 1e8

/* The smallest k with P(N > k) <= GS_OPEN_TAIL for N ~ Poisson(mu), by bisection on GSL's
 * upper tail gsl_cdf_poisson_Q (mu >= 0; INT_MAX when mu > GS_OPEN_MEAN_MAX). */
static int64_t poisson_bound(double mu)
{
    if (!(mu > 0))
        return 0;
    if (mu > GS_OPEN_MEAN_MAX)
        return INT_MAX;
    unsigned lo = (unsigned)mu, hi = (unsigned)(mu + 10.0 * sqrt(mu) + 64.0);
    while (gsl_cdf_poisson_Q(hi, mu) > GS_OPEN_TAIL)
        hi = lo + 2 * (hi - lo);
    /* Q(lo) > tail (lo <= mu: Q is about one half or more), Q(hi) <= tail */
    while (hi - lo > 1) {
        unsigned mid = lo + (hi - lo) / 2;
        if (gsl_cdf_poisson_Q(mid, mu) > GS_OPEN_TAIL)
            lo = mid;
        else
            hi = mid;
    }
    return gsl_cdf_poisson_Q(lo, mu) <= GS_OPEN_TAIL ? lo : hi;
}

/* The expected arrivals of the profiled process of `a` over [from, to] µs: the integral of
 * rate x hourly[hour of day], hour by hour (whole days at once). */
static double profile_mean(const struct gs_arrival *a, gs_time from, gs_time to)
{
    if (to <= from)
        return 0;
    double day = 0;
    for (int h = 0; h < 24; h++)
        day += a->hourly[h];
    double n = 0; /* in multiplier-hours */
    gs_time t = from;
    int64_t days = (to - from) / GS_DAY_US;
    n += (double)days * day;
    t += days * GS_DAY_US;
    while (t < to) {
        gs_time tod = (t + a->day_offset) % GS_DAY_US;
        gs_time seg = GS_HOUR_US - tod % GS_HOUR_US;
        if (seg > to - t)
            seg = to - t;
        n += a->hourly[tod / GS_HOUR_US] * (double)seg / (double)GS_HOUR_US;
        t += seg;
    }
    return n * a->rate_per_us * (double)GS_HOUR_US;
}

/* The count of an arrival without `count`: every arrival at or before the horizon `h`. For
 * `every` exactly; for poisson a bound (poisson_bound) on the arrivals after the first, at
 * `start`; for a profiled poisson (its first arrival is drawn too) a bound on all of them. */
static int open_count(struct gs_arrival *a, gs_time h)
{
    a->expected_count = 0;
    if (a->start > h)
        return 0;
    int64_t n;
    if (a->kind == GS_ARRIVE_EVERY) {
        n = (h - a->start) / a->every + 1;
        a->expected_count = (double)n;
    } else if (a->hourly) {
        a->expected_count = profile_mean(a, a->start, h);
        n = poisson_bound(a->expected_count);
    } else {
        a->expected_count = 1 + a->rate_per_us * (double)(h - a->start);
        n = 1 + poisson_bound(a->rate_per_us * (double)(h - a->start));
    }
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* arrival.profile: {hourly: [24 multipliers], startHourOfDay: H}. */
static int profile(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_arrival *a)
{
    static const char *const keys[] = {"hourly", "startHourOfDay", NULL};
    static const char *const required[] = {"hourly", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *hn = gs_y_get(n, "hourly"), *sn = gs_y_get(n, "startHourOfDay");
    if ((rc = gs_y_want_seq(d, hn, gs_scn_path(p, "%s.hourly", path))))
        return rc;
    if (hn->n != 24)
        return gs_y_error(d, hn, "%s.hourly has %d entries: it takes 24 rate multipliers, one for each hour of the "
                                 "day from 00:00",
                          path, hn->n);
    double *hourly = gs_arena_alloc(d->arena, sizeof *hourly * 24);
    if (!hourly)
        return gs_y_nomem(d, hn);
    a->hourly_max = 0;
    for (int h = 0; h < 24; h++) {
        if ((rc = gs_y_double(d, hn->items[h], gs_scn_path(p, "%s.hourly[%d]", path, h), &hourly[h])))
            return rc;
        if (!(hourly[h] >= 0) || hourly[h] > 1e6)
            return gs_y_error(d, hn->items[h], "%s.hourly[%d] must be a multiplier from 0 to 1000000, got %s", path,
                              h, hn->items[h]->text);
        if (hourly[h] > a->hourly_max)
            a->hourly_max = hourly[h];
    }
    if (!(a->hourly_max > 0))
        return gs_y_error(d, hn, "%s.hourly is 0 in every hour: no pod would ever arrive", path);
    a->hourly = hourly;
    a->day_offset = 0;
    if (sn && !gs_y_is_null(sn)) {
        double sh;
        if ((rc = gs_y_double(d, sn, gs_scn_path(p, "%s.startHourOfDay", path), &sh)))
            return rc;
        if (!(sh >= 0 && sh < 24))
            return gs_y_error(d, sn, "%s.startHourOfDay must be from 0 to below 24 (the hour of day at the run's time "
                                     "0), got %s",
                              path, sn->text);
        a->day_offset = (gs_time)llround(sh * (double)GS_HOUR_US) % GS_DAY_US;
    }
    return 0;
}

static int arrival(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const struct gs_scenario *sc,
                   struct gs_arrival *a)
{
    static const char *const keys[] = {"at",      "stagger", "every", "count", "start",
                                       "process", "rate",    "profile", NULL};
    static const char *const processes[] = {"poisson", NULL};
    char p[GS_SCN_PATH];
    memset(a, 0, sizeof *a);
    a->kind = GS_ARRIVE_AT;
    a->start = 0;
    a->count = 1;
    a->stagger = 0;
    if (!n || gs_y_is_null(n))
        return 0; /* default: one arrival at 0s */
    int rc = gs_y_check_map(d, n, path, keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *at = gs_y_get(n, "at"), *every = gs_y_get(n, "every"), *proc = gs_y_get(n, "process");
    const struct gs_ynode *count = gs_y_get(n, "count"), *start = gs_y_get(n, "start"), *r = gs_y_get(n, "rate");
    const struct gs_ynode *prof = gs_y_get(n, "profile");
    const struct gs_ynode *forms[3] = {at, every, proc};
    static const char *const form_names[3] = {"at", "every", "process"};
    int first = -1;
    for (int i = 0; i < 3; i++) {
        if (!forms[i])
            continue;
        if (first >= 0)
            return gs_y_error(d, forms[i], "%s takes one of at, every or process, not both '%s' and '%s'", path,
                              form_names[first], form_names[i]);
        first = i;
    }
    if (first < 0)
        return gs_y_error(d, n, "%s needs one of at (one arrival), every (periodic) or process (poisson)", path);
    const struct gs_ynode *stagger = gs_y_get(n, "stagger");
    if (stagger && (rc = gs_y_duration(d, stagger, gs_scn_path(p, "%s.stagger", path), false, &a->stagger)))
        return rc;
    if (prof && !proc)
        return gs_y_error(d, prof, "'profile' in %s goes with process: poisson (a rate by hour of day)", path);
    if (at) {
        const struct gs_ynode *extra[3] = {count, start, r};
        static const char *const extra_names[3] = {"count", "start", "rate"};
        for (int i = 0; i < 3; i++)
            if (extra[i])
                return gs_y_error(d, extra[i], "'%s' in %s goes with every or process, not with at",
                                  extra_names[i], path);
        return gs_y_duration(d, at, gs_scn_path(p, "%s.at", path), false, &a->start);
    }
    if (count) {
        int64_t c;
        if ((rc = gs_y_int(d, count, gs_scn_path(p, "%s.count", path), 1, GS_MAX_ARRIVALS, &c)))
            return rc;
        a->count = (int)c;
    } else {
        /* Without count: until the horizon, which must then be known. */
        if (!sc->has_horizon)
            return gs_y_error(d, n,
                              "%s has no 'count', so its arrivals continue until the horizon: set spec.horizon or "
                              "pass --horizon (or give count, the number of arrivals)",
                              path);
        a->until_horizon = true;
    }
    if (start && (rc = gs_y_duration(d, start, gs_scn_path(p, "%s.start", path), false, &a->start)))
        return rc;
    if (every) {
        if (r)
            return gs_y_error(d, r, "'rate' in %s goes with process: poisson, not with every", path);
        a->kind = GS_ARRIVE_EVERY;
        if ((rc = gs_y_duration(d, every, gs_scn_path(p, "%s.every", path), false, &a->every)))
            return rc;
        if (a->every <= 0)
            return gs_y_error(d, every, "%s.every must be longer than 0s", path);
    } else {
        int k;
        if ((rc = gs_y_enum(d, proc, gs_scn_path(p, "%s.process", path), processes, &k)))
            return rc;
        a->kind = GS_ARRIVE_POISSON;
        if (!r)
            return gs_y_error(d, n, "missing required field 'rate' in %s (such as 12/h)", path);
        if ((rc = gs_y_rate(d, r, gs_scn_path(p, "%s.rate", path), "arrivals", "12/h, 0.5/m or 3/s",
                            &a->rate_per_us)))
            return rc;
        if (prof && (rc = profile(d, prof, gs_scn_path(p, "%s.profile", path), a)))
            return rc;
    }
    if (a->until_horizon)
        a->count = open_count(a, sc->horizon);
    return 0;
}

/* ------------------------------------------------------------------ duration */

/* The most values an empirical duration holds (a list or a CSV column), and the largest CSV. */
#define GS_EMPIRICAL_MAX 1000000
#define GS_SCN_EMPIRICAL_LIMIT ((size_t)64 << 20)

/* One duration cell of an empirical CSV column: a number in `unit_us` (> 0), or with no unit
 * a Go duration ("1h30m"); into *out µs. False when it is neither or negative. */
static bool csv_duration(const char *cell, double unit_us, gs_time *out)
{
    if (!cell[0])
        return false;
    if (unit_us <= 0) {
        int64_t v;
        if (gs_duration_parse(cell, &v) || v < 0)
            return false;
        *out = v;
        return true;
    }
    /* a plain decimal number: digits, at most one point, an optional exponent (strtod alone
     * would also take blanks, hex, inf and nan) */
    const char *q = cell;
    bool digits = false;
    while (*q >= '0' && *q <= '9')
        q++, digits = true;
    if (*q == '.')
        for (q++; *q >= '0' && *q <= '9'; q++)
            digits = true;
    if (digits && (*q == 'e' || *q == 'E')) {
        q += q[1] == '+' || q[1] == '-' ? 2 : 1;
        if (!(*q >= '0' && *q <= '9'))
            return false;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (!digits || *q)
        return false;
    char *end;
    double v = strtod(cell, &end);
    if (end == cell || *end || !(v >= 0) || v * unit_us > 9.0e18)
        return false;
    *out = (gs_time)llround(v * unit_us);
    return true;
}

/* Split the next CSV record of `*s` (RFC 4180: comma-separated, fields optionally in double
 * quotes with "" for a quote) into fields written over the text in place; `*line` counts lines
 * and `cols` gets each field's 1-based column. Returns the number of fields (0 at the end), or
 * -1 for an unterminated quote. */
static int csv_record(char **s, int *line, char **fields, int *cols, int max)
{
    char *p = *s;
    if (!*p)
        return 0;
    int n = 0;
    char *line_start = p;
    for (;;) {
        char *out = p, *f = p;
        int col = (int)(p - line_start) + 1;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p)
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    if (*p == '\n')
                        (*line)++, line_start = p + 1;
                    *out++ = *p++;
                }
            }
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                *out++ = *p++;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                out++, p++;
        }
        char end = *p;
        *out = '\0';
        if (n < max) {
            fields[n] = f;
            cols[n] = col;
        }
        n++;
        if (end == ',') {
            p++;
            continue;
        }
        /* (the terminator itself may be overwritten by the field's NUL: use `end`) */
        if (end == '\r') {
            p++;
            if (*p == '\n')
                p++;
        } else if (end == '\n') {
            p++;
        }
        (*line)++;
        break;
    }
    *s = p;
    return n;
}

/* duration {distribution: empirical, file: F, column: C, unit: U}: the cells of column C of
 * the CSV F (relative to the scenario's directory; a header row names the columns), each a
 * number of U (us, ms, s, m, h) or, without unit, a Go duration. Errors name F:line:column. */
static int empirical_csv(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_duration_dist *dd)
{
    static const char *const units[] = {"us", "ms", "s", "m", "h", NULL};
    static const double unit_us[] = {1, 1e3, 1e6, 60e6, 3600e6};
    char p[GS_SCN_PATH];
    const struct gs_ynode *fn = gs_y_get(n, "file"), *cn = gs_y_get(n, "column"), *un = gs_y_get(n, "unit");
    const char *file, *column;
    int rc;
    if ((rc = gs_y_kstr(d, fn, gs_scn_path(p, "%s.file", path), &file)) ||
        (rc = gs_y_kstr(d, cn, gs_scn_path(p, "%s.column", path), &column)))
        return rc;
    double unit = 0;
    if (un && !gs_y_is_null(un)) {
        int k;
        if ((rc = gs_y_enum(d, un, gs_scn_path(p, "%s.unit", path), units, &k)))
            return rc;
        unit = unit_us[k];
    }
    const char *full = file[0] == '/' || !d->dir || !d->dir[0] ? gs_arena_strdup(d->arena, file)
                                                               : gs_arena_printf(d->arena, "%s/%s", d->dir, file);
    if (!full)
        return gs_y_nomem(d, fn);
    char *text = NULL;
    size_t len = 0;
    struct gs_error ferr = {0};
    rc = gs_read_input(full, "an empirical duration CSV", GS_SCN_EMPIRICAL_LIMIT, &text, &len, &ferr);
    if (rc == GS_ENOMEM)
        return gs_y_nomem(d, fn);
    if (rc)
        return gs_y_error(d, fn, "cannot read the CSV '%s' of %s: %s", file, path, ferr.msg);
    char *s = text;
    if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF)
        s += 3; /* a UTF-8 byte order mark */
    enum { MAXF = 256 };
    char *fields[MAXF];
    int cols[MAXF], line = 1, at = -1;
    int nh = csv_record(&s, &line, fields, cols, MAXF);
    if (nh <= 0) {
        gs_free(text);
        return gs_error_set(d->err, GS_EINVAL, full, 1, 1, "the CSV of %s is empty (it needs a header row "
                            "naming the column '%s')", path, column);
    }
    for (int i = 0; i < nh && i < MAXF; i++)
        if (strcmp(fields[i], column) == 0) {
            at = i;
            break;
        }
    if (at < 0) {
        gs_free(text);
        return gs_y_error(d, cn, "%s.column: the header row of '%s' has no column '%s'", path, file, column);
    }
    gs_time *v = NULL;
    int cap = 0, nv = 0;
    rc = 0;
    for (;;) {
        int row = line;
        int nf = csv_record(&s, &line, fields, cols, MAXF);
        if (nf == 0)
            break;
        if (nf < 0) {
            rc = gs_error_set(d->err, GS_EINVAL, full, row, 1, "a quoted field does not end (the CSV of %s)", path);
            break;
        }
        if (nf == 1 && !fields[0][0])
            continue; /* a blank line */
        if (at >= nf || at >= MAXF) {
            rc = gs_error_set(d->err, GS_EINVAL, full, row, 1, "the row has %d fields, too few for column '%s' "
                              "(field %d; the CSV of %s)", nf, column, at + 1, path);
            break;
        }
        gs_time x;
        if (!csv_duration(fields[at], unit, &x)) {
            rc = gs_error_set(d->err, GS_EINVAL, full, row, cols[at],
                              "invalid duration '%.60s' in column '%s' (the CSV of %s): expected %s", fields[at], column,
                              path,
                              unit > 0 ? "a number from 0, in the unit the scenario gives (unit:)"
                                       : "a Go duration such as 90s or 1h30m (or give unit: s for plain numbers)");
            break;
        }
        if (nv >= GS_EMPIRICAL_MAX) {
            rc = gs_error_set(d->err, GS_EINVAL, full, row, 1, "more than %d values in the CSV of %s; an empirical "
                              "duration takes at most %d", GS_EMPIRICAL_MAX, path, GS_EMPIRICAL_MAX);
            break;
        }
        if (GS_GROW(v, cap, nv + 1)) {
            rc = gs_y_nomem(d, fn);
            break;
        }
        v[nv++] = x;
    }
    gs_free(text);
    if (!rc && nv == 0)
        rc = gs_y_error(d, fn, "the CSV '%s' of %s has no values in column '%s'", file, path, column);
    if (!rc) {
        gs_time *keep = gs_arena_alloc(d->arena, sizeof *keep * (size_t)nv);
        if (!keep)
            rc = gs_y_nomem(d, fn);
        else {
            memcpy(keep, v, sizeof *keep * (size_t)nv);
            dd->values = keep;
            dd->nvalues = nv;
        }
    }
    gs_free(v);
    return rc;
}

/* duration {distribution: empirical, values: [...]} or {..., file, column, unit}. */
static int empirical(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_duration_dist *dd)
{
    char p[GS_SCN_PATH];
    const struct gs_ynode *vn = gs_y_get(n, "values"), *fn = gs_y_get(n, "file");
    dd->kind = GS_DIST_EMPIRICAL;
    if (vn && fn)
        return gs_y_error(d, fn, "%s takes values (a list) or file (a CSV), not both", path);
    if (!vn && !fn)
        return gs_y_error(d, n, "missing required field 'values' or 'file' in %s (distribution empirical)", path);
    if (fn) {
        if (!gs_y_get(n, "column"))
            return gs_y_error(d, n, "missing required field 'column' in %s (the CSV column of the durations)", path);
        return empirical_csv(d, n, path, dd);
    }
    const char *bad = gs_y_get(n, "column") ? "column" : gs_y_get(n, "unit") ? "unit" : NULL;
    if (bad)
        return gs_y_error(d, gs_y_get(n, bad), "'%s' in %s goes with file (a CSV), not with values", bad, path);
    int rc;
    if ((rc = gs_y_want_seq(d, vn, gs_scn_path(p, "%s.values", path))))
        return rc;
    if (vn->n == 0)
        return gs_y_error(d, vn, "%s.values is empty: give at least one duration", path);
    if (vn->n > GS_EMPIRICAL_MAX)
        return gs_y_error(d, vn, "%s.values has %d values; an empirical duration takes at most %d", path, vn->n,
                          GS_EMPIRICAL_MAX);
    gs_time *v = gs_arena_alloc(d->arena, sizeof *v * (size_t)vn->n);
    if (!v)
        return gs_y_nomem(d, vn);
    for (int i = 0; i < vn->n; i++)
        if ((rc = gs_y_duration(d, vn->items[i], gs_scn_path(p, "%s.values[%d]", path, i), false, &v[i])))
            return rc;
    dd->values = v;
    dd->nvalues = vn->n;
    return 0;
}

static int duration(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_duration_dist *dd)
{
    static const char *const keys[] = {"distribution", "value", "mean", "median", "sigma", "min",
                                       "max", "values", "file", "column", "unit", NULL};
    static const char *const required[] = {"distribution", NULL};
    static const char *const dists[] = {"fixed", "exponential", "lognormal", "uniform", "empirical", NULL};
    /* The parameters each distribution takes. */
    static const char *const params[5][5] = {{"value", NULL},
                                             {"mean", NULL},
                                             {"median", "sigma", NULL},
                                             {"min", "max", NULL},
                                             {"values", "file", "column", "unit", NULL}};
    static const char *const takes[5] = {"value", "mean", "median and sigma", "min and max",
                                         "values, or file, column and unit"};
    char p[GS_SCN_PATH];
    memset(dd, 0, sizeof *dd);
    dd->kind = GS_DIST_NONE;
    if (!n || gs_y_is_null(n))
        return 0; /* runs until deleted */
    int rc;
    if (n->type == GS_Y_SCALAR) {
        dd->kind = GS_DIST_FIXED;
        return gs_y_duration(d, n, path, false, &dd->fixed);
    }
    if ((rc = gs_y_check_map(d, n, path, keys, NULL, required)))
        return rc;
    int k;
    if ((rc = gs_y_enum(d, gs_y_get(n, "distribution"), gs_scn_path(p, "%s.distribution", path), dists, &k)))
        return rc;
    for (int i = 0; i < n->n; i++) {
        const char *key = n->pairs[i].key->text;
        if (strcmp(key, "distribution") == 0)
            continue;
        bool ok = false;
        for (int j = 0; params[k][j]; j++)
            ok = ok || strcmp(key, params[k][j]) == 0;
        if (!ok)
            return gs_y_error(d, n->pairs[i].key, "'%s' in %s does not go with distribution %s (it takes %s)", key,
                              path, dists[k], takes[k]);
    }
    if (k == 4)
        return empirical(d, n, path, dd);
    for (int j = 0; params[k][j]; j++)
        if (!gs_y_get(n, params[k][j]))
            return gs_y_error(d, n, "missing required field '%s' in %s (distribution %s)", params[k][j], path,
                              dists[k]);
    switch (k) {
    case 0:
        dd->kind = GS_DIST_FIXED;
        return gs_y_duration(d, gs_y_get(n, "value"), gs_scn_path(p, "%s.value", path), false, &dd->fixed);
    case 1:
        dd->kind = GS_DIST_EXPONENTIAL;
        if ((rc = gs_y_duration(d, gs_y_get(n, "mean"), gs_scn_path(p, "%s.mean", path), false, &dd->mean)))
            return rc;
        if (dd->mean <= 0)
            return gs_y_error(d, gs_y_get(n, "mean"), "%s.mean must be longer than 0s", path);
        return 0;
    case 3:
        dd->kind = GS_DIST_UNIFORM;
        if ((rc = gs_y_duration(d, gs_y_get(n, "min"), gs_scn_path(p, "%s.min", path), false, &dd->min)) ||
            (rc = gs_y_duration(d, gs_y_get(n, "max"), gs_scn_path(p, "%s.max", path), false, &dd->max)))
            return rc;
        if (dd->min < 0)
            return gs_y_error(d, gs_y_get(n, "min"), "%s.min must not be negative", path);
        if (dd->max <= dd->min)
            return gs_y_error(d, gs_y_get(n, "max"), "%s.max (%s) must be longer than min (%s)", path,
                              gs_y_get(n, "max")->text, gs_y_get(n, "min")->text);
        return 0;
    default:
        dd->kind = GS_DIST_LOGNORMAL;
        if ((rc = gs_y_duration(d, gs_y_get(n, "median"), gs_scn_path(p, "%s.median", path), false, &dd->median)))
            return rc;
        if (dd->median <= 0)
            return gs_y_error(d, gs_y_get(n, "median"), "%s.median must be longer than 0s", path);
        if ((rc = gs_y_double(d, gs_y_get(n, "sigma"), gs_scn_path(p, "%s.sigma", path), &dd->sigma)))
            return rc;
        if (dd->sigma < 0 || dd->sigma > 100)
            return gs_y_error(d, gs_y_get(n, "sigma"), "%s.sigma must be between 0 and 100", path);
        return 0;
    }
}

/* arrival, duration and startLatency: common to plain and manifest entries. */
static int timing(struct gs_ydec *d, const struct gs_ynode *e, const char *path, const struct gs_scenario *sc,
                  struct gs_workload *w)
{
    char p[GS_SCN_PATH];
    int rc = arrival(d, gs_y_get(e, "arrival"), gs_scn_path(p, "%s.arrival", path), sc, &w->arrival);
    if (rc)
        return rc;
    if ((rc = duration(d, gs_y_get(e, "duration"), gs_scn_path(p, "%s.duration", path), &w->duration)))
        return rc;
    w->start_latency = -1;
    w->group_timeout_us = -1;
    const struct gs_ynode *sl = gs_y_get(e, "startLatency");
    if (sl && !gs_y_is_null(sl))
        return gs_y_duration(d, sl, gs_scn_path(p, "%s.startLatency", path), false, &w->start_latency);
    return 0;
}

/* ------------------------------------------------------------------ gpusPerPod */

#define GS_GPUS_PER_POD_MAX 1024 /* GPUs one pod may ask for through gpusPerPod */
#define GS_GPU_CHOICES_MAX 1025  /* distinct counts (the range form 0..1024 at most) */

/* True when container list `seq` of a template's spec has a container whose requests or limits
 * name resource `res`; *which gets the index of the first such container and *count their
 * number. */
static void containers_asking(const struct gs_ynode *seq, const char *res, int *which, int *count)
{
    *which = -1;
    *count = 0;
    if (!seq || seq->type != GS_Y_SEQ)
        return;
    for (int i = 0; i < seq->n; i++) {
        const struct gs_ynode *r = gs_y_get(seq->items[i], "resources");
        if (gs_y_get(gs_y_get(r, "requests"), res) || gs_y_get(gs_y_get(r, "limits"), res)) {
            if (*which < 0)
                *which = i;
            (*count)++;
        }
    }
}

/* The template of workload `w` with `gpus` nvidia.com/gpu (request and limit) in the container
 * that asks for them (arena). */
static const struct gs_pod_template *gpu_variant(struct gs_ydec *d, const struct gs_workload *w, int gpu_res,
                                                 int gpus)
{
    struct gs_pod_template *t = gs_arena_alloc(d->arena, sizeof *t);
    if (!t)
        return NULL;
    *t = w->tmpl;
    /* One regular container has the GPUs and no init container asks (gpus_per_pod checks): the
     * pod's request is that container's, and so is the largest per-container request. */
    t->requests.v[gpu_res] = gpus;
    t->limits.v[gpu_res] = gpus;
    t->container_max.v[gpu_res] = gpus;
    return t;
}

/* gpusPerPod of a plain workload: a count (2), a uniform integer range ({min: 1, max: 8}) or
 * weighted choices ({choices: [{value: 1, weight: 4}, ...]}). Sets w->gpu_choices with one
 * template per count. The container that gets the count: the one container of the template
 * that asks for nvidia.com/gpu, else the first container. */
static int gpus_per_pod(struct gs_ydec *d, const struct gs_ynode *n, const struct gs_ynode *e, const char *path,
                        struct gs_workload *w)
{
    static const char *const keys[] = {"choices", "min", "max", NULL};
    static const char *const choice_keys[] = {"value", "weight", NULL};
    static const char *const choice_required[] = {"value", NULL};
    char p[GS_SCN_PATH];
    int rc;
    /* What the template asks for that a count of whole GPUs cannot stand for. */
    const struct gs_ynode *tspec = gs_y_get(gs_y_get(e, "template"), "spec");
    if (w->tmpl.claims)
        return gs_y_error(d, n, "%s: the template asks for devices through resourceClaims (DRA); gpusPerPod sets "
                                "the count of nvidia.com/gpu and goes with templates that ask for whole GPUs or none",
                          path);
    for (int r = 0; r < d->world->res.n; r++) {
        const char *name = d->world->res.names[r];
        if (strncmp(name, "nvidia.com/", 11) == 0 && strcmp(name, "nvidia.com/gpu") != 0 &&
            (w->tmpl.requests.v[r] || w->tmpl.limits.v[r]))
            return gs_y_error(d, n, "%s: the template asks for %s (a MIG or shared GPU resource); gpusPerPod sets "
                                    "the count of whole nvidia.com/gpu and cannot apply to it",
                              path, name);
    }
    if (gs_labels_get(&w->tmpl.annotations, GS_GPU_MILLI_ANNOTATION))
        return gs_y_error(d, n, "%s: the template has the fractional GPU annotation " GS_GPU_MILLI_ANNOTATION
                                "; gpusPerPod sets a count of whole GPUs and cannot apply to it",
                          path);
    if (gs_labels_get(&w->tmpl.labels, "kueue.x-k8s.io/queue-name"))
        return gs_y_error(d, n, "%s: the template carries kueue.x-k8s.io/queue-name; Kueue admits a workload's "
                                "pods as one pod set of one shape, so gpusPerPod cannot vary it",
                          path);
    int which, asking, init_which, init_asking;
    containers_asking(gs_y_get(tspec, "containers"), "nvidia.com/gpu", &which, &asking);
    containers_asking(gs_y_get(tspec, "initContainers"), "nvidia.com/gpu", &init_which, &init_asking);
    if (asking > 1 || init_asking > 0)
        return gs_y_error(d, n, "%s: %s of the template ask for nvidia.com/gpu; gpusPerPod sets the count of one "
                                "container (the one that asks for GPUs, else the first), so at most one regular "
                                "container and no init container may ask",
                          path, init_asking ? "init containers" : "several containers");
    int gpu_res = gs_res_intern(&d->world->res, d->arena, "nvidia.com/gpu");
    if (gpu_res < 0)
        return gs_y_error(d, n, "%s: too many distinct resources in the scenario", path);

    int nch = 0;
    struct gs_gpu_choice *ch = NULL;
    if (n->type == GS_Y_SCALAR) {
        int64_t v;
        if ((rc = gs_y_int(d, n, path, 0, GS_GPUS_PER_POD_MAX, &v)))
            return rc;
        if (!(ch = gs_arena_alloc(d->arena, sizeof *ch)))
            return gs_y_nomem(d, n);
        ch[0] = (struct gs_gpu_choice){.gpus = (int)v, .weight = 1};
        nch = 1;
    } else {
        if ((rc = gs_y_check_map(d, n, path, keys, NULL, NULL)))
            return rc;
        const struct gs_ynode *cs = gs_y_get(n, "choices"), *mn = gs_y_get(n, "min"), *mx = gs_y_get(n, "max");
        if (cs && (mn || mx))
            return gs_y_error(d, mn ? mn : mx, "%s takes choices or min and max (a uniform range), not both", path);
        if (cs) {
            if ((rc = gs_y_want_seq(d, cs, gs_scn_path(p, "%s.choices", path))))
                return rc;
            if (cs->n == 0 || cs->n > 64)
                return gs_y_error(d, cs, "%s.choices has %d entries: give 1 to 64", path, cs->n);
            if (!(ch = gs_arena_alloc(d->arena, sizeof *ch * (size_t)cs->n)))
                return gs_y_nomem(d, cs);
            for (int i = 0; i < cs->n; i++) {
                char cp[GS_SCN_PATH];
                const struct gs_ynode *c = cs->items[i];
                gs_scn_path(cp, "%s.choices[%d]", path, i);
                if ((rc = gs_y_check_map(d, c, cp, choice_keys, NULL, choice_required)))
                    return rc;
                int64_t v;
                if ((rc = gs_y_int(d, gs_y_get(c, "value"), gs_scn_path(p, "%s.value", cp), 0, GS_GPUS_PER_POD_MAX,
                                   &v)))
                    return rc;
                for (int j = 0; j < i; j++)
                    if (ch[j].gpus == v)
                        return gs_y_error(d, gs_y_get(c, "value"), "%s.value %lld is already choices[%d]; give each "
                                                                    "count once with its whole weight",
                                          cp, (long long)v, j);
                double wt = 1;
                const struct gs_ynode *wn = gs_y_get(c, "weight");
                if (wn && (rc = gs_y_double(d, wn, gs_scn_path(p, "%s.weight", cp), &wt)))
                    return rc;
                if (!(wt > 0) || wt > 1e9)
                    return gs_y_error(d, wn, "%s.weight must be above 0 (at most 1e9), got %s", cp, wn->text);
                ch[i] = (struct gs_gpu_choice){.gpus = (int)v, .weight = wt};
            }
            nch = cs->n;
        } else {
            if (!mn || !mx)
                return gs_y_error(d, n, "%s needs choices, or min and max (a uniform integer range)", path);
            int64_t lo, hi;
            if ((rc = gs_y_int(d, mn, gs_scn_path(p, "%s.min", path), 0, GS_GPUS_PER_POD_MAX, &lo)) ||
                (rc = gs_y_int(d, mx, gs_scn_path(p, "%s.max", path), 0, GS_GPUS_PER_POD_MAX, &hi)))
                return rc;
            if (hi < lo)
                return gs_y_error(d, mx, "%s.max (%lld) must be at least min (%lld)", path, (long long)hi,
                                  (long long)lo);
            nch = (int)(hi - lo + 1);
            if (!(ch = gs_arena_alloc(d->arena, sizeof *ch * (size_t)nch)))
                return gs_y_nomem(d, n);
            for (int i = 0; i < nch; i++)
                ch[i] = (struct gs_gpu_choice){.gpus = (int)lo + i, .weight = 1};
        }
    }
    (void)which;
    for (int i = 0; i < nch; i++)
        if (!(ch[i].tmpl = gpu_variant(d, w, gpu_res, ch[i].gpus)))
            return gs_y_nomem(d, n);
    w->gpu_choices = ch;
    w->ngpu_choices = nch;
    return 0;
}

/* ------------------------------------------------------------------ entries */

static int plain(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_scenario *sc,
                 struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"name",         "replicas", "arrival",  "duration",
                                       "startLatency", "group",    "template", "priorityClassName",
                                       "gpusPerPod",   NULL};
    static const char *const required[] = {"name", "template", NULL};
    static const char *const group_keys[] = {"minMember", "scheduleTimeoutSeconds", NULL};
    static const char *const group_required[] = {"minMember", NULL};
    static const char *const group_unsupported[] = {"minResources", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, e, path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *nn = gs_y_get(e, "name");
    if ((rc = gs_y_str(d, nn, gs_scn_path(p, "%s.name", path), &w->name)))
        return rc;
    if (!gs_scn_is_dns_label(w->name) || strlen(w->name) > 50)
        return gs_y_error(d, nn,
                          "invalid workload name '%s' at %s.name: must be a DNS-1123 label of at most 50 "
                          "characters (lowercase alphanumerics and '-'), as its pods are named <name>-<index>",
                          w->name, path);
    *name_node = nn;
    w->kind = GS_WL_PLAIN;
    w->replicas = 1;
    const struct gs_ynode *v;
    if ((v = gs_y_get(e, "replicas"))) {
        int64_t r;
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.replicas", path), 0, GS_MAX_REPLICAS, &r)))
            return rc;
        w->replicas = (int)r;
    }
    if ((rc = timing(d, e, path, sc, w)))
        return rc;
    if ((v = gs_y_get(e, "group")) && !gs_y_is_null(v)) {
        char gp[GS_SCN_PATH];
        gs_scn_path(gp, "%s.group", path);
        if ((rc = gs_y_check_map(d, v, gp, group_keys, group_unsupported, group_required)))
            return rc;
        int64_t m;
        if ((rc = gs_y_int(d, gs_y_get(v, "minMember"), gs_scn_path(p, "%s.minMember", gp), 1, GS_MAX_REPLICAS,
                           &m)))
            return rc;
        w->group_min_member = (int)m;
        const struct gs_ynode *t = gs_y_get(v, "scheduleTimeoutSeconds");
        int64_t secs = 0;
        /* PodGroupSpec.ScheduleTimeoutSeconds is an *int32 of seconds. */
        if (t && !gs_y_is_null(t) &&
            (rc = gs_y_int(d, t, gs_scn_path(p, "%s.scheduleTimeoutSeconds", gp), 1, INT32_MAX, &secs)))
            return rc;
        w->group_timeout_us = t && !gs_y_is_null(t) ? secs * 1000000 : -1;
    }
    /* The pod named in admission messages: the first one the workload makes. */
    int64_t npods = (int64_t)w->replicas * w->arrival.count;
    const char *pod = npods == 1 ? w->name : gs_arena_printf(d->arena, "%s-0", w->name);
    if (!pod)
        return gs_y_nomem(d, e);
    /* priorityClassName on the entry: a shorthand for the template's (as the cases write it). */
    const struct gs_ynode *pcn = gs_y_get(e, "priorityClassName");
    const char *pc_name;
    if (!gs_y_is_null(pcn) && (rc = gs_y_kstr(d, pcn, gs_scn_path(p, "%s.priorityClassName", path), &pc_name)))
        return rc;
    struct gs_podspec_ctx c = {
        .path = gs_scn_path(p, "%s.template", path),
        .api_prefix = "spec.",
        .pod_name = pod,
        .scheduler_name = sc->sched.scheduler_name,
        .priority_class = gs_y_is_null(pcn) ? NULL : pcn,
    };
    if ((rc = gs_scn_pod_template(d, gs_y_get(e, "template"), &c, &w->tmpl)))
        return rc;
    const struct gs_ynode *g = gs_y_get(e, "gpusPerPod");
    if (g && !gs_y_is_null(g))
        return gpus_per_pod(d, g, e, gs_scn_path(p, "%s.gpusPerPod", path), w);
    return 0;
}

static int pod_manifest(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_scenario *sc,
                        struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
    static const char *const required[] = {"metadata", "spec", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *meta = gs_y_get(m, "metadata");
    gs_scn_path(p, "%s.metadata", path);
    if ((rc = gs_scn_metadata(d, meta, p, true, &w->name, name_node, &w->tmpl.labels, &w->tmpl.annotations)))
        return rc;
    if (!gs_scn_is_dns_subdomain(w->name))
        return gs_y_error(d, *name_node, "invalid Pod name '%s' at %s.name: must be a DNS-1123 subdomain", w->name,
                          p);
    if ((rc = gs_scn_kueue_queue_label(d, meta, p, w->name, sc)))
        return rc;
    w->kind = GS_WL_POD;
    w->api_kind = "Pod";
    w->api_group = "";
    w->replicas = 1;
    struct gs_podspec_ctx c = {
        .path = gs_scn_path(p, "%s.spec", path),
        .api_prefix = "spec.",
        .pod_name = w->name,
        .scheduler_name = sc->sched.scheduler_name,
    };
    return gs_scn_pod_spec(d, gs_y_get(m, "spec"), &c, &w->tmpl);
}

static int job_manifest(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_scenario *sc,
                        struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
    static const char *const required[] = {"metadata", "spec", NULL};
    static const char *const spec_keys[] = {"parallelism",
                                            "completions",
                                            "backoffLimit",
                                            "template",
                                            "completionMode",
                                            "activeDeadlineSeconds",
                                            "ttlSecondsAfterFinished",
                                            "suspend",
                                            "selector",
                                            "manualSelector",
                                            NULL};
    static const char *const spec_unsupported[] = {"podFailurePolicy",     "backoffLimitPerIndex", "maxFailedIndexes",
                                                   "podReplacementPolicy", "successPolicy",        "managedBy",
                                                   NULL};
    static const char *const spec_required[] = {"template", NULL};
    static const char *const modes[] = {"NonIndexed", "Indexed", NULL};
    char p[GS_SCN_PATH], sp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *meta = gs_y_get(m, "metadata");
    gs_scn_path(p, "%s.metadata", path);
    if ((rc = gs_scn_metadata(d, meta, p, true, &w->name, name_node, NULL, NULL)))
        return rc;
    if (!gs_scn_is_dns_subdomain(w->name) || strlen(w->name) > 63)
        return gs_y_error(d, *name_node,
                          "invalid Job name '%s' at %s.name: must be a DNS-1123 subdomain of at most 63 "
                          "characters (it becomes the job-name label of its pods)",
                          w->name, p);
    if ((rc = gs_scn_kueue_queue_label(d, meta, p, w->name, sc)))
        return rc;
    w->kind = GS_WL_JOB;
    w->api_kind = "Job";
    w->api_group = "batch";

    const struct gs_ynode *spec = gs_y_get(m, "spec");
    gs_scn_path(sp, "%s.spec", path);
    if ((rc = gs_y_check_map(d, spec, sp, spec_keys, spec_unsupported, spec_required)))
        return rc;
    /* pkg/apis/batch/v1/defaults.go SetDefaults_Job. */
    const struct gs_ynode *pn = gs_y_get(spec, "parallelism"), *cn = gs_y_get(spec, "completions");
    const struct gs_ynode *bn = gs_y_get(spec, "backoffLimit"), *v;
    if (pn && gs_y_is_null(pn))
        pn = NULL;
    if (cn && gs_y_is_null(cn))
        cn = NULL;
    int64_t x;
    w->parallelism = 1;
    w->completions = pn ? -1 : 1;
    w->backoff_limit = 6;
    if (pn) {
        if ((rc = gs_y_int(d, pn, gs_scn_path(p, "%s.parallelism", sp), 0, GS_MAX_REPLICAS, &x)))
            return rc;
        w->parallelism = (int)x;
    }
    if (cn) {
        if ((rc = gs_y_int(d, cn, gs_scn_path(p, "%s.completions", sp), 0, GS_MAX_REPLICAS, &x)))
            return rc;
        w->completions = (int)x;
    }
    if (bn && !gs_y_is_null(bn)) {
        if ((rc = gs_y_int(d, bn, gs_scn_path(p, "%s.backoffLimit", sp), 0, INT32_MAX, &x)))
            return rc;
        w->backoff_limit = (int)x;
    }
    if ((v = gs_y_get(spec, "completionMode")) && !gs_y_is_null(v)) {
        int mode;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.completionMode", sp), modes, &mode)))
            return rc;
    }
    if ((v = gs_y_get(spec, "suspend")) && !gs_y_is_null(v)) {
        bool b;
        if ((rc = gs_y_bool(d, v, gs_scn_path(p, "%s.suspend", sp), &b)))
            return rc;
        if (b)
            return gs_y_unsupported(d, v, gs_scn_path(p, "%s.suspend: true", sp));
    }
    /* The pods the controller makes at first: min(parallelism, completions). */
    w->replicas = w->completions >= 0 && w->completions < w->parallelism ? w->completions : w->parallelism;

    struct gs_podspec_ctx c = {
        .path = gs_scn_path(p, "%s.template", sp),
        .api_prefix = "spec.template.spec.",
        .pod_name = w->name,
        .scheduler_name = sc->sched.scheduler_name,
    };
    const struct gs_ynode *tmpl = gs_y_get(spec, "template");
    if ((rc = gs_scn_pod_template(d, tmpl, &c, &w->tmpl)))
        return rc;
    /* pkg/apis/batch/validation: a Job's pods restart OnFailure or Never; the Pod default,
     * Always, is refused. */
    if (c.restart_policy != GS_RESTART_ON_FAILURE && c.restart_policy != GS_RESTART_NEVER) {
        const struct gs_ynode *at = c.restart_policy_node ? c.restart_policy_node : gs_y_get(tmpl, "spec");
        return gs_y_error(d, at,
                          "%s.spec.restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", "
                          "\"Never\" (a Job's pods need restartPolicy OnFailure or Never%s)",
                          c.path, c.restart_policy_node ? "" : "; the Pod default is Always");
    }
    /* The Job controller labels its pods with the Job's name (uid labels are left out). */
    if (gs_labels_set(&w->tmpl.labels, d->arena, "batch.kubernetes.io/job-name", w->name) ||
        gs_labels_set(&w->tmpl.labels, d->arena, "job-name", w->name))
        return gs_y_nomem(d, m);
    return 0;
}

static int manifest(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_scenario *sc,
                    struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"manifest", "arrival", "duration", "startLatency", NULL};
    static const char *const later[] = {"Deployment", "ResourceClaimTemplate", NULL};
    static const char *const kinds[] = {"Pod",      "Job",      "Deployment",           "PodGroup",
                                        "LeaderWorkerSet", "ResourceClaimTemplate", NULL};
    char p[GS_SCN_PATH], mp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, e, path, keys, NULL, NULL);
    if (rc)
        return rc;
    gs_scn_path(mp, "%s.manifest", path);
    const struct gs_ynode *m = gs_y_get(e, "manifest");
    if (m && m->type == GS_Y_SCALAR && !gs_y_is_null(m)) {
        /* A file, relative to the scenario's directory. */
        const char *file = m->text;
        if (!file[0])
            return gs_y_error(d, m, "%s is empty: give a file (relative to the scenario) or an inline object", mp);
        const char *full = file[0] == '/' || !d->dir || !d->dir[0] ? gs_arena_strdup(d->arena, file)
                                                                   : gs_arena_printf(d->arena, "%s/%s", d->dir, file);
        if (!full)
            return gs_y_nomem(d, m);
        struct gs_ynode *root = NULL;
        rc = gs_yaml_load_file(full, "a workload manifest", GS_SCN_MANIFEST_LIMIT, d->arena, &root, d->err);
        if (rc == GS_EIO) {
            char why[sizeof d->err->msg];
            snprintf(why, sizeof why, "%s", d->err->msg);
            return gs_y_error(d, m, "cannot read the manifest '%s' of %s: %s", file, path, why);
        }
        if (rc)
            return rc;
        if (!root || gs_y_is_null(root))
            return gs_y_error(d, m, "the manifest '%s' of %s is empty", file, path);
        m = root;
    }
    if ((rc = gs_y_want_map(d, m, mp)))
        return rc;
    const struct gs_ynode *av = gs_y_get(m, "apiVersion"), *kv = gs_y_get(m, "kind");
    const char *api, *kind;
    if (!kv)
        return gs_y_error(d, m, "missing required field 'kind' in %s", mp);
    if (!av)
        return gs_y_error(d, m, "missing required field 'apiVersion' in %s", mp);
    if ((rc = gs_y_kstr(d, kv, gs_scn_path(p, "%s.kind", mp), &kind)) ||
        (rc = gs_y_kstr(d, av, gs_scn_path(p, "%s.apiVersion", mp), &api)))
        return rc;
    for (int i = 0; later[i]; i++)
        if (strcmp(kind, later[i]) == 0)
            return gs_y_unsupported(d, kv, gs_scn_path(p, "%s kind %s", mp, kind));
    const char *want = strcmp(kind, "Pod") == 0               ? "v1"
                       : strcmp(kind, "Job") == 0             ? "batch/v1"
                       : strcmp(kind, "LeaderWorkerSet") == 0 ? "leaderworkerset.x-k8s.io/v1"
                       : strcmp(kind, "PodGroup") == 0        ? "scheduling.x-k8s.io/v1alpha1"
                                                               : NULL;
    if (!want) {
        const char *near = gs_y_suggest(kind, kinds);
        return gs_y_error(d, kv,
                          "unsupported manifest kind '%s' at %s.kind%s%s%s: a workload manifest is a v1 Pod, a "
                          "batch/v1 Job, a leaderworkerset.x-k8s.io/v1 LeaderWorkerSet or a "
                          "scheduling.x-k8s.io/v1alpha1 PodGroup (Deployment and ResourceClaimTemplate come in a "
                          "later release)",
                          kind, mp, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    }
    if (strcmp(api, want) != 0)
        return gs_y_error(d, av, "%s.apiVersion: kind %s is served as apiVersion %s, got '%s'", mp, kind, want, api);
    if ((rc = timing(d, e, path, sc, w)))
        return rc;
    if (want[0] == 'l')
        return gs_scn_lws_manifest(d, m, mp, sc, w, name_node);
    if (want[0] == 's')
        return gs_scn_podgroup_manifest(d, m, mp, w, name_node);
    return want[0] == 'v' ? pod_manifest(d, m, mp, sc, w, name_node) : job_manifest(d, m, mp, sc, w, name_node);
}

/* True when `name` is "<prefix>-<digits>" for prefix `other`: its pods' names could collide. */
static bool pod_name_clash(const char *name, const char *other)
{
    size_t n = strlen(other);
    if (strncmp(name, other, n) != 0 || name[n] != '-' || !name[n + 1])
        return false;
    for (const char *q = name + n + 1; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    return true;
}

int gs_scn_workloads(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc)
{
    struct gs_world *w = &sc->world;
    /* Workloads spec.cluster.source made (a snapshot's pods) stay first. */
    struct gs_workload *pre = w->workloads;
    int npre = w->nworkloads;
    if (!seq || gs_y_is_null(seq))
        return 0;
    int rc = gs_y_want_seq(d, seq, "spec.workloads");
    if (rc || seq->n == 0)
        return rc;
    struct gs_workload *wl = gs_arena_alloc(d->arena, sizeof *wl * (size_t)seq->n);
    const struct gs_ynode **names = gs_arena_alloc(d->arena, sizeof *names * (size_t)seq->n);
    if (!wl || !names)
        return gs_y_nomem(d, seq);
    /* Names so far: spec.cluster.source's workload j -> j, this section's entry i -> npre + i. */
    struct gs_strmap index = {0};
    for (int j = 0; j < npre && !rc; j++)
        if (gs_strmap_add(&index, pre[j].name, j, NULL) < 0)
            rc = gs_y_nomem(d, seq);
    char path[GS_SCN_PATH];
    for (int i = 0; i < seq->n && !rc; i++) {
        const struct gs_ynode *e = seq->items[i];
        gs_scn_path(path, "spec.workloads[%d]", i);
        if ((rc = gs_y_want_map(d, e, path)))
            break;
        wl[i].src_line = e->line;
        if (gs_y_get(e, "trace"))
            rc = gs_scn_trace_workload(d, e, path, sc, &wl[i], &names[i]); /* sim/scenario/podtrace.c */
        else if (gs_y_get(e, "manifest"))
            rc = manifest(d, e, path, sc, &wl[i], &names[i]);
        else
            rc = plain(d, e, path, sc, &wl[i], &names[i]);
        if (rc)
            break;
        int j, added = gs_strmap_add(&index, wl[i].name, npre + i, &j);
        if (added < 0)
            rc = gs_y_nomem(d, seq);
        else if (added == 1 && j >= npre)
            rc = gs_y_error(d, names[i], "duplicate workload name '%s' in %s (also at line %d)", wl[i].name, path,
                            names[j - npre]->line);
        else if (added == 1)
            rc = gs_y_error(d, names[i], "duplicate workload name '%s' in %s: spec.cluster.source makes it",
                            wl[i].name, path);
    }
    /* Pods are named <workload>-<index>: a workload named like another's pods would share names.
     * Only the prefix before the last '-' can be that workload (the index has no '-'). */
    for (int i = 0; i < seq->n && !rc; i++) {
        const char *dash = strrchr(wl[i].name, '-');
        int j = dash ? gs_strmap_getn(&index, wl[i].name, (size_t)(dash - wl[i].name)) - npre : -1;
        if (j >= 0 && pod_name_clash(wl[i].name, wl[j].name))
            rc = gs_y_error(d, names[i],
                            "workload name '%s' in spec.workloads[%d] clashes with the pods of workload '%s' "
                            "(line %d), which are named %s-<index>",
                            wl[i].name, i, wl[j].name, names[j]->line, wl[j].name);
    }
    gs_strmap_free(&index);
    if (rc)
        return rc;
    if (npre) {
        if (GS_ARENA_GROW(d->arena, w->workloads, w->workloads_cap, npre + seq->n))
            return gs_y_nomem(d, seq);
        memcpy(w->workloads + npre, wl, sizeof *wl * (size_t)seq->n);
    } else {
        w->workloads = wl;
        w->workloads_cap = seq->n;
    }
    w->nworkloads = npre + seq->n;
    return 0;
}

int gs_scn_duration_dist(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_duration_dist *dd)
{
    return duration(d, n, path, dd);
}
