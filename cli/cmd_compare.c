/* gpusim compare TRACE...|DIR|SCENARIO...: the study metrics of several runs side by side,
 * grouped by what differs between them (scenario and --set overrides), with the mean and a
 * 95% confidence interval over the seeds of each group and the difference to a baseline. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>

#include "base/alloc.h"
#include "base/array.h"
#include "reports/html.h"
#include "reports/study.h"
#include "sim/scenario.h"
#include "cli/cli.h"
#include "cli/outfile.h"
#include "cli/studyrun.h"

static const char usage[] =
    "usage: gpusim compare TRACE.db|DIR|SCENARIO.yaml ... [options]\n"
    "\n"
    "Put the study metrics of several runs side by side. Arguments are traces, directories of\n"
    "traces (a sweep's -o DIR: every *.db in it) or scenarios, which are run first (once, or\n"
    "once per --seeds seed). Runs that differ only in their seed form one group; each cell is\n"
    "the mean over the group's seeds with a 95% confidence interval (Student's t), and the\n"
    "difference to the baseline group.\n"
    "\n"
    "options:\n"
    "  --metric EXPR        a metric to show, repeatable (default: p50, p95, p99 and max of\n"
    "                       timeToSchedule, p95(timeToRunning), pendingAtEnd, pendingGpuHours,\n"
    "                       utilisation, nodeHours, cost when priced); see docs/studies.md\n"
    "  --baseline LABEL|N   the group the differences are to (default: the first, 1)\n"
    "  --format text|json|csv  (default: text)\n"
    "  --seeds A-B|A,B,...  seeds for scenario arguments (default: each scenario's own seed)\n"
    "  --vary PATH=V1,V2,.. run each scenario argument once per value (and seed), as gpusim\n"
    "                       sweep does; repeatable: the cross product\n"
    "  --set PATH=VALUE, --horizon DURATION  passed to every scenario run\n"
    "  --jobs N             scenario runs in parallel processes (default: the number of CPUs)\n"
    "  --keep DIR           keep the traces of scenario runs in DIR (default: removed)\n"
    "  --allow-incomplete   include traces whose run did not complete (default: refused)\n"
    "  --html FILE          also write the runs' time plots and time-to-schedule CDF overlaid,\n"
    "                       one colour a run, as one self-contained HTML page (docs/cli.md)\n"
    "\n"
    "Scenarios are run with `gpusim sweep SCENARIO [--seeds ...] [--vary ...] -o DIR/<i>-<name>`\n"
    "(docs/sweep.md).\n"
    "\n"
    "exit status: 0 done, 2 usage error, unreadable trace or a scenario run that failed,\n"
    "3 an invalid scenario.\n";

static const char *const default_metrics[] = {
    "p50(timeToSchedule)", "p95(timeToSchedule)", "p99(timeToSchedule)", "max(timeToSchedule)",
    "p95(timeToRunning)",  "pendingAtEnd",        "pendingGpuHours",     "utilisation",
    "nodeHours",           "cost",                "incompleteGroupGpuHours", NULL};

struct run {
    char *file;
    json_t *doc;
    char *key; /* scenario path, name and sorted overrides: runs of one group share it */
};

struct group {
    char *key;
    char *label;
    int *runs;
    int nruns, cap;
};

struct cell {
    int n;
    double mean, sd, ci, diff, pct; /* sd, ci: NaN below 2 values; pct: NaN for a 0 baseline */
    double *values;
};

struct cmp {
    struct run *runs;
    int nruns, caprun;
    struct group *groups;
    int ngroups, capgroup;
    const char **metrics;
    int nmetrics, capmetric;
    int baseline;
    struct cell *cells; /* [group * nmetrics + metric] */
};

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int add_run(struct cmp *c, const char *file, int allow_incomplete)
{
    char err[512];
    json_t *doc = NULL;
    if (gs_study_open(file, &doc, err, sizeof err) != 0) {
        fprintf(stderr, "gpusim: compare: %s\n", err);
        return GS_EXIT_USAGE;
    }
    const char *status = json_string_value(json_object_get(json_object_get(doc, "run"), "status"));
    if (!allow_incomplete && status && strcmp(status, "complete") != 0) {
        fprintf(stderr, "gpusim: compare: %s: the run did not complete (status %s); "
                        "--allow-incomplete includes it\n", file, status);
        json_decref(doc);
        return GS_EXIT_USAGE;
    }
    if (GS_GROW_ZERO(c->runs, c->caprun, c->nruns + 1)) {
        json_decref(doc);
        return GS_EXIT_INTERNAL;
    }
    struct run *r = &c->runs[c->nruns++];
    r->doc = doc;
    r->file = gs_strdup(file);
    return r->file ? 0 : GS_EXIT_INTERNAL;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends `s` to the growing buffer (*buf, *len, *cap). */
static int append(char **buf, int *len, int *cap, const char *s)
{
    int l = (int)strlen(s);
    if (gs_array_grow((void **)buf, cap, *len + l + 1, 1))
        return -1;
    memcpy(*buf + *len, s, (size_t)l + 1);
    *len += l;
    return 0;
}

static const char *run_str(const json_t *doc, const char *key)
{
    const char *s = json_string_value(json_object_get(json_object_get(doc, "run"), key));
    return s ? s : "";
}

/* The sorted "path=value" strings of a run's overrides (gs_malloc'd array of borrowed keys
 * paired with values in `vals`). */
static int overrides(const json_t *doc, const char ***paths, int *n)
{
    const json_t *ov = json_object_get(json_object_get(doc, "run"), "overrides");
    *n = 0;
    *paths = NULL;
    size_t sz = json_is_object(ov) ? json_object_size(ov) : 0;
    if (!sz)
        return 0;
    const char **p = gs_calloc(sz, sizeof *p);
    if (!p)
        return -1;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)ov, k, v) p[(*n)++] = k;
    if (*n > 1)
        qsort(p, (size_t)*n, sizeof *p, cmp_cstr);
    *paths = p;
    return 0;
}

