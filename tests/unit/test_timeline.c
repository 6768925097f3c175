/* `gpusim timeline` (reports/timeline.c) on whole runs: every line of gang-deadlock.yaml's
 * timeline is checked against the trace's own rows (the GPUs each node holds after each pod
 * event, rebuilt here from the GpuAllocated rows independently of reports/history.c), and the
 * options (--node, --changed, --from/--to, ASCII and UTF-8 glyphs, the width) and errors. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "models/quantity.h"
#include "reports/timeline.h"
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
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-timeline-%d.db", (int)getpid());
    unlink(trace_path);
}

static void teardown(void)
{
    free(text);
    text = NULL;
    unlink(trace_path);
}

TestSuite(timeline, .init = setup, .fini = teardown);

/* The timeline under `o` into `text`; returns gs_report_timeline's code, err its message. */
static int timeline(const struct gs_timeline_opts *o, char *err, size_t errlen)
{
    free(text);
    text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    int rc = gs_report_timeline(trace_path, o, f, err, (int)errlen);
    fclose(f);
    return rc;
}

/* Line `i` (0-based) of `text` into buf. */
static const char *line(int i, char *buf, size_t n)
{
    const char *s = text;
    for (; i > 0 && s; i--) {
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    cr_assert_not_null(s, "no line %d in:\n%s", i, text);
    size_t l = strcspn(s, "\n");
    cr_assert(l < n);
    memcpy(buf, s, l);
    buf[l] = '\0';
    return buf;
}

static int count_lines(void)
{
    int n = 0;
    for (const char *s = text; *s; s++)
        n += *s == '\n';
    return n;
}

/* The expected cell of a node: the slots named by GpuAllocated rows '#', GPUs held without
 * named slots filling the first free slots, the rest '.' (every node has 8 allocatable). */
static void expected_cell(unsigned mask, int unknown, char *cell)
{
    for (int g = 0; g < 8; g++) {
        if (mask >> g & 1)
            cell[g] = '#';
        else if (unknown > 0)
            cell[g] = '#', unknown--;
        else
            cell[g] = '.';
    }
    cell[8] = '\0';
}

Test(timeline, gang_deadlock_every_line_matches_the_trace)
{
    run_file("scenarios/teaching/gang-deadlock.yaml");
    struct gs_timeline_opts o = {.to_us = -1, .width = 200, .ascii = true};
    char err[512];
    cr_assert(eq(int, timeline(&o, err, sizeof err), 0), "%s", err);

    /* the heading gives each node's column */
    char head[512], buf[512];
    line(0, head, sizeof head);
    cr_assert(eq(str, (char *)line(0, buf, sizeof buf), "TIME EVENT       REASON                h100-0   h100-1   h100-2   h100-3"));
    int col[4];
    for (int n = 0; n < 4; n++) {
        char name[16];
        snprintf(name, sizeof name, "h100-%d", n);
        col[n] = (int)(strstr(head, name) - head);
    }

    /* walk the trace's pod_event rows in order beside the timeline's pod lines */
    sqlite3 *db;
    cr_assert(eq(int, sqlite3_open_v2(trace_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK));
    sqlite3_stmt *st;
    cr_assert(eq(int,
                 sqlite3_prepare_v2(db,
                                    "SELECT e.t_us, p.name, e.reason, e.message, e.count, p.gpu, "
                                    "(SELECT name FROM node WHERE id = p.node_id) FROM pod_event e "
                                    "JOIN pod p ON p.id = e.pod_id ORDER BY e.t_us, e.rowid",
                                    -1, &st, NULL),
                 SQLITE_OK));
    unsigned mask[4] = {0};
    int unknown[4] = {0};
    int nlines = count_lines(), li = 1, checked = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *pod = (const char *)sqlite3_column_text(st, 1);
        const char *reason = (const char *)sqlite3_column_text(st, 2);
        const char *msg = (const char *)sqlite3_column_text(st, 3);
        int count = sqlite3_column_int(st, 4), gpu = sqlite3_column_int(st, 5);
        const char *node = (const char *)sqlite3_column_text(st, 6);
        int n = node ? node[5] - '0' : -1;
        if (strcmp(reason, "Scheduled") == 0) {
            unknown[n] += gpu;
        } else if (strcmp(reason, "GpuAllocated") == 0) {
            const char *g = strstr(msg, "gpu=") + 4;
            for (; *g >= '0' && *g <= '9'; g += g[1] == ',' ? 2 : 1)
                mask[n] |= 1u << (*g - '0');
            unknown[n] -= gpu;
        }
        /* the next pod line of the timeline (node lines carry "node/") */
        while (li < nlines && strstr(line(li, buf, sizeof buf), " node/"))
            li++;
        cr_assert(li < nlines, "the timeline ends before %s %s", pod, reason);
        line(li++, buf, sizeof buf);
        char want_time[32], got_time[32], got_pod[64], got_reason[64];
        gs_duration_format(sqlite3_column_int64(st, 0), want_time, sizeof want_time);
        cr_assert(eq(int, sscanf(buf, "%31s %63s %63s", got_time, got_pod, got_reason), 3), "%s", buf);
        cr_expect(eq(str, got_time, want_time), "%s", buf);
        cr_expect(eq(str, got_pod, (char *)pod), "%s", buf);
        cr_expect(eq(str, got_reason, (char *)reason), "%s", buf);
        if (count > 1) {
            char x[16];
            snprintf(x, sizeof x, " x%d ", count);
            cr_expect(ne(ptr, strstr(buf, x), NULL), "no count '%s' in: %s", x, buf);
        }
        for (int k = 0; k < 4; k++) {
            char want[9], got[9];
            expected_cell(mask[k], unknown[k], want);
            snprintf(got, sizeof got, "%.8s", buf + col[k]);
            cr_expect(eq(str, got, want), "h100-%d after '%s': %s", k, buf, buf);
        }
        checked++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    cr_assert(eq(int, checked, 22)); /* every pod_event row of the run */
    /* the deadlock: both groups hold two nodes each, every GPU allocated, three pods waiting */
    cr_assert(eq(str, (char *)line(nlines - 1, buf, sizeof buf),
                 "1m0s notebook    FailedScheduling x11  ######## ######## ######## ########"));
}

Test(timeline, legend_glyphs_and_locale)
{
    run_file("scenarios/teaching/gang-deadlock.yaml");
    struct gs_timeline_opts o = {.to_us = 1000000, .width = 100, .legend = true};
    char err[512], buf[512];
    cr_assert(eq(int, timeline(&o, err, sizeof err), 0), "%s", err);
    cr_assert(eq(str, (char *)line(0, buf, sizeof buf),
                 "GPUs per node after each event: \u2588 held by a pod  \u2592 shared, part held  \u00b7 free  "
                 "\u2591 not allocatable"));
    /* trainer-b-0 bound to h100-0 at 1s, trainer-a-0 on h100-1 since 0s */
    cr_assert(eq(str, (char *)line(count_lines() - 3, buf, sizeof buf),
                 "  1s trainer-b-0 Scheduled     \u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588 "
                 "\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588 \u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7 "
                 "\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7"));
    cr_expect(eq(int, gs_timeline_locale_utf8("C.UTF-8", NULL, NULL), 1));
    cr_expect(eq(int, gs_timeline_locale_utf8(NULL, "", "en_US.utf8"), 1));
    cr_expect(eq(int, gs_timeline_locale_utf8("", NULL, "de_DE.UTF-8@euro"), 1));
    cr_expect(eq(int, gs_timeline_locale_utf8("C", NULL, "en_US.UTF-8"), 0)); /* LC_ALL wins */
    cr_expect(eq(int, gs_timeline_locale_utf8(NULL, NULL, NULL), 0));
    cr_expect(eq(int, gs_timeline_locale_utf8(NULL, NULL, "POSIX"), 0));
    cr_expect(eq(int, gs_timeline_locale_utf8(NULL, NULL, "en_US.ISO-8859-1"), 0));
}

Test(timeline, node_filter_changed_window_and_wrap)
{
    run_file("scenarios/teaching/gang-deadlock.yaml");
    char err[512], buf[512];
    /* --node: only h100-3's column and the events on it */
    const char *nodes[] = {"h100-3"};
    struct gs_timeline_opts o = {.to_us = -1, .width = 100, .ascii = true, .nodes = nodes, .nnodes = 1};
    cr_assert(eq(int, timeline(&o, err, sizeof err), 0), "%s", err);
    cr_assert(eq(int, count_lines(), 7));
    cr_assert(eq(str, (char *)line(0, buf, sizeof buf), "TIME EVENT       REASON        h100-3"));
    cr_assert(eq(str, (char *)line(1, buf, sizeof buf), "  0s node/h100-3 Joined        --------"));
    cr_assert(eq(str, (char *)line(4, buf, sizeof buf), "  2s trainer-a-1 Scheduled     ########"));

    /* --changed and a window: only the nodes each event changed */
    struct gs_timeline_opts c = {.from_us = 2000000, .to_us = 3000000, .width = 100, .ascii = true, .changed = true};
    cr_assert(eq(int, timeline(&c, err, sizeof err), 0), "%s", err);
    cr_assert(eq(int, count_lines(), 8));
    cr_assert(eq(str, (char *)line(0, buf, sizeof buf), "  2s trainer-a-1 Created"));
    cr_assert(eq(str, (char *)line(1, buf, sizeof buf), "  2s trainer-a-1 Scheduled     h100-3 ########"));
    cr_assert(eq(str, (char *)line(5, buf, sizeof buf), "  3s trainer-b-1 Scheduled     h100-2 ########"));

    /* 50 columns: the last two nodes wrap onto a continuation line, under a wrapped heading */
    struct gs_timeline_opts w = {.from_us = 4000000, .to_us = 4000000, .width = 50, .ascii = true};
    cr_assert(eq(int, timeline(&w, err, sizeof err), 0), "%s", err);
    cr_assert(eq(str, text,
                 "TIME EVENT       REASON                h100-0\n"
                 "    h100-1   h100-2   h100-3\n"
                 "  4s trainer-a-2 Created               ########\n"
                 "    ######## ######## ########\n"
                 "  4s trainer-a-2 FailedScheduling x11  ########\n"
                 "    ######## ######## ########\n"));
}

Test(timeline, errors)
{
    run_file("scenarios/teaching/gang-deadlock.yaml");
    char err[512];
    const char *nodes[] = {"h100-7"};
    struct gs_timeline_opts o = {.to_us = -1, .width = 100, .nodes = nodes, .nnodes = 1};
    cr_assert(eq(int, timeline(&o, err, sizeof err), GS_EINVAL));
    char want[600];
    snprintf(want, sizeof want, "trace '%s' has no node named 'h100-7' (did you mean 'h100-0'?)", trace_path);
    cr_assert(eq(str, err, want));
    struct gs_timeline_opts p = {.to_us = -1, .width = 100};
    cr_assert(eq(int, gs_report_timeline("/nonexistent/x.db", &p, stdout, err, sizeof err), GS_EIO), "%s", err);
}

/* At every sample time the GPUs the timeline shows held on each node (whole or shared) add up to
 * the sample's gpus_allocated (the samples' rule, reports/history.h): preemption.yaml (pods
 * evicted and re-created), weekly-os-patch.yaml (nodes rebooted with pods evicted), fractional.yaml
 * (gpu-milli shares), coscheduling-timeout.yaml and scheduler-restart.yaml (GPUs reserved at
 * Permit, given up by a timeout or by kube-scheduler's restart). */
static void check_samples(const char *rel)
{
    run_file(rel);
    struct gs_timeline_opts o = {.to_us = -1, .width = 1000, .ascii = true, .all = true};
    char err[512], head[1024], buf[1024];
    cr_assert(eq(int, timeline(&o, err, sizeof err), 0), "%s", err);
    int nlines = count_lines();
    line(0, head, sizeof head);
    int cells_at = (int)(strstr(head, "REASON") - head); /* the cells follow the reason column */
    while (head[cells_at] && head[cells_at] != ' ')
        cells_at++;
    while (head[cells_at] == ' ')
        cells_at++;
    sqlite3 *db;
    cr_assert(eq(int, sqlite3_open_v2(trace_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK));
    sqlite3_stmt *st;
    cr_assert(eq(int, sqlite3_prepare_v2(db, "SELECT t_us, gpus_allocated FROM sample WHERE pool = '' ORDER BY t_us, rowid",
                                         -1, &st, NULL),
                 SQLITE_OK));
    int checked = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(st, 0);
        /* the last line at or before t (headings, repeated every 40 events, start with TIME) */
        int at = -1;
        for (int i = 1; i < nlines; i++) {
            line(i, buf, sizeof buf);
            if (strncmp(buf + strspn(buf, " "), "TIME ", 5) == 0)
                continue;
            char ts[32];
            int64_t us;
            cr_assert(eq(int, sscanf(buf, "%31s", ts), 1));
            cr_assert(eq(int, gs_duration_parse(ts, &us), 0), "%s", buf);
            if (us > t)
                break;
            at = i;
        }
        if (at < 0)
            continue;
        line(at, buf, sizeof buf);
        int held = 0;
        for (const char *p = buf + cells_at; *p; p++)
            held += *p == '#' || *p == '+';
        cr_expect(eq(int, held, sqlite3_column_int(st, 1)), "%s at %lld: line '%s'", rel, (long long)t, buf);
        checked++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    cr_assert(gt(int, checked, 3));
}

Test(timeline, held_glyphs_equal_the_samples)
{
    check_samples("scenarios/teaching/preemption.yaml");
    check_samples("scenarios/teaching/weekly-os-patch.yaml");
    check_samples("scenarios/teaching/fractional.yaml");
    check_samples("scenarios/teaching/coscheduling-timeout.yaml"); /* GPUs reserved at Permit */
    check_samples("scenarios/teaching/scheduler-restart.yaml");    /* reservations dropped at once */
    /* (not time-slicing: its samples count the 16 replicas as GPUs, the glyphs the 4 GPUs) */
}
