/* The HTML report's data (reports/html.c) on whole runs: the page is self-contained (no URL,
 * one data element whose JSON cannot end it early), its step-through replays to the holdings
 * reports/history.h gives, its CDF is the study's time to schedule, its bounds cut where told;
 * gs_study_times_to_schedule agrees with the study document; compare's page holds every run. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "reports/history.h"
#include "reports/html.h"
#include "reports/open.h"
#include "reports/study.h"
#include "sim/run.h"
#include "sim/scenario.h"

static char trace_a[256], trace_b[256];
static char *page;       /* the last page written */
static json_t *data;     /* its data element, parsed */

static void run_file(const char *scenario, const char *out, enum gs_trace_level level)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    unlink(out);
    int rc = gs_scenario_load(scenario, NULL, 0, -1, -1, &sc, &err);
    cr_assert(eq(int, rc, 0), "load %s: %s", scenario, err.msg);
    struct gs_run_opts o = {.trace_path = out, .trace_level = level};
    struct gs_run_result r;
    char ebuf[256];
    cr_assert(eq(int, gs_run(&sc, &o, &r, ebuf, sizeof ebuf), 0), "%s", ebuf);
    gs_scenario_free(&sc);
}

static void setup(void)
{
    snprintf(trace_a, sizeof trace_a, "/tmp/gpusim-test-html-a-%d.db", (int)getpid());
    snprintf(trace_b, sizeof trace_b, "/tmp/gpusim-test-html-b-%d.db", (int)getpid());
    run_file(GPUSIM_SOURCE_DIR "/scenarios/teaching/gang-deadlock.yaml", trace_a, GS_TRACE_EVENTS);
}

static void teardown(void)
{
    free(page);
    page = NULL;
    json_decref(data);
    data = NULL;
    unlink(trace_a);
    unlink(trace_b);
}

TestSuite(html, .init = setup, .fini = teardown);

/* Parse the data element of `page` into `data`. */
static void parse_page(void)
{
    const char *open = "<script type=\"application/json\" id=\"gpusim-data\">";
    const char *a = strstr(page, open);
    cr_assert(a != NULL, "no data element");
    cr_assert(eq(ptr, (void *)strstr(a + 1, open), NULL), "two data elements");
    a += strlen(open);
    const char *b = strstr(a, "</script>");
    cr_assert(b != NULL);
    json_error_t je;
    data = json_loadb(a, (size_t)(b - a), 0, &je);
    cr_assert(data != NULL, "data: %s at %d", je.text, je.position);
}

static int write_report(const char *trace, const struct gs_html_options *o, char *err)
{
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    cr_assert(f != NULL);
    int rc = gs_report_html(trace, o, f, err, 256);
    fclose(f);
    return rc;
}

Test(html, page_is_self_contained)
{
    char err[256] = "";
    cr_assert(eq(int, write_report(trace_a, NULL, err), 0), "%s", err);
    cr_assert(eq(int, strncmp(page, "<!DOCTYPE html>", 15), 0));
    cr_expect(eq(ptr, strstr(page, "http:"), NULL));
    cr_expect(eq(ptr, strstr(page, "https:"), NULL));
    cr_expect(eq(ptr, strstr(page, "src="), NULL));
    cr_expect(eq(ptr, strstr(page, "<link"), NULL));
    cr_expect(ne(ptr, strstr(page, "<title>gpusim report: gang-deadlock</title>"), NULL));
    /* the embedded stylesheet and script are there, whole */
    cr_expect(ne(ptr, strstr(page, "#event .msg"), NULL));
    cr_expect(ne(ptr, strstr(page, "window.addEventListener('hashchange', fromHash);"), NULL));
    parse_page();
    cr_expect(eq(str, (char *)json_string_value(json_object_get(data, "schema")), "gpusim-html/1"));
    cr_expect(eq(str, (char *)json_string_value(json_object_get(data, "kind")), "report"));
}

Test(html, data_cannot_end_the_script_element)
{
    /* every '/' in the data is written "\/", so no string of the trace can hold "</script>" */
    char err[256] = "";
    cr_assert(eq(int, write_report(trace_a, NULL, err), 0), "%s", err);
    const char *a = strstr(page, "id=\"gpusim-data\">"), *b = strstr(page, "</script>");
    cr_assert(a && b && a < b);
    cr_expect(ne(ptr, strstr(a, "Successfully assigned default\\/trainer-a-0 to"), NULL));
    cr_expect(eq(ptr, strstr(a, "default/trainer-a-0"), NULL));
    parse_page();
    /* and parsed back, it is the trace's text */
    json_t *strings = json_object_get(data, "strings");
    bool found = false;
    for (size_t i = 0; i < json_array_size(strings); i++)
        found |= strcmp(json_string_value(json_array_get(strings, i)), "Successfully assigned default/trainer-a-0 to h100-1") == 0;
    cr_expect(found);
}

