/* gpusim plan SCENARIO --pool NAME --objective EXPR: the fewest nodes in a pool for which an
 * objective over the study metrics holds, found by bisection over simulations. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/array.h"
#include "models/quantity.h"
#include "reports/study.h"
#include "sim/autoscaler.h"
#include "sim/limits.h"
#include "sim/scenario.h"
#include "cli/cli.h"
#include "cli/studyrun.h"

static const char usage[] =
    "usage: gpusim plan SCENARIO --pool NAME --objective 'METRIC OP VALUE' [options]\n"
    "\n"
    "Find the fewest nodes in node pool NAME for which the objective holds, by bisection over\n"
    "simulations: each size is run once per seed, and it passes when the objective holds in\n"
    "every seed (or in --fraction of them). Prints the answer with the metric there and at one\n"
    "node fewer. The search assumes more nodes never make the objective worse. For a pool with\n"
    "`autoscaling:` it answers for maxSize instead of count.\n"
    "\n"
    "--objective is repeatable: a run holds when every objective does.\n"
    "\n"
    "  METRIC   p50|p90|p95|p99|max|mean(timeToSchedule|timeToRunning[, workload=W|priority=P]),\n"
    "           pendingAtEnd, pendingGpuHours, utilisation[(pool=P)], nodeHours, cost,\n"
    "           incompleteGroupGpuHours, gpuHoursAllocated\n"
    "  OP       <, <=, >, >=\n"
    "  VALUE    a duration for times (10m, 90s), else a number\n"
    "\n"
    "options:\n"
    "  --min N, --max N     the sizes searched (default: from 1 (an autoscaled pool: the larger\n"
    "                       of its count and minSize) up to the first size that passes,\n"
    "                       doubling from the scenario's count)\n"
    "  --seeds A-B|A,B,...  seeds (default: the scenario's own seed)\n"
    "  --fraction F         pass when the objective holds in at least F of the seeds (0 < F <= 1,\n"
    "                       default 1: every seed)\n"
    "  --set PATH=VALUE     override a scenario value in every run (as gpusim run), repeatable\n"
    "  --jobs N             runs in parallel processes (default: the number of CPUs)\n"
    "  --keep DIR           keep every run's trace in DIR (default: a temporary directory, removed)\n"
    "  --format text|json   (default: text)\n"
    "\n"
    "exit status: 0 an answer was found, 1 the objective does not hold even at the largest size\n"
    "searched, 2 usage error or a run that failed, 3 an invalid scenario.\n";

#define MAX_SETS 256

enum op { OP_LT, OP_LE, OP_GT, OP_GE };
static const char *const op_names[] = {"<", "<=", ">", ">="};

/* One objective: METRIC OP VALUE. */
struct objective {
    char metric[256];
    enum op op;
    double target; /* seconds for times */
};

#define MAX_OBJECTIVES 8

struct point {
    int nodes;
    int holds, runs;
    double *values; /* [objective * runs + run]; NaN when the metric was null */
    int runs_pending; /* runs that ended with pods never bound (pendingAtEnd > 0) */
    double pending_max; /* the most such pods in one run */
};

struct plan {
    const char *scenario;
    const char **sets;
    int nsets;
    struct objective obj[MAX_OBJECTIVES]; /* a run holds when every one holds */
    int nobj;
    double fraction;
    const char *seeds; /* as given to --seeds, or the scenario's own seed */
    char own_seed[32];
    int jobs;
    const char *dir;
    int autoscaled;  /* the pool is a node group: param is its maxSize */
    char param[160]; /* the --set path varied: cluster.nodePools[i].count or .autoscaling.maxSize */
    struct point *pts;
    int npts, cappts;
    int failed_run; /* a run failed: stop */
    int signal;     /* SIGINT/SIGTERM/SIGHUP stopped the runs: stop, exit 128 + it */
    int max_given;  /* --max was given (else the search stops at GS_MAX_NODES) */
};

