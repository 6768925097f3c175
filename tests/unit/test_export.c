/* `gpusim export` (reports/export_perfetto.c, reports/export_openmetrics.c) on whole runs.
 *
 * The Perfetto JSON is checked structurally against the Trace Event Format (catapult
 * docs/trace-event-format.md): a JSON object with a traceEvents array; every event has the
 * fields its phase needs (X: name, ts, dur, pid, tid; C: name, ts, pid, numeric args; M: a known
 * metadata name with its args; i: name, ts, pid, tid, scope); complete events on one thread never
 * overlap; every thread and process with events is named.
 *
 * The OpenMetrics text is checked by a strict parser of the OpenMetrics 1.0 text format written
 * here (the specification's ABNF and its MUSTs: metadata before samples and at most once,
 * families and metrics not interleaved, sample names matching the family's type, escaped label
 * values, increasing timestamps per series, cumulative histogram buckets ending in +Inf equal
 * to _count, counters never decreasing, `# EOF` last); the parser itself is shown to reject
 * each of those faults. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/error.h"
#include "reports/export.h"
#include "run_scenario.h"
#include "sim/run.h"
#include "sim/scenario.h"

static char trace_path[256];
static char *text;

static void run_file(const char *rel)
{
    gs_test_run_file(rel, trace_path, GS_TRACE_EVENTS);
}

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-export-%d.db", (int)getpid());
}

static void teardown(void)
{
    free(text);
    text = NULL;
    unlink(trace_path);
}

TestSuite(export, .init = setup, .fini = teardown);

static void export(int openmetrics)
{
    free(text);
    text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    char err[512];
    int rc = openmetrics ? gs_export_openmetrics(trace_path, GS_OM_EPOCH_DEFAULT, f, err, sizeof err)
                         : gs_export_perfetto(trace_path, f, err, sizeof err);
    fclose(f);
    cr_assert(eq(int, rc, 0), "%s", err);
}

/* ---- Trace Event Format ---------------------------------------------------------------- */

struct xs {
    json_int_t pid, tid, ts, end;
};