/* Replay the page's step-through to its end: per node the allocated GPUs it says. */
static void replay(json_t *steps, int64_t *alloc, int nnodes, int upto)
{
    json_t *init = json_object_get(steps, "initial");
    for (int n = 0; n < nnodes; n++)
        alloc[n] = json_integer_value(json_array_get(json_object_get(init, "allocated"), (size_t)n));
    json_t *events = json_object_get(steps, "events");
    for (int k = 0; k < upto; k++) {
        json_t *changes = json_array_get(json_array_get(events, (size_t)k), 8);
        size_t i;
        json_t *c;
        json_array_foreach(changes, i, c)
        {
            json_int_t who = json_integer_value(json_array_get(c, 0));
            if (who < 0)
                alloc[-1 - who] = json_integer_value(json_array_get(c, 3));
        }
    }
}

Test(html, steps_replay_to_the_history)
{
    char err[256] = "";
    cr_assert(eq(int, write_report(trace_a, NULL, err), 0), "%s", err);
    parse_page();
    sqlite3 *db;
    cr_assert(eq(int, gs_report_open(trace_a, &db, err, sizeof err), 0), "%s", err);
    struct gs_history h;
    cr_assert(eq(int, gs_history_load(db, &h, err, sizeof err), 0), "%s", err);
    json_t *steps = json_object_get(data, "steps");
    int n = (int)json_array_size(json_object_get(steps, "events"));
    cr_expect(eq(int, n, h.nevents));
    cr_expect(eq(int, (int)json_integer_value(json_object_get(steps, "total")), h.nevents));
    cr_expect(eq(int, (int)json_integer_value(json_object_get(steps, "first")), 0));
    cr_assert(eq(int, (int)json_array_size(json_object_get(data, "nodes")), h.nnodes));
    /* the PodGroups and their pods: trainer-a and trainer-b, three each */
    json_t *groups = json_object_get(data, "groups");
    cr_expect(eq(int, (int)json_object_size(groups), 2));
    cr_expect(eq(i64, json_integer_value(json_object_get(groups, "trainer-a")), 3));
    cr_expect(eq(i64, json_integer_value(json_object_get(groups, "trainer-b")), 3));
    struct gs_hist_state st;
    cr_assert(eq(int, gs_hist_state_init(&h, &st), 0));
    int64_t alloc[8];
    cr_assert(h.nnodes <= 8);
    /* after every event, the page's per-node allocated GPUs are the history's */
    for (int k = 0; k <= n; k++) {
        gs_hist_state_advance(&h, &st, k);
        replay(steps, alloc, h.nnodes, k);
        for (int node = 0; node < h.nnodes; node++)
            cr_expect(eq(i64, alloc[node], gs_hist_node_allocated(&h, &st, node)), "step %d node %d", k, node);
    }
    /* gang-deadlock ends with every GPU of the four nodes held */
    for (int node = 0; node < h.nnodes; node++)
        cr_expect(eq(i64, alloc[node], 8));
    gs_hist_state_free(&st);
    gs_history_free(&h);
    sqlite3_close(db);
    /* free GPUs: 32 at the joins, none from 3s on; the largest block 8 until then */
    json_t *fr = json_object_get(json_array_get(json_object_get(data, "runs"), 0), "free");
    size_t last = json_array_size(json_object_get(fr, "t")) - 1;
    cr_expect(eq(i64, json_integer_value(json_array_get(json_object_get(fr, "t"), last)), 3000000));
    cr_expect(eq(i64, json_integer_value(json_array_get(json_object_get(fr, "free"), last)), 0));
    cr_expect(eq(i64, json_integer_value(json_array_get(json_object_get(fr, "largest"), last)), 0));
    cr_expect(eq(i64, json_integer_value(json_array_get(json_object_get(fr, "largest"), last - 1)), 8));
}