/* `METRIC OP VALUE`: the operator is the first <, <=, > or >= outside parentheses. */
static int parse_objective(struct objective *pl, const char *s)
{
    int depth = 0;
    const char *op = NULL;
    for (const char *p = s; *p && !op; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        else if (depth == 0 && (*p == '<' || *p == '>'))
            op = p;
    }
    if (!op) {
        fprintf(stderr, "gpusim: plan: --objective '%s': expected METRIC OP VALUE, OP one of <, <=, >, >= "
                        "(e.g. 'p95(timeToSchedule) < 10m')\n", s);
        return -1;
    }
    const char *m0 = s, *m1 = op;
    while (*m0 == ' ')
        m0++;
    while (m1 > m0 && m1[-1] == ' ')
        m1--;
    if (m1 == m0 || (size_t)(m1 - m0) >= sizeof pl->metric) {
        fprintf(stderr, "gpusim: plan: --objective '%s': no metric before '%c'\n", s, *op);
        return -1;
    }
    memcpy(pl->metric, m0, (size_t)(m1 - m0));
    pl->metric[m1 - m0] = '\0';
    const char *v = op + 1;
    if (*v == '=') {
        pl->op = *op == '<' ? OP_LE : OP_GE;
        v++;
    } else {
        pl->op = *op == '<' ? OP_LT : OP_GT;
    }
    while (*v == ' ')
        v++;
    char val[64];
    size_t vl = strlen(v);
    while (vl && v[vl - 1] == ' ')
        vl--;
    if (vl == 0 || vl >= sizeof val) {
        fprintf(stderr, "gpusim: plan: --objective '%s': no value after '%s'\n", s, op_names[pl->op]);
        return -1;
    }
    memcpy(val, v, vl);
    val[vl] = '\0';
    char *end;
    errno = 0;
    double x = strtod(val, &end);
    if (!*end && !errno && isfinite(x)) {
        pl->target = x;
        return 0;
    }
    int64_t us;
    if (gs_cli_metric_is_time(pl->metric) && gs_duration_parse(val, &us) == 0) {
        pl->target = (double)us / 1e6;
        return 0;
    }
    fprintf(stderr, "gpusim: plan: --objective '%s': value '%s': expected %s\n", s, val,
            gs_cli_metric_is_time(pl->metric) ? "a duration (10m, 90s) or seconds" : "a number");
    return -1;
}

static int holds(const struct objective *pl, double v)
{
    if (isnan(v))
        return 0;
    switch (pl->op) {
    case OP_LT: return v < pl->target;
    case OP_LE: return v <= pl->target;
    case OP_GT: return v > pl->target;
    default: return v >= pl->target;
    }
}

static int passes(const struct plan *pl, const struct point *p)
{
    return p->runs > 0 && (double)p->holds >= pl->fraction * (double)p->runs - 1e-9;
}

/* Runs size `nodes` once per seed with `gpusim sweep SCENARIO --vary PARAM=nodes --seeds ...
 * -o DIR/nodes=N` and reads the metric of every trace. NULL when a run failed (the sweep's
 * output is printed) or out of memory. */
