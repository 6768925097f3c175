/* The progress line of `gpusim run` (reports/progress.h). */
#include "reports/progress.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "models/quantity.h"

/* snprintf into buf + *k, keeping *k the length wanted so far. */
static void add(char *buf, size_t n, int *k, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t n, int *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t at = (size_t)*k < n ? (size_t)*k : n;
    int w = vsnprintf(buf ? buf + at : NULL, n - at, fmt, ap);
    va_end(ap);
    if (w > 0)
        *k += w;
}

int gs_progress_format(char *buf, size_t n, int64_t now_us, int64_t horizon_us, uint64_t events, double wall_s)
{
    if (buf && n > 0)
        buf[0] = '\0';
    char t[48], h[48];
    gs_duration_format(now_us, t, sizeof t);
    int k = 0;
    int has_horizon = horizon_us > 0 && horizon_us != INT64_MAX;
    if (has_horizon) {
        gs_duration_format(horizon_us, h, sizeof h);
        int64_t pct = now_us <= 0 ? 0 : now_us >= horizon_us ? 100 : (int64_t)((double)now_us / (double)horizon_us * 100.0);
        if (pct > 99 && now_us < horizon_us)
            pct = 99;
        add(buf, n, &k, "gpusim: %s of %s simulated (%lld%%)", t, h, (long long)pct);
    } else {
        add(buf, n, &k, "gpusim: %s simulated", t);
    }
    add(buf, n, &k, ", %llu events", (unsigned long long)events);
    if (!(wall_s > 0) || !isfinite(wall_s))
        return k;
    double rate = (double)events / wall_s;
    if (rate < 10000)
        add(buf, n, &k, ", %.0f events/s", floor(rate));
    else if (rate < 10e6)
        add(buf, n, &k, ", %.0fk events/s", floor(rate / 1e3));
    else
        add(buf, n, &k, ", %.0fM events/s", floor(rate / 1e6));
    if (has_horizon && now_us > 0) {
        int64_t left = now_us >= horizon_us ? 0 : horizon_us - now_us;
        double eta_s = wall_s * (double)left / (double)now_us;
        if (eta_s > 3.6e8) /* past 100000h: no use in a number, and no overflow */
            add(buf, n, &k, ", ETA more than 100000h");
        else {
            char e[48];
            gs_duration_format((int64_t)llround(eta_s) * 1000000, e, sizeof e);
            add(buf, n, &k, ", ETA %s", e);
        }
    }
    return k;
}