static int cmp_xs(const void *a, const void *b)
{
    const struct xs *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static bool is_int(json_t *o, const char *k)
{
    return json_is_integer(json_object_get(o, k));
}

/* Check the document in `text`; returns the number of events; fails the test on a fault. */
static int check_trace_events(json_t **root_out)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    cr_assert_not_null(root, "not JSON: line %d: %s", je.line, je.text);
    cr_assert(0 != json_is_object(root));
    json_t *evs = json_object_get(root, "traceEvents");
    cr_assert(0 != json_is_array(evs), "no traceEvents array");
    const char *unit = json_string_value(json_object_get(root, "displayTimeUnit"));
    cr_assert(unit && (strcmp(unit, "ms") == 0 || strcmp(unit, "ns") == 0));
    size_t n = json_array_size(evs);
    struct xs *xs = calloc(n + 1, sizeof *xs);
    json_int_t *named_threads = calloc(2 * n + 2, sizeof *named_threads), *named_procs = calloc(n + 1, sizeof *named_procs);
    size_t nx = 0, nthreads = 0, nprocs = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(evs, i);
        cr_assert(0 != json_is_object(e), "event %zu is not an object", i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        cr_assert(ph && name, "event %zu without ph or name", i);
        cr_assert(is_int(e, "pid") && is_int(e, "ts"), "event %zu (%s) without integer pid and ts", i, name);
        json_int_t pid = json_integer_value(json_object_get(e, "pid"));
        json_int_t ts = json_integer_value(json_object_get(e, "ts"));
        cr_assert(ts >= 0, "event %zu: ts %lld", i, (long long)ts);
        json_t *args = json_object_get(e, "args");
        if (strcmp(ph, "X") == 0) {
            cr_assert(is_int(e, "tid") && is_int(e, "dur"), "X event %zu (%s) without tid or dur", i, name);
            json_int_t dur = json_integer_value(json_object_get(e, "dur"));
            cr_assert(dur > 0, "X event %zu (%s): dur %lld", i, name, (long long)dur);
            xs[nx++] = (struct xs){pid, json_integer_value(json_object_get(e, "tid")), ts, ts + dur};
        } else if (strcmp(ph, "C") == 0) {
            cr_assert(0 != json_is_object(args) && json_object_size(args) > 0, "C event %zu (%s) without args", i, name);
            const char *k;
            json_t *v;
            json_object_foreach(args, k, v) cr_assert(0 != json_is_number(v), "C event %zu: args.%s is not a number", i, k);
        } else if (strcmp(ph, "M") == 0) {
            cr_assert(0 != json_is_object(args), "M event %zu without args", i);
            if (strcmp(name, "process_name") == 0 || strcmp(name, "thread_name") == 0) {
                cr_assert(0 != json_is_string(json_object_get(args, "name")), "M %s without args.name", name);
                if (name[0] == 't') {
                    cr_assert(is_int(e, "tid"));
                    named_threads[nthreads++] = pid;
                    named_threads[nthreads++] = json_integer_value(json_object_get(e, "tid"));
                } else {
                    named_procs[nprocs++] = pid;
                }
            } else if (strcmp(name, "process_sort_index") == 0 || strcmp(name, "thread_sort_index") == 0) {
                cr_assert(is_int(args, "sort_index"), "M %s without integer args.sort_index", name);
            } else {
                cr_assert(eq(str, (char *)name, "process_labels"));
                cr_assert(0 != json_is_string(json_object_get(args, "labels")));
            }
        } else if (strcmp(ph, "i") == 0) {
            const char *s = json_string_value(json_object_get(e, "s"));
            cr_assert(s && strlen(s) == 1 && strchr("gpt", s[0]), "i event %zu (%s): scope", i, name);
            if (s[0] == 't')
                cr_assert(is_int(e, "tid"));
        } else {
            cr_assert(0, "event %zu: unexpected phase '%s'", i, ph);
        }
    }
    /* complete events of one thread do not overlap (both viewers need them nested) */
    qsort(xs, nx, sizeof *xs, cmp_xs);
    for (size_t i = 1; i < nx; i++)
        if (xs[i].pid == xs[i - 1].pid && xs[i].tid == xs[i - 1].tid)
            cr_assert(xs[i].ts >= xs[i - 1].end, "slices overlap on pid %lld tid %lld at %lld", (long long)xs[i].pid,
                      (long long)xs[i].tid, (long long)xs[i].ts);
    for (size_t i = 0; i < nx; i++) {
        bool t = false, p = false;
        for (size_t k = 0; k < nthreads; k += 2)
            t = t || (named_threads[k] == xs[i].pid && named_threads[k + 1] == xs[i].tid);
        for (size_t k = 0; k < nprocs; k++)
            p = p || named_procs[k] == xs[i].pid;
        cr_assert(t && p, "pid %lld tid %lld has slices but no name", (long long)xs[i].pid, (long long)xs[i].tid);
    }
    free(xs);
    free(named_threads);
    free(named_procs);
    *root_out = root;
    return (int)n;
}

/* The events of `root` matching ph/name/pid (NULL/-1: any), as a count; the first in *first. */
static int find_events(json_t *root, const char *ph, const char *name, json_int_t pid, json_t **first)
{
    json_t *evs = json_object_get(root, "traceEvents");
    int c = 0;
    for (size_t i = 0; i < json_array_size(evs); i++) {
        json_t *e = json_array_get(evs, i);
        if (ph && strcmp(json_string_value(json_object_get(e, "ph")), ph) != 0)
            continue;
        if (name && strcmp(json_string_value(json_object_get(e, "name")), name) != 0)
            continue;
        if (pid >= 0 && json_integer_value(json_object_get(e, "pid")) != pid)
            continue;
        if (c++ == 0 && first)
            *first = e;
    }
    return c;
}