static const struct point *evaluate(struct plan *pl, int nodes)
{
    for (int i = 0; i < pl->npts; i++)
        if (pl->pts[i].nodes == nodes)
            return &pl->pts[i];
    char vary[200], jobs_s[16], *sub = NULL, *log = NULL, **paths = NULL;
    const char **args = gs_calloc((size_t)(12 + 2 * pl->nsets), sizeof *args);
    double *values = NULL;
    const struct point *res = NULL;
    int n = 0;
    size_t need = strlen(pl->dir) + 32;
    sub = gs_malloc(need);
    log = gs_malloc(need + 4);
    if (!args || !sub || !log)
        goto out;
    snprintf(vary, sizeof vary, "%s=%d", pl->param, nodes);
    snprintf(jobs_s, sizeof jobs_s, "%d", pl->jobs);
    snprintf(sub, need, "%s/nodes=%d", pl->dir, nodes);
    snprintf(log, need + 4, "%s.log", sub);
    unlink(log);
    int a = 0;
    args[a++] = "sweep";
    args[a++] = pl->scenario;
    args[a++] = "--vary";
    args[a++] = vary;
    args[a++] = "--seeds";
    args[a++] = pl->seeds;
    args[a++] = "--jobs";
    args[a++] = jobs_s;
    args[a++] = "-o";
    args[a++] = sub;
    for (int s = 0; s < pl->nsets; s++) {
        args[a++] = "--set";
        args[a++] = pl->sets[s];
    }
    int st = gs_cli_run_self(args, log);
    if (gs_cli_signal()) {
        fprintf(stderr, "gpusim: plan: stopped by signal %d; the runs were stopped\n", gs_cli_signal());
        pl->signal = gs_cli_signal();
        goto out;
    }
    if (st != 0) {
        if (st < 0)
            fprintf(stderr, "gpusim: plan: cannot start gpusim: %s\n", strerror(errno));
        else
            fprintf(stderr, "gpusim: plan: the runs with %s failed (gpusim sweep exit %d):\n", vary, st);
        gs_cli_print_log(log);
        pl->failed_run = 1;
        goto out;
    }
    n = gs_cli_list_traces(sub, &paths);
    if (n <= 0) {
        fprintf(stderr, "gpusim: plan: %s: no trace after the runs with %s\n", sub, vary);
        pl->failed_run = 1;
        n = 0;
        goto out;
    }
    values = gs_calloc((size_t)n * (size_t)pl->nobj, sizeof *values);
    if (!values)
        goto out;
    int nholds = 0, runs_pending = 0;
    double pending_max = 0;
    for (int k = 0; k < n; k++) {
        json_t *doc;
        char err[512];
        if (gs_study_open(paths[k], &doc, err, sizeof err) != 0) {
            fprintf(stderr, "gpusim: plan: %s\n", err);
            pl->failed_run = 1;
            goto out;
        }
        int all = 1, mrc = 0;
        for (int o = 0; o < pl->nobj && !mrc; o++) {
            double *v = &values[o * n + k];
            if ((mrc = gs_study_metric(doc, pl->obj[o].metric, v, err, sizeof err)) == 0)
                all &= holds(&pl->obj[o], *v);
        }
        double pend = 0;
        if (mrc == 0 && gs_study_metric(doc, "pendingAtEnd", &pend, err, sizeof err) == 0 && pend > 0) {
            runs_pending++;
            if (pend > pending_max)
                pending_max = pend;
        }
        json_decref(doc);
        if (mrc != 0) {
            fprintf(stderr, "gpusim: plan: --objective: %s\n", err);
            pl->failed_run = 1;
            goto out;
        }
        nholds += all;
    }
    if (GS_GROW(pl->pts, pl->cappts, pl->npts + 1))
        goto out;
    struct point *p = &pl->pts[pl->npts++];
    p->nodes = nodes;
    p->holds = nholds;
    p->runs = n;
    p->values = values;
    p->runs_pending = runs_pending;
    p->pending_max = pending_max;
    values = NULL;
    res = p;
    fprintf(stderr, "gpusim: plan: %s=%d: the objective%s hold%s in %d of %d run%s\n", pl->param, nodes,
            pl->nobj > 1 ? "s" : "", pl->nobj > 1 ? "" : "s", nholds, n, n == 1 ? "" : "s");
out:
    if (n > 0)
        gs_cli_free_paths(paths, n);
    gs_free(args);
    gs_free(sub);
    gs_free(log);
    gs_free(values);
    return res;
}

static void stats(const struct point *p, int o, double *mean, double *lo, double *hi)
{
    double s = 0;
    int n = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < p->runs; k++) {
        double v = p->values[o * p->runs + k];
        if (isnan(v))
            continue;
        s += v;
        n++;
        if (v < *lo)
            *lo = v;
        if (v > *hi)
            *hi = v;
    }
    *mean = n ? s / n : NAN;
    if (!n)
        *lo = *hi = NAN;
}

static int cmp_point(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    return (x->nodes > y->nodes) - (x->nodes < y->nodes);
}

