/* `gpusim get` and `describe pod/NAME` (reports/get.h): kubectl's AGE rounding, and the pods
 * and nodes of a run at a time read back from its trace. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "reports/get.h"
#include "sim/run.h"
#include "sim/scenario.h"

static char trace_path[256];

static void fini(void)
{
    if (trace_path[0])
        unlink(trace_path);
}

TestSuite(get, .fini = fini);

static char *age(int64_t s)
{
    static char buf[8][32];
    static int k;
    char *b = buf[k++ % 8];
    gs_get_human_duration(s * 1000000, b, 32);
    return b;
}

/* apimachinery pkg/util/duration HumanDuration's thresholds. */
Test(get, age_is_kubectls_human_duration)
{
    cr_expect(eq(str, age(0), "0s"));
    cr_expect(eq(str, age(59), "59s"));
    cr_expect(eq(str, age(119), "119s"));
    cr_expect(eq(str, age(120), "2m"));
    cr_expect(eq(str, age(121), "2m1s"));
    cr_expect(eq(str, age(599), "9m59s"));
    cr_expect(eq(str, age(600), "10m"));
    cr_expect(eq(str, age(601), "10m"));
    cr_expect(eq(str, age(3 * 3600 - 1), "179m"));
    cr_expect(eq(str, age(3 * 3600), "3h"));
    cr_expect(eq(str, age(3 * 3600 + 60), "3h1m"));
    cr_expect(eq(str, age(8 * 3600), "8h"));
    cr_expect(eq(str, age(47 * 3600 + 59 * 60), "47h"));
    cr_expect(eq(str, age(48 * 3600), "2d"));
    cr_expect(eq(str, age(49 * 3600), "2d1h"));
    cr_expect(eq(str, age(8 * 24 * 3600), "8d"));
    cr_expect(eq(str, age(2 * 365 * 24 * 3600), "2y"));
    cr_expect(eq(str, age(2 * 365 * 24 * 3600 + 24 * 3600), "2y1d"));
    cr_expect(eq(str, age(9 * 365 * 24 * 3600), "9y"));
    cr_expect(eq(str, age(-1), "0s"));
    cr_expect(eq(str, age(-2), "<invalid>"));
}

static void run_file(const char *path)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-get-%d.db", (int)getpid());
    unlink(trace_path);
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert(eq(int, gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err), 0), "%s", err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result res;
    char eb[256] = "";
    int rc = gs_run(&sc, &o, &res, eb, sizeof eb);
    gs_scenario_free(&sc);
    cr_assert(eq(int, rc, 0), "%s", eb);
}

static char *get(enum gs_get_kind kind, int64_t at, bool wide, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    char err[512] = "";
    *rc = gs_report_get(trace_path, kind, at, wide, f, err, sizeof err);
    fclose(f);
    return buf;
}

/* Line `n` (0-based) of `text`, without its newline. */
static char *line(const char *text, int n)
{
    static char out[4][1024];
    static int k;
    char *o = out[k++ % 4];
    o[0] = '\0';
    const char *p = text;
    for (int i = 0; i < n && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return o;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 1023)
        len = 1023;
    memcpy(o, p, len);
    o[len] = '\0';
    return o;
}

Test(get, preemption_at_5m_terminating_victims_and_a_nominated_preemptor)
{
    run_file(GPUSIM_SOURCE_DIR "/scenarios/teaching/preemption.yaml");
    int rc;
    char *out = get(GS_GET_PODS, GS_SEC(300), true, &rc);
    cr_assert(eq(int, rc, 0));
    cr_expect(eq(str, line(out, 0),
                 "NAME    READY   STATUS        RESTARTS   AGE     IP       NODE     NOMINATED NODE   READINESS GATES   GPUS   GPU-IDS"));
    cr_expect(eq(str, line(out, 1),
                 "high    0/1     Pending       0          0s      <none>   <none>   h100-1           <none>            8      -"));
    cr_expect(eq(str, line(out, 2),
                 "low-0   1/1     Terminating   0          4m50s   <none>   h100-1   <none>           <none>            4      0,1,2,3"));
    cr_expect(eq(str, line(out, 4),
                 "mid     1/1     Running       0          5m      <none>   h100-0   <none>           <none>            8      0,1,2,3,4,5,6,7"));
    cr_expect(eq(str, line(out, 5), ""));
    free(out);
    out = get(GS_GET_NODES, GS_SEC(300), false, &rc);
    cr_assert(eq(int, rc, 0));
    cr_expect(eq(str, line(out, 0), "NAME     STATUS   ROLES    AGE   VERSION"));
    cr_expect(eq(str, line(out, 2), "h100-1   Ready    <none>   5m    v1.34"));
    free(out);
    /* describe pod/high at 5m: nominated, pending, with its FailedScheduling event. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    char err[512] = "";
    cr_assert(eq(int, gs_report_describe_pod(trace_path, "high", GS_SEC(300), f, err, sizeof err), 0), "%s", err);
    fclose(f);
    cr_expect(eq(str, line(buf, 0), "Name:             high"));
    cr_expect(eq(str, line(buf, 3), "Priority:         1000"));
    cr_expect(eq(str, line(buf, 4), "Node:             <none>"));
    cr_expect(eq(str, line(buf, 6), "Status:           Pending"));
    cr_expect(eq(str, line(buf, 9), "NominatedNodeName: h100-1"));
    free(buf);
    /* Errors. */
    f = fopen("/dev/null", "w");
    cr_expect(eq(int, gs_report_describe_pod(trace_path, "hihg", -1, f, err, sizeof err), GS_EINVAL));
    cr_expect(eq(str, strstr(err, "has no pod named") ? strstr(err, "has no pod named") : err,
                 "has no pod named 'hihg' (did you mean 'high'?)"));
    fclose(f);
}