Test(export, perfetto_gang_deadlock)
{
    run_file("scenarios/teaching/gang-deadlock.yaml");
    export(0);
    json_t *root;
    check_trace_events(&root);
    /* h100-1 (node 1, pid 3) carries trainer-a-0 on each of its 8 GPUs for the whole hour */
    json_t *e = NULL;
    cr_assert(eq(int, find_events(root, "X", "trainer-a-0", 3, &e), 8));
    cr_assert(eq(i64, json_integer_value(json_object_get(e, "ts")), 0));
    cr_assert(eq(i64, json_integer_value(json_object_get(e, "dur")), 3600000000));
    cr_assert(eq(int, find_events(root, "X", "trainer-b-1", 4, NULL), 8)); /* h100-2 */
    cr_assert(eq(int, find_events(root, "X", "trainer-a-2", -1, NULL), 0)); /* never bound */
    cr_assert(eq(int, find_events(root, "X", NULL, -1, NULL), 32));
    json_t *pn = NULL;
    cr_assert(eq(int, find_events(root, "M", "process_name", 3, &pn), 1));
    cr_assert(eq(str, (char *)json_string_value(json_object_get(json_object_get(pn, "args"), "name")), "h100-1"));
    /* the cluster's counters: 32 GPUs allocated of 32, 3 pods pending at the end */
    json_t *evs = json_object_get(root, "traceEvents");
    json_t *last_gpus = NULL, *last_pods = NULL;
    for (size_t i = 0; i < json_array_size(evs); i++) {
        json_t *x = json_array_get(evs, i);
        if (strcmp(json_string_value(json_object_get(x, "ph")), "C") || json_integer_value(json_object_get(x, "pid")) != 1)
            continue;
        if (strcmp(json_string_value(json_object_get(x, "name")), "GPUs") == 0)
            last_gpus = x;
        if (strcmp(json_string_value(json_object_get(x, "name")), "pods") == 0)
            last_pods = x;
    }
    cr_assert_not_null(last_gpus);
    cr_assert_not_null(last_pods);
    cr_assert(eq(i64, json_integer_value(json_object_get(last_gpus, "ts")), 3600000000));
    cr_assert(eq(i64, json_integer_value(json_object_get(json_object_get(last_gpus, "args"), "allocated")), 32));
    cr_assert(eq(i64, json_integer_value(json_object_get(json_object_get(last_gpus, "args"), "allocatable")), 32));
    cr_assert(eq(i64, json_integer_value(json_object_get(json_object_get(last_pods, "args"), "pending")), 3));
    json_decref(root);
}

Test(export, perfetto_reservations_and_objects)
{
    /* Coscheduling reserves GPUs at Permit for 30 s, then gives them up (timeout) */
    run_file("scenarios/teaching/coscheduling-timeout.yaml");
    export(0);
    json_t *root, *e = NULL;
    check_trace_events(&root);
    cr_assert(eq(int, find_events(root, "X", "trainer-0 (reserved at Permit)", -1, &e), 1));
    cr_assert(eq(i64, json_integer_value(json_object_get(e, "ts")), 0));
    cr_assert(eq(i64, json_integer_value(json_object_get(e, "dur")), 30000000));
    json_decref(root);
    /* Kueue's Workload conditions as instants on the cluster's "API objects" thread */
    run_file("scenarios/teaching/kueue-quota.yaml");
    export(0);
    check_trace_events(&root);
    cr_assert(eq(int, find_events(root, "i", "Workload/default/b-1 Admitted=True", 1, NULL), 1));
    json_decref(root);
}

Test(export, perfetto_shared_gpus_and_operands)
{
    /* time-slicing: four pods on one GPU at once go on four threads of that GPU */
    run_file("scenarios/teaching/time-slicing-4x.yaml");
    export(0);
    json_t *root;
    check_trace_events(&root);
    cr_assert(gt(int, find_events(root, "M", "thread_name", -1, NULL), 8));
    json_decref(root);
    /* the GPU Operator's steps: one thread per operand */
    run_file("scenarios/teaching/bringup-compiled.yaml");
    export(0);
    check_trace_events(&root);
    json_t *evs = json_object_get(root, "traceEvents");
    int drivers = 0;
    for (size_t i = 0; i < json_array_size(evs); i++) {
        json_t *x = json_array_get(evs, i);
        const char *n = json_string_value(json_object_get(json_object_get(x, "args"), "name"));
        drivers += n && strcmp(n, "operand nvidia-driver-daemonset") == 0;
    }
    cr_assert(gt(int, drivers, 0));
    cr_assert(gt(int, find_events(root, "X", "1/1 Running", -1, NULL), 0));
    json_decref(root);
}

/* ---- OpenMetrics text: a strict parser ------------------------------------------------ */

#define OM_MAX 4096

struct om_check {
    char err[512];
    int line;
    /* families seen (no interleaving) */
    char (*families)[128];
    int nfam;
    char fam[128], type[32];
    bool have_type, have_unit, have_help, have_samples;
    /* metrics seen in this family, by label set without le (no interleaving) */
    char (*metrics)[OM_MAX];
    int nmet;
    char metric[OM_MAX];
    double last_ts; /* of the current metric's point */
    bool have_ts;
    /* the histogram point being read */
    double prev_le, prev_bucket, inf_bucket;
    bool have_inf;
    double counter_last;
};