static json_t *num_or_null(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/* "p95(timeToSchedule) < 10m0s": objective `o` as text. */
static void objective_text(const struct objective *o, char *buf, size_t n)
{
    char want[80];
    gs_cli_format_metric(o->metric, o->target, want, sizeof want);
    snprintf(buf, n, "%s %s %s", o->metric, op_names[o->op], want);
}

/* Objective `o` (number `oi`) at point `p`: its mean and its worst value over the runs,
 * formatted; worst is the largest for < and <=, the smallest for > and >=. */
static void mean_worst(const struct objective *o, const struct point *p, int oi, char *mean_s, char *worst_s,
                       size_t n)
{
    double mean, lo, hi;
    stats(p, oi, &mean, &lo, &hi);
    int up = o->op == OP_GT || o->op == OP_GE;
    gs_cli_format_metric(o->metric, mean, mean_s, n);
    gs_cli_format_metric(o->metric, up ? lo : hi, worst_s, n);
}

static void print_json(const struct plan *pl, const char *pool, int answer)
{
    json_t *root = json_object(), *objs = json_array(), *ev = json_array();
    json_object_set_new(root, "schema", json_string("gpusim-plan/1"));
    json_object_set_new(root, "scenario", json_string(pl->scenario));
    json_object_set_new(root, "pool", json_string(pool));
    json_object_set_new(root, "parameter", json_string(pl->param));
    json_object_set_new(root, "autoscaled", json_boolean(pl->autoscaled));
    for (int o = 0; o < pl->nobj; o++) {
        json_t *obj = json_object();
        json_object_set_new(obj, "metric", json_string(pl->obj[o].metric));
        json_object_set_new(obj, "op", json_string(op_names[pl->obj[o].op]));
        json_object_set_new(obj, "value", json_real(pl->obj[o].target));
        json_array_append_new(objs, obj);
    }
    json_object_set_new(root, "objectives", objs);
    json_object_set_new(root, "fraction", json_real(pl->fraction));
    json_object_set_new(root, "seeds", json_string(pl->seeds));
    json_object_set_new(root, "answer", answer >= 0 ? json_integer(answer) : json_null());
    for (int i = 0; i < pl->npts; i++) {
        const struct point *p = &pl->pts[i];
        json_t *jp = json_object(), *metrics = json_object();
        json_object_set_new(jp, "nodes", json_integer(p->nodes));
        json_object_set_new(jp, "holds", json_integer(p->holds));
        json_object_set_new(jp, "runs", json_integer(p->runs));
        json_object_set_new(jp, "passes", json_boolean(passes(pl, p)));
        json_object_set_new(jp, "runsWithPendingAtEnd", json_integer(p->runs_pending));
        for (int o = 0; o < pl->nobj; o++) {
            double mean, lo, hi;
            stats(p, o, &mean, &lo, &hi);
            json_t *jm = json_object(), *vals = json_array();
            json_object_set_new(jm, "mean", num_or_null(mean));
            json_object_set_new(jm, "min", num_or_null(lo));
            json_object_set_new(jm, "max", num_or_null(hi));
            for (int k = 0; k < p->runs; k++)
                json_array_append_new(vals, num_or_null(p->values[o * p->runs + k]));
            json_object_set_new(jm, "values", vals);
            json_object_set_new(metrics, pl->obj[o].metric, jm);
        }
        json_object_set_new(jp, "metrics", metrics);
        json_array_append_new(ev, jp);
    }
    json_object_set_new(root, "evaluated", ev);
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    putchar('\n');
    json_decref(root);
}

static void print_result(struct plan *pl, const char *pool, int answer, int max_tried, const char *format)
{
    qsort(pl->pts, (size_t)pl->npts, sizeof *pl->pts, cmp_point);
    if (strcmp(format, "json") == 0) {
        print_json(pl, pool, answer);
        return;
    }
    char text[512], a[64], b[64], c[64];
    int n = pl->npts ? pl->pts[0].runs : 0;
    printf("plan: %s %s, objective%s ", pl->autoscaled ? "the maxSize of node group" : "pool", pool,
           pl->nobj > 1 ? "s" : "");
    for (int o = 0; o < pl->nobj; o++) {
        objective_text(&pl->obj[o], text, sizeof text);
        printf("%s%s", o ? " and " : "", text);
    }
    printf(" in ");
    if (pl->fraction >= 1.0)
        printf("every run");
    else
        printf("at least %.0f%% of the runs", pl->fraction * 100.0);
    printf(" (seed%s %s, %d run%s per size)\n\n", strpbrk(pl->seeds, ",-") ? "s" : "", pl->seeds, n,
           n == 1 ? "" : "s");
    if (pl->nobj == 1) {
        const struct objective *ob = &pl->obj[0];
        int up = ob->op == OP_GT || ob->op == OP_GE; /* larger is better */
        printf("  %-6s  %-6s  %-14s  %-14s  %s\n", pl->autoscaled ? "max" : "nodes", "holds", "mean", "best", "worst");
        for (int i = 0; i < pl->npts; i++) {
            const struct point *p = &pl->pts[i];
            double mean, lo, hi;
            stats(p, 0, &mean, &lo, &hi);
            gs_cli_format_metric(ob->metric, mean, a, sizeof a);
            gs_cli_format_metric(ob->metric, up ? hi : lo, b, sizeof b);
            gs_cli_format_metric(ob->metric, up ? lo : hi, c, sizeof c);
            char hs[32];
            snprintf(hs, sizeof hs, "%d/%d", p->holds, p->runs);
            if (p->nodes == answer)
                printf("  %-6d  %-6s  %-14s  %-14s  %-14s  <- answer\n", p->nodes, hs, a, b, c);
            else
                printf("  %-6d  %-6s  %-14s  %-14s  %s\n", p->nodes, hs, a, b, c);
        }
    } else {
        /* one column per objective: mean / worst */
        int w[MAX_OBJECTIVES];
        for (int o = 0; o < pl->nobj; o++) {
            w[o] = (int)strlen(pl->obj[o].metric) + 14; /* "<metric> mean / worst" */
            for (int i = 0; i < pl->npts; i++) {
                mean_worst(&pl->obj[o], &pl->pts[i], o, a, b, sizeof a);
                int l = (int)(strlen(a) + strlen(b) + 3);
                if (l > w[o])
                    w[o] = l;
            }
        }
        printf("  %-6s  %-6s", pl->autoscaled ? "max" : "nodes", "holds");
        for (int o = 0; o < pl->nobj; o++) {
            snprintf(text, sizeof text, "%s mean / worst", pl->obj[o].metric);
            printf("  %-*s", o == pl->nobj - 1 ? 0 : w[o], text);
        }
        putchar('\n');
        for (int i = 0; i < pl->npts; i++) {
            const struct point *p = &pl->pts[i];
            char hs[32];
            snprintf(hs, sizeof hs, "%d/%d", p->holds, p->runs);
            printf("  %-6d  %-6s", p->nodes, hs);
            for (int o = 0; o < pl->nobj; o++) {
                mean_worst(&pl->obj[o], p, o, a, b, sizeof a);
                snprintf(text, sizeof text, "%s / %s", a, b);
                printf("  %-*s", o == pl->nobj - 1 && p->nodes != answer ? 0 : w[o], text);
            }
            printf("%s\n", p->nodes == answer ? "  <- answer" : "");
        }
    }
    putchar('\n');
    if (answer < 0) {
        printf("answer: none: the objective%s %s not hold with %s%d nodes, the largest size searched (%s)\n",
               pl->nobj > 1 ? "s" : "", pl->nobj > 1 ? "do" : "does", pl->autoscaled ? "at most " : "", max_tried,
               pl->max_given ? "--max" : "gpusim's node limit");
        return;
    }
    const struct point *at = NULL, *below = NULL;
    for (int i = 0; i < pl->npts; i++) {
        if (pl->pts[i].nodes == answer)
            at = &pl->pts[i];
        if (pl->pts[i].nodes == answer - 1)
            below = &pl->pts[i];
    }
    if (pl->autoscaled)
        printf("answer: maxSize %d for node group %s: ", answer, pool);
    else
        printf("answer: %d node%s in pool %s: ", answer, answer == 1 ? "" : "s", pool);
    for (int o = 0; o < pl->nobj; o++) {
        mean_worst(&pl->obj[o], at, o, a, b, sizeof a);
        printf("%s%s is %s on average, %s at worst", o ? ", " : "", pl->obj[o].metric, a, b);
    }
    if (below) {
        printf("; with %d it holds in %d of %d run%s (", answer - 1, below->holds, below->runs,
               below->runs == 1 ? "" : "s");
        for (int o = 0; o < pl->nobj; o++) {
            mean_worst(&pl->obj[o], below, o, a, b, sizeof a);
            if (pl->nobj > 1)
                printf("%s%s ", o ? ", " : "", pl->obj[o].metric);
            printf("%s on average, %s at worst", a, b);
        }
        printf(")");
    } else {
        printf("; %d is the smallest size searched (--min)", answer);
    }
    printf("\n");
    int asks_pending = 0;
    for (int o = 0; o < pl->nobj; o++)
        asks_pending |= strncmp(pl->obj[o].metric, "pendingAtEnd", 12) == 0 ||
                        strncmp(pl->obj[o].metric, "pendingGpuHours", 15) == 0;
    if (at->runs_pending && !asks_pending)
        printf("warning: at the answer %d of %d run%s ended with pods never bound (up to %.0f in one run); "
               "the percentiles of timeToSchedule and timeToRunning count the pods that were bound only: add "
               "--objective 'pendingAtEnd < 1' to the question, or look at the runs with --keep\n",
               at->runs_pending, at->runs, at->runs == 1 ? "" : "s", at->pending_max);
}

int gs_cmd_plan(int argc, char **argv)
{
    struct plan pl = {.fraction = 1.0};
    const char *pool = NULL, *keep = NULL, *format = "text";
    long minv = -1, maxv = -1;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    char *tmp = NULL;
    int rc = GS_EXIT_USAGE;
    pl.sets = gs_calloc(MAX_SETS, sizeof *pl.sets);
    if (!pl.sets)
        return GS_EXIT_INTERNAL;
    if (jobs < 1)
        jobs = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            rc = GS_EXIT_OK;
            goto done;
        }
        if (a[0] == '-' && a[1]) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gpusim: plan: %s needs a value\n\n%s", a, usage);
                goto done;
            }
            const char *v = argv[++i];
            char *end;
            if (strcmp(a, "--pool") == 0) {
                pool = v;
            } else if (strcmp(a, "--objective") == 0) {
                if (pl.nobj == MAX_OBJECTIVES) {
                    fprintf(stderr, "gpusim: plan: at most %d --objective\n", MAX_OBJECTIVES);
                    goto done;
                }
                if (parse_objective(&pl.obj[pl.nobj], v))
                    goto done;
                pl.nobj++;
            } else if (strcmp(a, "--min") == 0 || strcmp(a, "--max") == 0) {
                errno = 0;
                long x = strtol(v, &end, 10);
                if (*end || errno || x < 0 || x > GS_MAX_NODES) {
                    fprintf(stderr, "gpusim: plan: %s %s: expected 0 to %d\n", a, v, GS_MAX_NODES);
                    goto done;
                }
                *(a[3] == 'i' ? &minv : &maxv) = x;
            } else if (strcmp(a, "--seeds") == 0) {
                pl.seeds = v; /* checked by gpusim sweep */
            } else if (strcmp(a, "--fraction") == 0) {
                pl.fraction = strtod(v, &end);
                if (*end || !(pl.fraction > 0 && pl.fraction <= 1)) {
                    fprintf(stderr, "gpusim: plan: --fraction %s: expected a number in (0, 1]\n", v);
                    goto done;
                }
            } else if (strcmp(a, "--set") == 0) {
                if (pl.nsets >= MAX_SETS) {
                    fprintf(stderr, "gpusim: plan: at most %d --set\n", MAX_SETS);
                    goto done;
                }
                pl.sets[pl.nsets++] = v;
            } else if (strcmp(a, "--jobs") == 0) {
                jobs = strtol(v, &end, 10);
                if (*end || jobs < 1 || jobs > 256) {
                    fprintf(stderr, "gpusim: plan: --jobs %s: expected 1 to 256\n", v);
                    goto done;
                }
            } else if (strcmp(a, "--keep") == 0) {
                keep = v;
            } else if (strcmp(a, "--format") == 0) {
                if (strcmp(v, "text") && strcmp(v, "json")) {
                    fprintf(stderr, "gpusim: plan: --format %s: expected text or json\n", v);
                    goto done;
                }
                format = v;
            } else {
                fprintf(stderr, "gpusim: plan: unknown option '%s'\n\n%s", a, usage);
                goto done;
            }
            continue;
        }
        if (pl.scenario) {
            fprintf(stderr, "gpusim: plan: one scenario at a time ('%s' and '%s')\n", pl.scenario, a);
            goto done;
        }
        pl.scenario = a;
    }
    if (!pl.scenario || !pool || !pl.nobj) {
        fprintf(stderr, "gpusim: plan: %s is required\n\n%s",
                !pl.scenario ? "a scenario" : !pool ? "--pool" : "--objective", usage);
        goto done;
    }
    if (minv >= 0 && maxv >= 0 && maxv < minv) {
        fprintf(stderr, "gpusim: plan: --max %ld is below --min %ld\n", maxv, minv);
        goto done;
    }
    pl.jobs = (int)jobs;

    /* The pool: its index among nodePools (the --set path), its count, its autoscaling. */
    struct gs_scenario sc;
    struct gs_error err = {0};
    int lrc = gs_scenario_load(pl.scenario, pl.sets, pl.nsets, -1, -1, &sc, &err);
    if (lrc) {
        rc = gs_cli_scenario_error(&err, lrc);
        goto done;
    }
    int idx = -1, count = 0, autoscaled = 0, min_size = 0;
    for (int i = 0; i < sc.world.npools; i++) {
        const struct gs_pool *p = &sc.world.pools[i];
        if (strcmp(p->name, pool) == 0 && !p->nodes) {
            idx = i;
            count = p->count;
            const struct gs_autoscaler_spec *as = sc.autoscaler;
            if (as && as->groups && as->groups[i].enabled) {
                autoscaled = 1;
                min_size = as->groups[i].min_size;
            }
        }
    }
    if (idx < 0) {
        fprintf(stderr, "gpusim: plan: --pool %s: %s has no node pool of that name under cluster.nodePools; "
                        "its pools are:", pool, pl.scenario);
        for (int i = 0; i < sc.world.npools; i++)
            fprintf(stderr, " %s%s", sc.world.pools[i].name, sc.world.pools[i].nodes ? " (imported)" : "");
        fputc('\n', stderr);
        gs_scenario_free(&sc);
        goto done;
    }
    snprintf(pl.own_seed, sizeof pl.own_seed, "%llu", (unsigned long long)sc.seed);
    if (!pl.seeds)
        pl.seeds = pl.own_seed;
    gs_scenario_free(&sc);
    pl.autoscaled = autoscaled;
    snprintf(pl.param, sizeof pl.param, "cluster.nodePools[%d].%s", idx, autoscaled ? "autoscaling.maxSize" : "count");
    /* An autoscaled pool's maxSize may not be below its count (nor its minSize). */
    if (minv < 0)
        minv = autoscaled ? (count > min_size ? count : min_size) : 1;
    if (autoscaled && minv < 1)
        minv = 1; /* a node group's maxSize is at least 1 */
    if (maxv >= 0 && maxv < minv) {
        fprintf(stderr, "gpusim: plan: --max %ld is below the smallest size searched, %ld%s\n", maxv, minv,
                autoscaled ? " (an autoscaled pool's maxSize may not be below its count or minSize)" : "");
        goto done;
    }
    pl.max_given = maxv >= 0;
    if (keep) {
        if (mkdir(keep, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "gpusim: plan: --keep %s: %s\n", keep, strerror(errno));
            goto done;
        }
        pl.dir = keep;
    } else if (!(pl.dir = tmp = gs_cli_tempdir("plan"))) {
        fprintf(stderr, "gpusim: plan: cannot make a temporary directory: %s\n", strerror(errno));
        goto done;
    }
    if (maxv >= 0)
        fprintf(stderr, "gpusim: plan: varying %s from %ld to %ld\n", pl.param, minv, maxv);
    else
        fprintf(stderr, "gpusim: plan: varying %s from %ld upward\n", pl.param, minv);

    /* Bracket: lo fails (or is below the range), hi passes. */
    const struct point *p;
    long lo = minv, hi;
    if (!(p = evaluate(&pl, (int)lo)))
        goto failed;
    int answer = -1;
    if (passes(&pl, p)) {
        answer = (int)lo;
        goto found;
    }
    if (maxv >= 0) {
        hi = maxv;
        if (!(p = evaluate(&pl, (int)hi)))
            goto failed;
        if (!passes(&pl, p)) {
            print_result(&pl, pool, -1, (int)hi, format);
            rc = GS_EXIT_CHECK_FAILED;
            goto done;
        }
    } else {
        hi = count > lo ? count : lo * 2;
        if (hi < 1)
            hi = 1;
        for (;;) {
            if (!(p = evaluate(&pl, (int)hi)))
                goto failed;
            if (passes(&pl, p))
                break;
            lo = hi;
            if (hi >= GS_MAX_NODES) {
                print_result(&pl, pool, -1, (int)hi, format);
                rc = GS_EXIT_CHECK_FAILED;
                goto done;
            }
            hi = hi * 2 > GS_MAX_NODES ? GS_MAX_NODES : hi * 2;
        }
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (!(p = evaluate(&pl, (int)mid)))
            goto failed;
        if (passes(&pl, p))
            hi = mid;
        else
            lo = mid;
    }
    answer = (int)hi;
found:
    print_result(&pl, pool, answer, answer, format);
    rc = GS_EXIT_OK;
    goto done;
failed:
    rc = pl.signal ? 128 + pl.signal : pl.failed_run ? GS_EXIT_USAGE : GS_EXIT_INTERNAL;
done:
    fflush(stdout);
    if (tmp) {
        gs_cli_rmtree(tmp);
        gs_free(tmp);
    }
    for (int i = 0; i < pl.npts; i++)
        gs_free(pl.pts[i].values);
    gs_free(pl.pts);
    gs_free(pl.sets);
    return rc;
}
