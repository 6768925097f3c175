/* Study metric names and the per-pod statistics (sim/objective.h). */
#include "sim/objective.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "sim/scenario/yaml.h"

static const char *const stat_names[] = {"p50", "p90", "p95", "p99", "max", "mean", NULL};
static const char *const metric_names[] = {"timeToSchedule",  "timeToRunning", "pendingAtEnd", "pendingGpuHours",
                                           "utilisation",     "nodeHours",     "cost",         "gpuHoursAllocated",
                                           "incompleteGroupGpuHours", NULL};
static const char *const scope_names[] = {"", "workload", "priority", "pool", NULL};
/* every word a name may start with, for suggestions */
static const char *const all_heads[] = {"p50",          "p90",          "p95",   "p99",         "max",
                                        "mean",         "pendingAtEnd", "pendingGpuHours", "utilisation",
                                        "nodeHours",    "cost",         "gpuHoursAllocated",
                                        "incompleteGroupGpuHours", NULL};

#define SHOWN 120 /* characters of the expression quoted in an error */

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return GS_EINVAL;
}

/* Copy s[0..n) into buf (size cap) without surrounding blanks; false when it does not fit. */
static bool trimmed(const char *s, size_t n, char *buf, size_t cap)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= cap)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

static int find(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return i;
    return -1;
}

/* " (did you mean 'x'?)" or "" into buf. */
static const char *hint(const char *s, const char *const *choices, char *buf, size_t n)
{
    const char *near = gs_y_suggest(s, choices);
    if (!near || strcmp(near, s) == 0)
        return "";
    snprintf(buf, n, " (did you mean '%s'?)", near);
    return buf;
}

/* "key=value" in `arg` into o's scope, allowed when scope bit (1 << scope) is in `allowed`. */
static int parse_scope(const char *expr, const char *arg, unsigned allowed, const char *head,
                       struct gs_objective *o, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    char key[64], h[96];
    if (!eq || !trimmed(arg, (size_t)(eq - arg), key, sizeof key))
        return fail(err, errlen, "expected a scope such as workload=NAME, priority=N or pool=NAME, got '%.*s' in '%.*s'",
                    SHOWN, arg, SHOWN, expr);
    int k = find(key, scope_names);
    if (k <= 0)
        return fail(err, errlen, "unknown scope '%s' in '%.*s'%s: a scope is workload=, priority= or pool=", key,
                    SHOWN, expr, hint(key, scope_names + 1, h, sizeof h));
    if (!(allowed & (1u << k))) {
        const char *what = allowed == (1u << GS_OBJ_POOL) ? "pool=NAME"
                           : allowed ? "workload=NAME or priority=N" : "no scope";
        return fail(err, errlen, "'%s' takes %s, not %s= (in '%.*s')", head, what, key, SHOWN, expr);
    }
    if (!trimmed(eq + 1, strlen(eq + 1), o->scope_value, sizeof o->scope_value) || !o->scope_value[0])
        return fail(err, errlen, "the %s in '%.*s' is empty or longer than %d characters", key, SHOWN, expr,
                    GS_OBJ_SCOPE_MAX - 1);
    o->scope = (enum gs_obj_scope)k;
    if (o->scope == GS_OBJ_PRIORITY) {
        char *end;
        errno = 0;
        long v = strtol(o->scope_value, &end, 10);
        if (*end || errno || v < INT_MIN || v > INT_MAX)
            return fail(err, errlen, "priority '%s' in '%.*s' is not an integer", o->scope_value, SHOWN, expr);
        o->priority = (int)v;
        snprintf(o->scope_value, sizeof o->scope_value, "%d", o->priority); /* "+100" is "100" */
    }
    return 0;
}