static int om_fail(struct om_check *c, const char *fmt, const char *detail)
{
    snprintf(c->err, sizeof c->err, "line %d: ", c->line);
    size_t l = strlen(c->err);
    snprintf(c->err + l, sizeof c->err - l, fmt, detail ? detail : "");
    return -1;
}

static bool name_ok(const char *s, bool label)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_' || (!label && *s == ':')))
        return false;
    for (s++; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || (!label && *s == ':')))
            return false;
    return true;
}

/* A number of the ABNF (realnumber, or [sign] inf/infinity, nan, case-insensitively). */
static bool number_ok(const char *s, double *v)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (strcasecmp(p, "inf") == 0 || strcasecmp(p, "infinity") == 0 || strcasecmp(s, "nan") == 0) {
        *v = strcasecmp(s, "nan") == 0 ? NAN : (*s == '-' ? -INFINITY : INFINITY);
        return true;
    }
    int digits = 0;
    while (isdigit((unsigned char)*p))
        p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p))
            p++, digits++;
    }
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return false;
    *v = strtod(s, NULL);
    return true;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Parse `t` strictly (c's tables allocated by om_parse); 0 when valid, else -1 with c->err. */
static int om_parse_in(const char *t, struct om_check *c)
{
    int rc = 0;
    const char *s = t;
    bool eof = false;
    while (*s && rc == 0) {
        c->line++;
        const char *nl = strchr(s, '\n');
        if (eof)
            return om_fail(c, "text after # EOF%s", NULL);
        if (!nl)
            return strcmp(s, "# EOF") == 0 ? 0 : om_fail(c, "no line feed at the end%s", NULL);
        char ln[OM_MAX];
        size_t len = (size_t)(nl - s);
        if (len >= sizeof ln)
            return om_fail(c, "line too long%s", NULL);
        memcpy(ln, s, len);
        ln[len] = '\0';
        s = nl + 1;
        if (strchr(ln, '\r'))
            return om_fail(c, "carriage return%s", NULL);
        if (ln[0] == '#') {
            if (strcmp(ln, "# EOF") == 0) {
                eof = true;
                continue;
            }
            char kind[8], name[128];
            int off = 0;
            if (sscanf(ln, "# %7s %127s %n", kind, name, &off) < 2 || strncmp(ln, "# ", 2) != 0)
                return om_fail(c, "bad metadata line '%s'", ln);
            if (!name_ok(name, false))
                return om_fail(c, "bad metric name '%s'", name);
            const char *rest = strstr(ln + 2 + strlen(kind) + 1, name) + strlen(name);
            rest = *rest == ' ' ? rest + 1 : rest;
            if (strcmp(name, c->fam) != 0) { /* a new family */
                for (int i = 0; i < c->nfam; i++)
                    if (strcmp(c->families[i], name) == 0)
                        return om_fail(c, "family '%s' interleaved", name);
                snprintf(c->families[c->nfam++], sizeof c->families[0], "%s", name);
                snprintf(c->fam, sizeof c->fam, "%s", name);
                c->have_type = c->have_unit = c->have_help = c->have_samples = false;
                c->type[0] = '\0';
                c->nmet = 0;
                c->metric[0] = '\0';
            } else if (c->have_samples) {
                return om_fail(c, "metadata after samples of '%s'", name);
            }
            if (strcmp(kind, "TYPE") == 0) {
                static const char *const types[] = {"counter", "gauge", "histogram", "gaugehistogram", "stateset",
                                                    "info",    "summary", "unknown", NULL};
                bool ok = false;
                for (int i = 0; types[i]; i++)
                    ok = ok || strcmp(rest, types[i]) == 0;
                if (!ok || c->have_type)
                    return om_fail(c, "bad or repeated TYPE '%s'", rest);
                snprintf(c->type, sizeof c->type, "%s", rest);
                c->have_type = true;
            } else if (strcmp(kind, "UNIT") == 0) {
                char suffix[140];
                snprintf(suffix, sizeof suffix, "_%s", rest);
                if (c->have_unit || (*rest && !ends_with(name, suffix)))
                    return om_fail(c, "UNIT '%s' is not the family name's suffix (or repeated)", rest);
                c->have_unit = true;
            } else if (strcmp(kind, "HELP") == 0) {
                if (c->have_help)
                    return om_fail(c, "repeated HELP%s", NULL);
                for (const char *p = rest; *p; p++)
                    if (*p == '\\' && !strchr("n\"\\", p[1]))
                        return om_fail(c, "bad escape in HELP%s", NULL);
                    else if (*p == '\\')
                        p++;
                c->have_help = true;
            } else {
                return om_fail(c, "unknown metadata '%s'", kind);
            }
            continue;
        }
        /* a sample: name [labels] SP value [SP timestamp] */
        char name[128], labels[OM_MAX] = "", le[64] = "";
        size_t i = 0;
        while (ln[i] && ln[i] != '{' && ln[i] != ' ' && i < sizeof name - 1)
            name[i] = ln[i], i++;
        name[i] = '\0';
        if (!name_ok(name, false))
            return om_fail(c, "bad sample name '%s'", name);
        if (ln[i] == '{') {
            size_t j = ++i, lo = 0;
            char seen[32][64];
            int nseen = 0;
            while (ln[j] != '}') {
                char lname[64];
                size_t k = 0;
                while (ln[j] && ln[j] != '=' && k < sizeof lname - 1)
                    lname[k++] = ln[j++];
                lname[k] = '\0';
                if (ln[j] != '=' || ln[j + 1] != '"' || !name_ok(lname, true))
                    return om_fail(c, "bad label in '%s'", ln);
                for (int q = 0; q < nseen; q++)
                    if (strcmp(seen[q], lname) == 0)
                        return om_fail(c, "repeated label '%s'", lname);
                snprintf(seen[nseen++ % 32], sizeof seen[0], "%s", lname);
                j += 2;
                char val[OM_MAX / 2];
                size_t v = 0;
                while (ln[j] && ln[j] != '"') {
                    if (ln[j] == '\\') {
                        if (!strchr("n\"\\", ln[j + 1]))
                            return om_fail(c, "bad escape in label value: '%s'", ln);
                        val[v++] = ln[j++];
                    }
                    val[v++] = ln[j++];
                }
                val[v] = '\0';
                if (ln[j] != '"')
                    return om_fail(c, "unterminated label value: '%s'", ln);
                j++;
                if (strcmp(lname, "le") == 0)
                    snprintf(le, sizeof le, "%.63s", val);
                else
                    lo += (size_t)snprintf(labels + lo, sizeof labels - lo, "%s=\"%s\",", lname, val);
                if (ln[j] == ',')
                    j++;
                else if (ln[j] != '}')
                    return om_fail(c, "bad label list: '%s'", ln);
            }
            i = j + 1;
        }
        if (ln[i] != ' ')
            return om_fail(c, "no space before the value: '%s'", ln);
        char vs[64] = "", ts[64] = "";
        int got = sscanf(ln + i + 1, "%63s %63s", vs, ts);
        if (got < 1 || strstr(ln + i + 1, "  ") || ln[len - 1] == ' ')
            return om_fail(c, "bad value or timestamp: '%s'", ln);
        double v, tsv = 0;
        if (!number_ok(vs, &v) || (got == 2 && (!number_ok(ts, &tsv) || isnan(tsv) || isinf(tsv))))
            return om_fail(c, "bad number: '%s'", ln);
        /* the sample's name belongs to the family, as its type says */
        const char *suffix = name + strlen(c->fam);
        if (strncmp(name, c->fam, strlen(c->fam)) != 0)
            return om_fail(c, "sample '%s' outside its family's name", name);
        const char *type = c->have_type ? c->type : "unknown";
        bool ok = (strcmp(type, "gauge") == 0 || strcmp(type, "unknown") == 0) ? !*suffix
                  : strcmp(type, "counter") == 0 ? strcmp(suffix, "_total") == 0 || strcmp(suffix, "_created") == 0
                  : strcmp(type, "histogram") == 0
                      ? strcmp(suffix, "_bucket") == 0 || strcmp(suffix, "_count") == 0 || strcmp(suffix, "_sum") == 0 ||
                            strcmp(suffix, "_created") == 0
                      : true;
        if (!ok)
            return om_fail(c, "sample '%s' does not fit its family's type", name);
        if (strcmp(type, "histogram") == 0 && (strcmp(suffix, "_bucket") == 0) != (le[0] != '\0'))
            return om_fail(c, "le label on a sample that is not a bucket, or a bucket without it: '%s'", ln);
        c->have_samples = true;
        /* metrics (label sets) not interleaved; points in increasing time */
        if (strcmp(labels, c->metric) != 0 || c->nmet == 0) {
            for (int m = 0; m < c->nmet; m++)
                if (strcmp(c->metrics[m], labels) == 0)
                    return om_fail(c, "metric {%s} interleaved", labels);
            snprintf(c->metrics[c->nmet++ % 2048], OM_MAX, "%s", labels);
            snprintf(c->metric, sizeof c->metric, "%s", labels);
            c->have_ts = false;
            c->counter_last = -INFINITY;
        }
        if (got == 2) {
            bool new_point = !c->have_ts || tsv != c->last_ts;
            if (c->have_ts && tsv < c->last_ts)
                return om_fail(c, "timestamp goes back: '%s'", ln);
            if (strcmp(type, "histogram") == 0) {
                if (new_point && !(strcmp(suffix, "_bucket") == 0))
                    return om_fail(c, "a histogram point that does not start with its buckets: '%s'", ln);
                if (new_point) {
                    c->prev_le = -INFINITY;
                    c->prev_bucket = 0;
                    c->have_inf = false;
                }
                if (strcmp(suffix, "_bucket") == 0) {
                    double lev;
                    if (!number_ok(le, &lev) || lev <= c->prev_le || v < c->prev_bucket || c->have_inf)
                        return om_fail(c, "buckets not increasing or not cumulative: '%s'", ln);
                    c->prev_le = lev;
                    c->prev_bucket = v;
                    if (isinf(lev))
                        c->have_inf = true, c->inf_bucket = v;
                } else if (!c->have_inf) {
                    return om_fail(c, "a histogram point without a +Inf bucket: '%s'", ln);
                } else if (strcmp(suffix, "_count") == 0 && v != c->inf_bucket) {
                    return om_fail(c, "_count is not the +Inf bucket: '%s'", ln);
                }
            } else if (!new_point) {
                return om_fail(c, "two points of one metric at one time: '%s'", ln);
            }
            if (strcmp(type, "counter") == 0 && strcmp(suffix, "_total") == 0) {
                if (v < 0 || v < c->counter_last)
                    return om_fail(c, "counter negative or decreasing: '%s'", ln);
                c->counter_last = v;
            }
            c->last_ts = tsv;
            c->have_ts = true;
        }
    }
    if (!eof)
        return om_fail(c, "no # EOF%s", NULL);
    return rc;
}

static int om_parse(const char *t, struct om_check *c)
{
    memset(c, 0, sizeof *c);
    c->families = calloc(1024, sizeof *c->families);
    c->metrics = calloc(2048, sizeof *c->metrics);
    cr_assert(c->families && c->metrics);
    int rc = om_parse_in(t, c);
    free(c->families);
    free(c->metrics);
    c->families = NULL;
    c->metrics = NULL;
    return rc;
}

/* The value of the last sample of `series` (its full text up to the value) in `text`. */
static double last_value(const char *series)
{
    const char *p = text, *hit = NULL;
    size_t n = strlen(series);
    while ((p = strstr(p, series))) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            hit = p;
        p += n;
    }
    cr_assert_not_null(hit, "no sample of %s", series);
    return strtod(hit + n + 1, NULL);
}