/* The file name of a path: runs of one scenario file started from different directories record
 * different paths, and are one group. */
static const char *path_base(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

static const char *override_value(const json_t *doc, const char *path)
{
    return json_string_value(json_object_get(json_object_get(json_object_get(doc, "run"), "overrides"), path));
}

static int run_key(struct run *r)
{
    char *buf = NULL;
    int len = 0, cap = 0;
    const char **p;
    int n;
    if (overrides(r->doc, &p, &n))
        return -1;
    char horizon[64];
    const json_t *h = json_object_get(json_object_get(r->doc, "run"), "horizonSeconds");
    snprintf(horizon, sizeof horizon, "%.17g", json_is_number(h) ? json_number_value(h) : -1.0);
    int bad = append(&buf, &len, &cap, path_base(run_str(r->doc, "scenarioPath"))) ||
              append(&buf, &len, &cap, "\n") || append(&buf, &len, &cap, run_str(r->doc, "scenario")) ||
              append(&buf, &len, &cap, "\nhorizon=") || append(&buf, &len, &cap, horizon);
    for (int i = 0; i < n && !bad; i++)
        bad = append(&buf, &len, &cap, "\n") || append(&buf, &len, &cap, p[i]) ||
              append(&buf, &len, &cap, "=") || append(&buf, &len, &cap, override_value(r->doc, p[i]));
    gs_free(p);
    if (bad) {
        gs_free(buf);
        return -1;
    }
    r->key = buf;
    return 0;
}

/* The shortest suffix of `path`'s dotted components that no other path in `all` ends with. */
static const char *short_path(const char *path, const char *const *all, int n)
{
    const char *best = path;
    for (const char *s = path + strlen(path); s > path; s--) {
        if (s[-1] != '.')
            continue;
        int unique = 1;
        size_t sl = strlen(s);
        for (int i = 0; i < n && unique; i++) {
            size_t l = strlen(all[i]);
            if (all[i] != path && l >= sl && strcmp(all[i] + l - sl, s) == 0 &&
                (l == sl || all[i][l - sl - 1] == '.'))
                unique = 0;
        }
        if (unique)
            return s;
    }
    return best;
}

/* Group the runs and label each group by what tells it apart from the others: the scenario
 * when the scenarios differ, and each override path whose value is not the same in every
 * group (by its shortest distinguishing suffix: `count=4`). */
static int make_groups(struct cmp *c)
{
    for (int i = 0; i < c->nruns; i++) {
        if (run_key(&c->runs[i]))
            return -1;
        int g = 0;
        while (g < c->ngroups && strcmp(c->groups[g].key, c->runs[i].key) != 0)
            g++;
        if (g == c->ngroups) {
            if (GS_GROW_ZERO(c->groups, c->capgroup, c->ngroups + 1))
                return -1;
            c->groups[g].key = c->runs[i].key;
            c->ngroups++;
        }
        struct group *gr = &c->groups[g];
        if (GS_GROW(gr->runs, gr->cap, gr->nruns + 1))
            return -1;
        gr->runs[gr->nruns++] = i;
    }
    /* the override paths of every run, and which of them vary between groups */
    const char **all = NULL;
    int nall = 0, capall = 0;
    for (int i = 0; i < c->nruns; i++) {
        const char **p;
        int n;
        if (overrides(c->runs[i].doc, &p, &n))
            return -1;
        for (int k = 0; k < n; k++) {
            int seen = 0;
            for (int j = 0; j < nall && !seen; j++)
                seen = strcmp(all[j], p[k]) == 0;
            if (!seen) {
                if (GS_GROW(all, capall, nall + 1)) {
                    gs_free(p);
                    return -1;
                }
                all[nall++] = p[k];
            }
        }
        gs_free(p);
    }
    if (nall > 1)
        qsort(all, (size_t)nall, sizeof *all, cmp_cstr);
    const char **vary = NULL;
    int nvary = 0, capvary = 0;
    for (int j = 0; j < nall; j++) {
        const char *v0 = override_value(c->runs[c->groups[0].runs[0]].doc, all[j]);
        int differs = 0;
        for (int g = 1; g < c->ngroups && !differs; g++) {
            const char *v = override_value(c->runs[c->groups[g].runs[0]].doc, all[j]);
            differs = (v == NULL) != (v0 == NULL) || (v && strcmp(v, v0) != 0);
        }
        if (differs) {
            if (GS_GROW(vary, capvary, nvary + 1))
                return -1;
            vary[nvary++] = all[j];
        }
    }
    int scen_differs = 0, path_differs = 0, horizon_differs = 0;
    for (int g = 1; g < c->ngroups; g++) {
        const json_t *d0 = c->runs[c->groups[0].runs[0]].doc, *d = c->runs[c->groups[g].runs[0]].doc;
        scen_differs |= strcmp(run_str(d0, "scenario"), run_str(d, "scenario")) != 0;
        path_differs |= strcmp(path_base(run_str(d0, "scenarioPath")), path_base(run_str(d, "scenarioPath"))) != 0;
        horizon_differs |= !json_equal(json_object_get(json_object_get(d0, "run"), "horizonSeconds"),
                                       json_object_get(json_object_get(d, "run"), "horizonSeconds"));
    }
    for (int g = 0; g < c->ngroups; g++) {
        const json_t *d = c->runs[c->groups[g].runs[0]].doc;
        char *buf = NULL;
        int len = 0, cap = 0, bad = 0;
        if (scen_differs || (nvary == 0 && !horizon_differs))
            bad = append(&buf, &len, &cap, run_str(d, "scenario"));
        if (!scen_differs && path_differs && !bad)
            bad = append(&buf, &len, &cap, len ? " " : "") ||
                  append(&buf, &len, &cap, path_base(run_str(d, "scenarioPath")));
        if (horizon_differs && !bad) {
            const json_t *h = json_object_get(json_object_get(d, "run"), "horizonSeconds");
            char hz[64] = "none";
            if (json_is_number(h))
                gs_cli_format_metric("timeToSchedule", json_number_value(h), hz, sizeof hz);
            bad = append(&buf, &len, &cap, len ? " " : "") || append(&buf, &len, &cap, "horizon=") ||
                  append(&buf, &len, &cap, hz);
        }
        for (int j = 0; j < nvary && !bad; j++) {
            const char *v = override_value(d, vary[j]);
            bad = append(&buf, &len, &cap, len ? " " : "") ||
                  append(&buf, &len, &cap, short_path(vary[j], vary, nvary)) ||
                  append(&buf, &len, &cap, "=") || append(&buf, &len, &cap, v ? v : "(unset)");
        }
        if (bad || !buf) {
            gs_free(buf);
            gs_free(all);
            gs_free(vary);
            return -1;
        }
        c->groups[g].label = buf;
    }
    gs_free(all);
    gs_free(vary);
    return 0;
}

/* Two arguments naming one trace, or two runs of one group with the same seed, would count one
 * run twice: refused, naming both. */
static int check_duplicates(const struct cmp *c)
{
    for (int g = 0; g < c->ngroups; g++) {
        const struct group *gr = &c->groups[g];
        for (int i = 0; i < gr->nruns; i++) {
            const struct run *a = &c->runs[gr->runs[i]];
            const json_t *sa = json_object_get(json_object_get(a->doc, "run"), "seed");
            for (int j = 0; j < i; j++) {
                const struct run *b = &c->runs[gr->runs[j]];
                if (json_equal(sa, json_object_get(json_object_get(b->doc, "run"), "seed"))) {
                    fprintf(stderr, "gpusim: compare: %s and %s are runs of one group (%s) with the same seed %lld: "
                                    "give each run once\n",
                            b->file, a->file, gr->label, (long long)json_integer_value(sa));
                    return GS_EXIT_USAGE;
                }
            }
        }
    }
    return 0;
}

static int add_metric(struct cmp *c, const char *m)
{
    if (GS_GROW(c->metrics, c->capmetric, c->nmetrics + 1))
        return -1;
    c->metrics[c->nmetrics++] = m;
    return 0;
}

/* The default metrics that mean something in these runs: known to gs_study_metric and not
 * null in every run (cost without a price, quantiles over no pod). */
static int default_metric_list(struct cmp *c)
{
    for (int m = 0; default_metrics[m]; m++) {
        int any = 0;
        for (int i = 0; i < c->nruns && !any; i++) {
            double v;
            char err[256];
            any = gs_study_metric(c->runs[i].doc, default_metrics[m], &v, err, sizeof err) == 0 && !isnan(v);
        }
        if (any && add_metric(c, default_metrics[m]))
            return -1;
    }
    return 0;
}

static int compute(struct cmp *c)
{
    c->cells = gs_calloc((size_t)c->ngroups * (size_t)c->nmetrics, sizeof *c->cells);
    if (!c->cells)
        return GS_EXIT_INTERNAL;
    for (int g = 0; g < c->ngroups; g++) {
        for (int m = 0; m < c->nmetrics; m++) {
            struct cell *cl = &c->cells[g * c->nmetrics + m];
            cl->values = gs_calloc((size_t)c->groups[g].nruns, sizeof *cl->values);
            if (!cl->values)
                return GS_EXIT_INTERNAL;
            for (int k = 0; k < c->groups[g].nruns; k++) {
                const struct run *r = &c->runs[c->groups[g].runs[k]];
                char err[256];
                double v;
                if (gs_study_metric(r->doc, c->metrics[m], &v, err, sizeof err) != 0) {
                    fprintf(stderr, "gpusim: compare: --metric '%s': %s\n", c->metrics[m], err);
                    return GS_EXIT_USAGE;
                }
                cl->values[k] = v;
                if (!isnan(v))
                    cl->n++;
            }
            double *ok = gs_calloc((size_t)(cl->n ? cl->n : 1), sizeof *ok);
            if (!ok)
                return GS_EXIT_INTERNAL;
            int j = 0;
            for (int k = 0; k < c->groups[g].nruns; k++)
                if (!isnan(cl->values[k]))
                    ok[j++] = cl->values[k];
            cl->mean = cl->n ? gsl_stats_mean(ok, 1, (size_t)cl->n) : NAN;
            cl->sd = cl->ci = NAN;
            if (cl->n >= 2) {
                cl->sd = gsl_stats_sd(ok, 1, (size_t)cl->n);
                cl->ci = gsl_cdf_tdist_Pinv(0.975, cl->n - 1) * cl->sd / sqrt((double)cl->n);
            }
            gs_free(ok);
        }
    }
    for (int g = 0; g < c->ngroups; g++) {
        for (int m = 0; m < c->nmetrics; m++) {
            struct cell *cl = &c->cells[g * c->nmetrics + m];
            const struct cell *b = &c->cells[c->baseline * c->nmetrics + m];
            cl->diff = cl->mean - b->mean;
            cl->pct = b->mean != 0 ? 100.0 * cl->diff / fabs(b->mean) : NAN;
        }
    }
    return 0;
}

static json_t *num_or_null(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static int print_json(const struct cmp *c)
{
    json_t *root = json_object(), *metrics = json_array(), *groups = json_array();
    if (!root || !metrics || !groups)
        return GS_EXIT_INTERNAL;
    json_object_set_new(root, "schema", json_string("gpusim-compare/1"));
    json_object_set_new(root, "baseline", json_string(c->groups[c->baseline].label));
    json_object_set_new(root, "confidence", json_real(0.95));
    for (int m = 0; m < c->nmetrics; m++)
        json_array_append_new(metrics, json_string(c->metrics[m]));
    json_object_set_new(root, "metrics", metrics);
    for (int g = 0; g < c->ngroups; g++) {
        const struct group *gr = &c->groups[g];
        const json_t *d = c->runs[gr->runs[0]].doc;
        json_t *jg = json_object(), *runs = json_array(), *jm = json_object();
        json_t *run = json_object_get(d, "run");
        json_object_set_new(jg, "label", json_string(gr->label));
        json_object_set(jg, "scenario", json_object_get(run, "scenario"));
        json_object_set(jg, "scenarioPath", json_object_get(run, "scenarioPath"));
        json_t *ov = json_object_get(run, "overrides");
        json_object_set_new(jg, "overrides", ov ? json_incref(ov) : json_object());
        for (int k = 0; k < gr->nruns; k++) {
            const struct run *r = &c->runs[gr->runs[k]];
            json_t *jr = json_object();
            json_object_set_new(jr, "file", json_string(r->file));
            json_object_set(jr, "seed", json_object_get(json_object_get(r->doc, "run"), "seed"));
            json_array_append_new(runs, jr);
        }
        json_object_set_new(jg, "runs", runs);
        for (int m = 0; m < c->nmetrics; m++) {
            const struct cell *cl = &c->cells[g * c->nmetrics + m];
            json_t *jc = json_object(), *vals = json_array();
            json_object_set_new(jc, "n", json_integer(cl->n));
            json_object_set_new(jc, "mean", num_or_null(cl->mean));
            json_object_set_new(jc, "sd", num_or_null(cl->sd));
            json_object_set_new(jc, "ci95", num_or_null(cl->ci));
            json_object_set_new(jc, "diff", num_or_null(cl->diff));
            json_object_set_new(jc, "diffPct", num_or_null(cl->pct));
            for (int k = 0; k < gr->nruns; k++)
                json_array_append_new(vals, num_or_null(cl->values[k]));
            json_object_set_new(jc, "values", vals);
            json_object_set_new(jm, c->metrics[m], jc);
        }
        json_object_set_new(jg, "metrics", jm);
        json_array_append_new(groups, jg);
    }
    json_object_set_new(root, "groups", groups);
    int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ? GS_EXIT_INTERNAL : 0;
    putchar('\n');
    json_decref(root);
    return rc;
}

static void csv_field(const char *s)
{
    if (strpbrk(s, ",\"\n")) {
        putchar('"');
        for (; *s; s++) {
            if (*s == '"')
                putchar('"');
            putchar(*s);
        }
        putchar('"');
    } else {
        fputs(s, stdout);
    }
}

static void csv_num(double v)
{
    putchar(',');
    if (!isnan(v) && !isinf(v))
        printf("%.10g", v);
}

static void print_csv(const struct cmp *c)
{
    puts("group,metric,n,mean,sd,ci95,diff,diffPct");
    for (int g = 0; g < c->ngroups; g++) {
        for (int m = 0; m < c->nmetrics; m++) {
            const struct cell *cl = &c->cells[g * c->nmetrics + m];
            csv_field(c->groups[g].label);
            putchar(',');
            csv_field(c->metrics[m]);
            printf(",%d", cl->n);
            csv_num(cl->mean);
            csv_num(cl->sd);
            csv_num(cl->ci);
            csv_num(cl->diff);
            csv_num(cl->pct);
            putchar('\n');
        }
    }
}

/* One text cell: `mean ±ci`, and for a non-baseline group the difference. */
static void text_cell(const struct cmp *c, int g, int m, char *buf, size_t n)
{
    const struct cell *cl = &c->cells[g * c->nmetrics + m];
    const char *name = c->metrics[m];
    char mean[64], ci[64], diff[64], pct[32] = "";
    gs_cli_format_metric(name, cl->mean, mean, sizeof mean);
    int len = snprintf(buf, n, "%s", mean);
    if (!isnan(cl->ci) && len >= 0 && (size_t)len < n) {
        gs_cli_format_metric(name, cl->ci, ci, sizeof ci);
        len += snprintf(buf + len, n - (size_t)len, " ±%s", ci);
    }
    if (g != c->baseline && !isnan(cl->diff) && len >= 0 && (size_t)len < n) {
        gs_cli_format_metric(name, fabs(cl->diff), diff, sizeof diff);
        if (!isnan(cl->pct))
            snprintf(pct, sizeof pct, " %+.1f%%", cl->pct);
        snprintf(buf + len, n - (size_t)len, " (%s%s%s)", cl->diff < 0 ? "-" : "+", diff, pct);
    }
}

/* Display width of a UTF-8 string (± and µ are one column each). */
static int width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void pad(const char *s, int w)
{
    fputs(s, stdout);
    for (int i = width(s); i < w; i++)
        putchar(' ');
}

static void print_text(const struct cmp *c)
{
    int nseeds_min = c->groups[0].nruns, nseeds_max = nseeds_min;
    for (int g = 1; g < c->ngroups; g++) {
        if (c->groups[g].nruns < nseeds_min)
            nseeds_min = c->groups[g].nruns;
        if (c->groups[g].nruns > nseeds_max)
            nseeds_max = c->groups[g].nruns;
    }
    printf("compare: %d runs in %d group%s", c->nruns, c->ngroups, c->ngroups == 1 ? "" : "s");
    if (nseeds_min == nseeds_max)
        printf(", %d seed%s each", nseeds_min, nseeds_min == 1 ? "" : "s");
    else
        printf(", %d to %d seeds each", nseeds_min, nseeds_max);
    printf("; cells: mean%s (difference to %s)\n\n", nseeds_max >= 2 ? " ±95% CI half-width" : "",
           c->groups[c->baseline].label);
    int w0 = (int)strlen("metric");
    for (int m = 0; m < c->nmetrics; m++)
        if (width(c->metrics[m]) > w0)
            w0 = width(c->metrics[m]);
    int *w = gs_calloc((size_t)c->ngroups, sizeof *w);
    if (!w)
        return;
    char cell[256], head[512];
    for (int g = 0; g < c->ngroups; g++) {
        snprintf(head, sizeof head, "%s%s", c->groups[g].label, g == c->baseline ? " (baseline)" : "");
        w[g] = width(head);
        for (int m = 0; m < c->nmetrics; m++) {
            text_cell(c, g, m, cell, sizeof cell);
            if (width(cell) > w[g])
                w[g] = width(cell);
        }
    }
    pad("metric", w0);
    for (int g = 0; g < c->ngroups; g++) {
        snprintf(head, sizeof head, "%s%s", c->groups[g].label, g == c->baseline ? " (baseline)" : "");
        fputs("   ", stdout);
        pad(head, g == c->ngroups - 1 ? 0 : w[g]);
    }
    putchar('\n');
    for (int m = 0; m < c->nmetrics; m++) {
        pad(c->metrics[m], w0);
        for (int g = 0; g < c->ngroups; g++) {
            text_cell(c, g, m, cell, sizeof cell);
            fputs("   ", stdout);
            pad(cell, g == c->ngroups - 1 ? 0 : w[g]);
        }
        putchar('\n');
    }
    gs_free(w);
}

/* Runs scenario argument number `idx` (from 1) through `gpusim sweep SCENARIO [--seeds SEEDS]
 * [pass...] -o DIR/<idx>-<base>` (the scenario's own seed when neither --seeds nor --vary is
 * given), `jobs` runs at a time, and adds its traces. Returns 0, an exit status, or 128+signal
 * when SIGINT/SIGTERM/SIGHUP stopped it. */
static int run_scenario(struct cmp *c, const char *scen, int idx, const char *seeds, int has_vary, int jobs,
                        const char *dir, const char **pass, int npass)
{
    char jobs_s[16], own_seed[32];
    snprintf(jobs_s, sizeof jobs_s, "%d", jobs);
    const char *seeds_s = seeds;
    if (!seeds && !has_vary) {
        struct gs_scenario sc;
        struct gs_error err = {0};
        int lrc = gs_scenario_load(scen, NULL, 0, -1, -1, &sc, &err);
        if (lrc)
            return gs_cli_scenario_error(&err, lrc);
        snprintf(own_seed, sizeof own_seed, "%llu", (unsigned long long)sc.seed);
        gs_scenario_free(&sc);
        seeds_s = own_seed;
    }
    const char *base = strrchr(scen, '/');
    base = base ? base + 1 : scen;
    size_t need = strlen(dir) + strlen(base) + 32;
    char *sub = gs_malloc(need), *log = gs_malloc(need + 4);
    const char **args = gs_calloc((size_t)npass + 10, sizeof *args);
    if (!sub || !log || !args) {
        gs_free(sub);
        gs_free(log);
        gs_free(args);
        return GS_EXIT_INTERNAL;
    }
    snprintf(sub, need, "%s/%d-%.*s", dir, idx, (int)strcspn(base, "."), base);
    snprintf(log, need + 4, "%s.log", sub);
    unlink(log);
    int a = 0;
    args[a++] = "sweep";
    args[a++] = scen;
    if (seeds_s) {
        args[a++] = "--seeds";
        args[a++] = seeds_s;
    }
    args[a++] = "--jobs";
    args[a++] = jobs_s;
    args[a++] = "-o";
    args[a++] = sub;
    for (int k = 0; k < npass; k++)
        args[a++] = pass[k];
    fprintf(stderr, "gpusim: compare: running %s (seeds %s) into %s\n", scen, seeds_s ? seeds_s : "its own", sub);
    int st = gs_cli_run_self(args, log);
    gs_free(args);
    int rc = 0;
    if (gs_cli_signal()) {
        fprintf(stderr, "gpusim: compare: stopped by signal %d; the runs were stopped\n", gs_cli_signal());
        rc = 128 + gs_cli_signal();
    } else if (st != 0) {
        if (st < 0)
            fprintf(stderr, "gpusim: compare: cannot start gpusim: %s\n", strerror(errno));
        else
            fprintf(stderr, "gpusim: compare: the runs of %s failed (gpusim sweep exit %d):\n", scen, st);
        gs_cli_print_log(log);
        rc = GS_EXIT_USAGE;
    }
    char **paths = NULL;
    int n = rc ? 0 : gs_cli_list_traces(sub, &paths);
    for (int k = 0; k < n && !rc; k++)
        rc = add_run(c, paths[k], 0);
    if (n > 0)
        gs_cli_free_paths(paths, n);
    gs_free(sub);
    gs_free(log);
    return rc;
}

static void cmp_free(struct cmp *c)
{
    for (int i = 0; i < c->nruns; i++) {
        json_decref(c->runs[i].doc);
        gs_free(c->runs[i].file);
        gs_free(c->runs[i].key);
    }
    for (int g = 0; g < c->ngroups; g++) {
        gs_free(c->groups[g].label);
        gs_free(c->groups[g].runs);
        for (int m = 0; c->cells && m < c->nmetrics; m++)
            gs_free(c->cells[g * c->nmetrics + m].values);
    }
    gs_free(c->cells);
    gs_free(c->runs);
    gs_free(c->groups);
    gs_free(c->metrics);
}

/* The HTML form (reports/html.h): every run, in group order, labelled by its group (and its
 * seed when the group has several runs). Written before scenario runs' traces are removed. */
static int write_html(const struct cmp *c, const char *path)
{
    const char **files = gs_calloc((size_t)c->nruns + 1, sizeof *files);
    const char **labels = gs_calloc((size_t)c->nruns + 1, sizeof *labels);
    char **owned = gs_calloc((size_t)c->nruns + 1, sizeof *owned);
    int n = 0, rc = 0;
    if (!files || !labels || !owned) {
        rc = GS_EXIT_INTERNAL;
        goto out;
    }
    for (int g = 0; g < c->ngroups; g++)
        for (int i = 0; i < c->groups[g].nruns; i++) {
            const struct run *r = &c->runs[c->groups[g].runs[i]];
            files[n] = r->file;
            labels[n] = c->groups[g].label;
            if (c->groups[g].nruns > 1) {
                json_t *seed = json_object_get(json_object_get(r->doc, "run"), "seed");
                size_t len = strlen(c->groups[g].label) + 32;
                if (!(owned[n] = gs_malloc(len))) {
                    rc = GS_EXIT_INTERNAL;
                    goto out;
                }
                snprintf(owned[n], len, "%s seed %lld", c->groups[g].label, (long long)json_integer_value(seed));
                labels[n] = owned[n];
            }
            n++;
        }
    struct gs_outfile of;
    if (gs_outfile_open(&of, path, files, n, "compare") != 0) {
        rc = GS_EXIT_USAGE;
        goto out;
    }
    char err[512];
    if (gs_compare_html(files, labels, n, of.f, err, sizeof err) != 0) {
        gs_outfile_abort(&of);
        fprintf(stderr, "gpusim: compare: --html: %s\n", err);
        rc = GS_EXIT_USAGE;
    } else if (gs_outfile_commit(&of, "compare") != 0) {
        rc = GS_EXIT_USAGE;
    }
out:
    for (int i = 0; owned && i < c->nruns; i++)
        gs_free(owned[i]);
    gs_free(owned);
    gs_free(files);
    gs_free(labels);
    return rc;
}

int gs_cmd_compare(int argc, char **argv)
{
    struct cmp c = {0};
    const char *format = "text", *baseline = NULL, *keep = NULL, *html = NULL;
    int allow = 0, rc = 0, has_vary = 0;
    const char *seeds = NULL;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    char *tmp = NULL;
    if (jobs < 1)
        jobs = 1;
    char **inputs = gs_calloc((size_t)argc, sizeof *inputs);
    const char **pass = gs_calloc((size_t)argc, sizeof *pass); /* options for gpusim sweep */
    int ninputs = 0, npass = 0;
    if (!inputs || !pass) {
        gs_free(inputs);
        gs_free(pass);
        return GS_EXIT_INTERNAL;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            goto done;
        }
        if (strcmp(a, "--allow-incomplete") == 0) {
            allow = 1;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gpusim: compare: %s needs a value\n\n%s", a, usage);
                rc = GS_EXIT_USAGE;
                goto done;
            }
            const char *v = argv[++i];
            char *end;
            if (strcmp(a, "--format") == 0) {
                if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "csv")) {
                    fprintf(stderr, "gpusim: compare: --format %s: expected text, json or csv\n", v);
                    rc = GS_EXIT_USAGE;
                    goto done;
                }
                format = v;
            } else if (strcmp(a, "--metric") == 0) {
                if (add_metric(&c, v)) {
                    rc = GS_EXIT_INTERNAL;
                    goto done;
                }
            } else if (strcmp(a, "--baseline") == 0) {
                baseline = v;
            } else if (strcmp(a, "--vary") == 0 || strcmp(a, "--set") == 0 || strcmp(a, "--horizon") == 0) {
                pass[npass++] = a; /* for gpusim sweep, which checks them */
                pass[npass++] = v;
                has_vary |= strcmp(a, "--vary") == 0;
            } else if (strcmp(a, "--keep") == 0) {
                keep = v;
            } else if (strcmp(a, "--html") == 0) {
                html = v;
            } else if (strcmp(a, "--seeds") == 0) {
                seeds = v; /* checked by gpusim sweep */
            } else if (strcmp(a, "--jobs") == 0) {
                jobs = strtol(v, &end, 10);
                if (*end || jobs < 1 || jobs > 256) {
                    fprintf(stderr, "gpusim: compare: --jobs %s: expected 1 to 256\n", v);
                    rc = GS_EXIT_USAGE;
                    goto done;
                }
            } else {
                fprintf(stderr, "gpusim: compare: unknown option '%s'\n\n%s", a, usage);
                rc = GS_EXIT_USAGE;
                goto done;
            }
            continue;
        }
        inputs[ninputs++] = argv[i];
    }
    if (ninputs == 0) {
        fputs(usage, stderr);
        rc = GS_EXIT_USAGE;
        goto done;
    }
    int nscen = 0;
    for (int i = 0; i < ninputs; i++)
        nscen += !is_dir(inputs[i]) && !gs_cli_is_sqlite(inputs[i]);
    if (seeds && !nscen) {
        fprintf(stderr, "gpusim: compare: --seeds applies to scenario arguments, and none was given (traces "
                        "are compared with the seeds they have)\n");
        rc = GS_EXIT_USAGE;
        goto done;
    }
    if (npass && !nscen) {
        fprintf(stderr, "gpusim: compare: %s applies to scenario arguments, and none was given\n", pass[0]);
        rc = GS_EXIT_USAGE;
        goto done;
    }
    const char *dir = keep;
    if (nscen && keep) {
        if (mkdir(keep, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "gpusim: compare: --keep %s: %s\n", keep, strerror(errno));
            rc = GS_EXIT_USAGE;
            goto done;
        }
    } else if (nscen && !(dir = tmp = gs_cli_tempdir("compare"))) {
        fprintf(stderr, "gpusim: compare: cannot make a temporary directory: %s\n", strerror(errno));
        rc = GS_EXIT_USAGE;
        goto done;
    }
    /* in argument order, so the first argument's group is the default baseline */
    for (int i = 0, iscen = 0; i < ninputs && !rc; i++) {
        struct stat st;
        if (stat(inputs[i], &st) != 0) {
            fprintf(stderr, "gpusim: compare: %s: %s\n", inputs[i], strerror(errno));
            rc = GS_EXIT_USAGE;
        } else if (S_ISDIR(st.st_mode)) {
            char **paths;
            int n = gs_cli_list_traces(inputs[i], &paths);
            if (n <= 0) {
                fprintf(stderr, "gpusim: compare: %s: %s\n", inputs[i],
                        n == 0 ? "no trace (*.db) in this directory" : strerror(errno));
                rc = GS_EXIT_USAGE;
            }
            int added = 0;
            for (int k = 0; k < n && !rc; k++) {
                if (gs_cli_is_merged(paths[k])) { /* gpusim merge's output, kept beside the traces */
                    fprintf(stderr, "gpusim: compare: %s: skipped: a merged database, not a trace\n", paths[k]);
                    continue;
                }
                rc = add_run(&c, paths[k], allow);
                added++;
            }
            if (!rc && n > 0 && !added) {
                fprintf(stderr, "gpusim: compare: %s: no trace in this directory\n", inputs[i]);
                rc = GS_EXIT_USAGE;
            }
            if (n > 0)
                gs_cli_free_paths(paths, n);
        } else if (gs_cli_is_sqlite(inputs[i])) {
            rc = add_run(&c, inputs[i], allow);
        } else {
            rc = run_scenario(&c, inputs[i], ++iscen, seeds, has_vary, (int)jobs, dir, pass, npass);
        }
    }
    if (rc)
        goto done;
    if (make_groups(&c)) {
        rc = GS_EXIT_INTERNAL;
        goto done;
    }
    if ((rc = check_duplicates(&c)))
        goto done;
    if (baseline) {
        char *end;
        long b = strtol(baseline, &end, 10);
        c.baseline = -1;
        if (!*end && b >= 1 && b <= c.ngroups)
            c.baseline = (int)b - 1;
        for (int g = 0; g < c.ngroups && c.baseline < 0; g++)
            if (strcmp(c.groups[g].label, baseline) == 0)
                c.baseline = g;
        if (c.baseline < 0) {
            fprintf(stderr, "gpusim: compare: --baseline %s: no such group; the groups are:\n", baseline);
            for (int g = 0; g < c.ngroups; g++)
                fprintf(stderr, "  %d  %s\n", g + 1, c.groups[g].label);
            rc = GS_EXIT_USAGE;
            goto done;
        }
    }
    if (c.nmetrics == 0 && default_metric_list(&c)) {
        rc = GS_EXIT_INTERNAL;
        goto done;
    }
    if ((rc = compute(&c)))
        goto done;
    if (strcmp(format, "json") == 0)
        rc = print_json(&c);
    else if (strcmp(format, "csv") == 0)
        print_csv(&c);
    else
        print_text(&c);
    fflush(stdout);
    if (!rc && html)
        rc = write_html(&c, html);
done:
    if (tmp) {
        gs_cli_rmtree(tmp);
        gs_free(tmp);
    }
    cmp_free(&c);
    gs_free(inputs);
    gs_free(pass);
    return rc;
}