int gs_objective_parse(const char *expr, struct gs_objective *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->scope = GS_OBJ_CLUSTER;
    if (!expr)
        return fail(err, errlen, "no metric name");
    char head[64], args[2][GS_OBJ_SCOPE_MAX + 64], h[96];
    int nargs = 0;
    const char *open = strchr(expr, '(');
    size_t len = strlen(expr);
    if (!trimmed(expr, open ? (size_t)(open - expr) : len, head, sizeof head) || !head[0])
        return fail(err, errlen, "'%.*s' is not a metric name: expected e.g. p95(timeToSchedule), pendingGpuHours or "
                    "utilisation(pool=NAME)", SHOWN, expr);
    if (open) {
        const char *close = strrchr(expr, ')');
        if (!close || close < open)
            return fail(err, errlen, "'%.*s' has '(' without ')'", SHOWN, expr);
        for (const char *c = close + 1; *c; c++)
            if (!isspace((unsigned char)*c))
                return fail(err, errlen, "unexpected '%.*s' after ')' in '%.*s'", 20, c, SHOWN, expr);
        const char *a = open + 1;
        for (;;) {
            const char *comma = memchr(a, ',', (size_t)(close - a));
            const char *stop = comma ? comma : close;
            if (nargs == 2)
                return fail(err, errlen, "too many arguments in '%.*s': at most a metric and one scope", SHOWN, expr);
            if (!trimmed(a, (size_t)(stop - a), args[nargs], sizeof args[nargs]))
                return fail(err, errlen, "an argument in '%.*s' is too long", SHOWN, expr);
            if (!args[nargs][0])
                return fail(err, errlen, "empty argument in '%.*s'", SHOWN, expr);
            nargs++;
            if (!comma)
                break;
            a = comma + 1;
        }
    }
    int s = find(head, stat_names);
    if (s >= 0) {
        if (nargs == 0)
            return fail(err, errlen, "'%s' needs a metric: %s(timeToSchedule) or %s(timeToRunning)", head, head, head);
        int m = find(args[0], metric_names);
        if (m != GS_OBJ_TIME_TO_SCHEDULE && m != GS_OBJ_TIME_TO_RUNNING) {
            static const char *const timed[] = {"timeToSchedule", "timeToRunning", NULL};
            if (m >= 0)
                return fail(err, errlen, "'%s' is one number: write '%s', not '%s(%s)'", args[0], args[0], head,
                            args[0]);
            return fail(err, errlen, "unknown metric '%s' in '%.*s'%s: %s takes timeToSchedule or timeToRunning",
                        args[0], SHOWN, expr, hint(args[0], timed, h, sizeof h), head);
        }
        o->stat = (enum gs_obj_stat)s;
        o->metric = (enum gs_obj_metric)m;
        if (nargs == 2)
            return parse_scope(expr, args[1], 1u << GS_OBJ_WORKLOAD | 1u << GS_OBJ_PRIORITY, head, o, err, errlen);
        return 0;
    }
    int m = find(head, metric_names);
    if (m < 0)
        return fail(err, errlen, "unknown metric '%s' in '%.*s'%s: expected p50, p90, p95, p99, max or mean of "
                    "timeToSchedule or timeToRunning, pendingAtEnd, pendingGpuHours, utilisation, nodeHours, cost, "
                    "gpuHoursAllocated or incompleteGroupGpuHours",
                    head, SHOWN, expr, hint(head, all_heads, h, sizeof h));
    if (m == GS_OBJ_TIME_TO_SCHEDULE || m == GS_OBJ_TIME_TO_RUNNING)
        return fail(err, errlen, "'%s' needs a statistic: p50(%s), p90, p95, p99, max or mean", head, head);
    o->stat = GS_OBJ_VALUE;
    o->metric = (enum gs_obj_metric)m;
    unsigned allowed = m == GS_OBJ_PENDING_AT_END      ? (1u << GS_OBJ_WORKLOAD | 1u << GS_OBJ_PRIORITY)
                       : m == GS_OBJ_PENDING_GPU_HOURS || m == GS_OBJ_INCOMPLETE_GROUP_GPU_HOURS ? 0u
                                                       : 1u << GS_OBJ_POOL;
    if (nargs == 2)
        return fail(err, errlen, "'%s' takes at most one scope, in '%.*s'", head, SHOWN, expr);
    if (nargs == 1)
        return parse_scope(expr, args[0], allowed, head, o, err, errlen);
    return 0;
}

bool gs_objective_is_time(const struct gs_objective *o)
{
    return o->metric == GS_OBJ_TIME_TO_SCHEDULE || o->metric == GS_OBJ_TIME_TO_RUNNING;
}