Test(html, window_of_steps)
{
    char err[256] = "";
    struct gs_html_options o = {.max_steps = 5, .from_us = 2000000};
    cr_assert(eq(int, write_report(trace_a, &o, err), 0), "%s", err);
    parse_page();
    json_t *steps = json_object_get(data, "steps");
    json_t *events = json_object_get(steps, "events");
    cr_expect(eq(int, (int)json_array_size(events), 5));
    /* the window starts at the first event at or after 2s; before it, trainer-a-0 and
     * trainer-b-0 hold their nodes: 16 GPUs in the initial state */
    cr_expect(eq(i64, json_integer_value(json_array_get(json_array_get(events, 0), 0)), 2000000));
    int64_t sum = 0;
    json_t *alloc = json_object_get(json_object_get(steps, "initial"), "allocated");
    for (size_t i = 0; i < json_array_size(alloc); i++)
        sum += json_integer_value(json_array_get(alloc, i));
    cr_expect(eq(i64, sum, 16));
    cr_expect(eq(int, (int)json_array_size(json_object_get(json_object_get(steps, "initial"), "holds")), 2));
    cr_expect(gt(int, (int)json_integer_value(json_object_get(steps, "first")), 0));
}

Test(html, cdf_is_the_study_time_to_schedule)
{
    double *v = NULL;
    int n = 0;
    char err[256] = "";
    cr_assert(eq(int, gs_study_times_to_schedule(trace_a, &v, &n, err, sizeof err), 0), "%s", err);
    json_t *doc;
    cr_assert(eq(int, gs_study_open(trace_a, &doc, err, sizeof err), 0), "%s", err);
    json_t *q = json_object_get(doc, "timeToSchedule");
    cr_expect(eq(int, n, (int)json_integer_value(json_object_get(q, "count"))));
    cr_expect(eq(int, n, 4)); /* two pods of each job bound, at their creation */
    for (int i = 1; i < n; i++)
        cr_expect(le(dbl, v[i - 1], v[i]));
    cr_expect(eq(dbl, v[n - 1], json_real_value(json_object_get(q, "max"))));
    json_decref(doc);
    cr_assert(eq(int, write_report(trace_a, NULL, err), 0), "%s", err);
    parse_page();
    json_t *run = json_array_get(json_object_get(data, "runs"), 0);
    json_t *cdf = json_object_get(run, "cdf");
    cr_expect(eq(int, (int)json_array_size(cdf), n));
    cr_expect(eq(dbl, json_real_value(json_array_get(json_array_get(cdf, 3), 1)), 1.0));
    cr_expect(eq(int, (int)json_integer_value(json_object_get(run, "bound")), 4));
    gs_free(v);
}

Test(html, compare_holds_every_run)
{
    run_file(GPUSIM_SOURCE_DIR "/scenarios/teaching/gang-deadlock-gang.yaml", trace_b, GS_TRACE_EVENTS);
    const char *traces[] = {trace_a, trace_b};
    const char *labels[] = {"pod by pod", "gang"};
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    char err[256] = "";
    cr_assert(eq(int, gs_compare_html(traces, labels, 2, f, err, sizeof err), 0), "%s", err);
    fclose(f);
    parse_page();
    json_t *runs = json_object_get(data, "runs");
    cr_assert(eq(int, (int)json_array_size(runs), 2));
    cr_expect(eq(str, (char *)json_string_value(json_object_get(json_array_get(runs, 1), "label")), "gang"));
    cr_expect(eq(ptr, json_object_get(data, "steps"), NULL));
    cr_expect(eq(str, (char *)json_string_value(json_object_get(data, "kind")), "compare"));
    /* the samples: the gang run holds no GPU in incomplete groups at the end, pod by pod 32 */
    for (int i = 0; i < 2; i++) {
        json_t *held = json_object_get(json_object_get(json_object_get(json_object_get(json_array_get(runs, (size_t)i),
                                                                                       "samples"), "pools"), ""), "held");
        cr_expect(eq(i64, json_integer_value(json_array_get(held, json_array_size(held) - 1)), i == 0 ? 32 : 0));
    }
}

Test(html, summary_trace_is_refused)
{
    run_file(GPUSIM_SOURCE_DIR "/scenarios/teaching/gang-deadlock.yaml", trace_b, GS_TRACE_SUMMARY);
    char err[256] = "";
    cr_expect(eq(int, write_report(trace_b, NULL, err), GS_EINVAL));
    cr_expect(ne(ptr, strstr(err, "--trace-level summary"), NULL), "%s", err);
}