Test(export, openmetrics_parser_rejects_faults)
{
    struct om_check c;
    static const char *const bad[] = {
        "# TYPE a gauge\na 1 1\n",                                   /* no EOF */
        "# TYPE a gauge\na 1 1\n# TYPE b gauge\nb 1 1\na 2 2\n# EOF\n", /* family interleaved */
        "# TYPE a gauge\na{x=\"1\"} 1 1\na{x=\"2\"} 1 1\na{x=\"1\"} 1 2\n# EOF\n", /* metric interleaved */
        "# TYPE a gauge\na 1 2\na 1 1\n# EOF\n",                     /* time goes back */
        "# TYPE a counter\na_total 2 1\na_total 1 2\n# EOF\n",        /* counter decreases */
        "# TYPE a counter\na 1 1\n# EOF\n",                           /* counter without _total */
        "# TYPE a_seconds histogram\na_seconds_bucket{le=\"1.0\"} 1 1\na_seconds_count 1 1\n# EOF\n", /* no +Inf */
        "# TYPE a histogram\na_bucket{le=\"+Inf\"} 2 1\na_count 1 1\n# EOF\n", /* count != +Inf */
        "# TYPE a gauge\na{x=\"\\q\"} 1 1\n# EOF\n",                  /* bad escape */
        "# TYPE a gauge\n# UNIT a seconds\na 1 1\n# EOF\n",           /* unit not a suffix */
        "# TYPE a gauge\na 1 1\n# EOF\na 1 2\n",                      /* after EOF */
        "# TYPE a gauge\na 1.2.3 1\n# EOF\n",                         /* bad number */
        "# TYPE a gauge\na 1 1\n# HELP a late\n# EOF\n",              /* metadata after samples */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect(eq(int, om_parse(bad[i], &c), -1), "accepted case %zu:\n%s", i, bad[i]);
    const char *good = "# TYPE a_seconds histogram\n# UNIT a_seconds seconds\n# HELP a_seconds x \\\" y\n"
                       "a_seconds_bucket{k=\"v\\n\",le=\"0.5\"} 1 10\na_seconds_bucket{k=\"v\\n\",le=\"+Inf\"} 2 10\n"
                       "a_seconds_count{k=\"v\\n\"} 2 10\na_seconds_sum{k=\"v\\n\"} 1.5 10\n# EOF\n";
    cr_assert(eq(int, om_parse(good, &c), 0), "%s", c.err);
}

Test(export, openmetrics_gang_deadlock)
{
    run_file("scenarios/teaching/gang-deadlock.yaml");
    export(1);
    struct om_check c;
    cr_assert(eq(int, om_parse(text, &c), 0), "%s", c.err);
    /* at the end (2026-01-01T01:00:00Z): 3 pods the scheduler tried and failed, 4 bound once
     * each, 11 FailedScheduling each for 3 pods; every node 8 GPUs allocatable */
    cr_assert(eq(dbl, last_value("scheduler_pending_pods{queue=\"unschedulable\"}"), 3));
    cr_assert(eq(dbl, last_value("scheduler_pending_pods{queue=\"active\"}"), 0));
    cr_assert(eq(dbl, last_value("scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"}"), 4));
    cr_assert(eq(dbl, last_value("scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"unschedulable\"}"),
                 33));
    cr_assert(eq(dbl, last_value("kube_node_status_allocatable{node=\"h100-2\",resource=\"nvidia_com_gpu\",unit=\"integer\"}"),
                 8));
    cr_assert(eq(dbl, last_value("kube_node_status_allocatable{node=\"h100-2\",resource=\"cpu\",unit=\"core\"}"), 192));
    cr_assert(eq(dbl, last_value("kube_pod_status_phase{namespace=\"default\",pod=\"trainer-a-2\",uid=\"4\",phase=\"Pending\"}"),
                 1));
    cr_assert(eq(dbl, last_value("kube_pod_status_phase{namespace=\"default\",pod=\"trainer-a-0\",uid=\"0\",phase=\"Running\"}"),
                 1));
    cr_assert(eq(dbl, last_value("scheduler_pod_scheduling_sli_duration_seconds_count{attempts=\"1\"}"), 4));
    cr_assert(eq(dbl, last_value("gpusim_gpus_allocated"), 32));
    /* the last point's timestamp: the epoch plus the 1h horizon */
    cr_assert(ne(ptr, strstr(text, "gpusim_gpus_allocated 32 1767229200\n"), NULL));
    cr_assert(ne(ptr, strstr(text, "scheduler_pod_scheduling_sli_duration_seconds_bucket{attempts=\"1\",le=\"5242.88\"} 4 1767229200\n"), NULL));
}

Test(export, openmetrics_xid)
{
    run_file("scenarios/teaching/xid-unhealthy.yaml");
    export(1);
    struct om_check c;
    cr_assert(eq(int, om_parse(text, &c), 0), "%s", c.err);
    /* Xid 94 on GPU 3 of the node at 30m; Xid 13 on GPU 2 at 20m; none on GPU 0 */
    cr_assert(eq(dbl,
                 last_value("DCGM_FI_DEV_XID_ERRORS{gpu=\"3\",device=\"nvidia3\",modelName=\"NVIDIA H100 80GB HBM3\","
                            "Hostname=\"h100-0\"}"),
                 94));
    cr_assert(eq(dbl,
                 last_value("DCGM_FI_DEV_XID_ERRORS{gpu=\"2\",device=\"nvidia2\",modelName=\"NVIDIA H100 80GB HBM3\","
                            "Hostname=\"h100-0\"}"),
                 13));
    cr_assert(eq(dbl,
                 last_value("DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\","
                            "Hostname=\"h100-0\"}"),
                 0));
}