void gs_objective_format(const struct gs_objective *o, char *buf, size_t n)
{
    const char *m = metric_names[o->metric];
    const char *scope = scope_names[o->scope];
    if (o->stat != GS_OBJ_VALUE) {
        if (o->scope != GS_OBJ_CLUSTER)
            snprintf(buf, n, "%s(%s, %s=%s)", stat_names[o->stat], m, scope, o->scope_value);
        else
            snprintf(buf, n, "%s(%s)", stat_names[o->stat], m);
    } else if (o->scope != GS_OBJ_CLUSTER) {
        snprintf(buf, n, "%s(%s=%s)", m, scope, o->scope_value);
    } else {
        snprintf(buf, n, "%s", m);
    }
}

double gs_study_pick(const struct gs_stats_summary *s, enum gs_obj_stat stat)
{
    switch (stat) {
    case GS_OBJ_P50:
        return s->p50;
    case GS_OBJ_P90:
        return s->p90;
    case GS_OBJ_P95:
        return s->p95;
    case GS_OBJ_P99:
        return s->p99;
    case GS_OBJ_MAX:
        return s->max;
    case GS_OBJ_MEAN:
        return s->mean;
    case GS_OBJ_VALUE:
        break;
    }
    return NAN;
}

static int push(double **v, int *n, int *cap, double x)
{
    if (GS_GROW(*v, *cap, *n + 1))
        return GS_ENOMEM;
    (*v)[(*n)++] = x;
    return 0;
}

int gs_study_acc_add(struct gs_study_acc *a, const struct gs_study_pod *q, gs_time end_us)
{
    bool pending = q->scheduled_us < 0 && q->finished_us < 0 && !q->ended;
    /* room first, so that a failure leaves the pod out entirely */
    if ((q->scheduled_us >= 0 && GS_GROW(a->to_schedule, a->cap_sched, a->nsched + 1)) ||
        (q->started_us >= 0 && GS_GROW(a->to_running, a->cap_run, a->nrun + 1)) ||
        (pending && GS_GROW(a->age, a->cap_age, a->nage + 1)))
        return GS_ENOMEM;
    if (q->scheduled_us >= 0)
        push(&a->to_schedule, &a->nsched, &a->cap_sched, (double)(q->scheduled_us - q->created_us) / 1e6);
    if (q->started_us >= 0)
        push(&a->to_running, &a->nrun, &a->cap_run, (double)(q->started_us - q->created_us) / 1e6);
    if (pending) {
        push(&a->age, &a->nage, &a->cap_age, (double)(end_us - q->created_us) / 1e6);
        a->pending_gpus += q->gpu;
    }
    /* unbound until bound, ended or the end (a pod that ended at an unknown time, which a trace
     * never writes, counts nothing) */
    gs_time until = q->scheduled_us >= 0  ? q->scheduled_us
                    : q->finished_us >= 0 ? q->finished_us
                    : q->ended            ? q->created_us
                                          : end_us;
    if (q->gpu > 0 && until > q->created_us)
        a->gpu_us += (double)q->gpu * (double)(until - q->created_us);
    return 0;
}

void gs_study_acc_free(struct gs_study_acc *a)
{
    gs_free(a->to_schedule);
    gs_free(a->to_running);
    gs_free(a->age);
    memset(a, 0, sizeof *a);
}

void gs_study_acc_finish(struct gs_study_acc *a, struct gs_study_pods *out)
{
    memset(out, 0, sizeof *out);
    gs_stats_summarize(a->to_schedule, (size_t)a->nsched, &out->to_schedule);
    gs_stats_summarize(a->to_running, (size_t)a->nrun, &out->to_running);
    struct gs_stats_summary age;
    gs_stats_summarize(a->age, (size_t)a->nage, &age);
    out->pending = (size_t)a->nage;
    out->pending_gpus = a->pending_gpus;
    out->pending_age_mean = age.mean;
    out->pending_age_max = age.max;
    out->pending_gpu_hours = a->gpu_us / 3.6e9;
    gs_study_acc_free(a);
}

int gs_study_pods_compute(const struct gs_study_pod *p, size_t n, gs_time end_us, struct gs_study_pods *out)
{
    struct gs_study_acc a = {0};
    for (size_t i = 0; i < n; i++)
        if (gs_study_acc_add(&a, &p[i], end_us)) {
            gs_study_acc_free(&a);
            return GS_ENOMEM;
        }
    gs_study_acc_finish(&a, out);
    return 0;
}
