/* gpusim run SCENARIO: simulate, write the trace, print the summary and the checks. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/shellword.h"
#include "models/quantity.h"
#include "reports/progress.h"
#include "reports/report.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "cli/cli.h"

#define GS_MAX_SETS 64

static const char usage[] =
    "usage: gpusim run SCENARIO.yaml [options]\n"
    "\n"
    "Simulate SCENARIO, write its SQLite trace, print a summary and check its expect: block.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE       trace database (default gpusim-<scenario name>.db, with\n"
    "                          -seed<N> and a hash of --set/--horizon when given; see below)\n"
    "  --seed N                override spec.seed\n"
    "  --horizon DURATION      override spec.horizon (Go syntax: 90m, 2h)\n"
    "  --set PATH=VALUE        override a scenario value, e.g. --set scheduler.tieBreak=first\n"
    "                          (PATH is relative to spec unless it starts with metadata. or spec.)\n"
    "  --trace-level LEVEL     summary (no event tables) | events (default) | full (events, and\n"
    "                          every scheduling attempt: each node's verdict, the first plugin that\n"
    "                          rejected it and why, and the per-plugin scores; larger traces)\n"
    "  --quiet-progress        no progress line on stderr (shown only when stderr is a terminal:\n"
    "                          simulated time, % of the horizon, events/s and an ETA)\n"
    "  --sample-every-pod      also write a sample row (GPUs, pods, fragmentation) after every\n"
    "                          bind and every pod that leaves its node, not only every sampleInterval\n"
    "\n"
    "The trace is written to FILE.partial and renamed to FILE when the run is complete; an\n"
    "interrupted or failed run leaves FILE as it was and its own trace in FILE.partial.\n"
    "Two runs never write one FILE: the second is refused (or, when FILE was not given, it\n"
    "takes the next free name FILE-2.db, FILE-3.db, ...).\n"
    "\n"
    "exit status: 0 all checks passed, 1 a check failed, 2 usage or I/O error (also a full\n"
    "disk or the file size limit), 3 invalid scenario, 4 internal error, 130/143 interrupted\n"
    "by SIGINT/SIGTERM.\n";

static volatile sig_atomic_t stop_signal;
static volatile int stop_flag;

static void on_signal(int sig)
{
    stop_signal = sig;
    stop_flag = 1;
}

struct progress {
    struct timespec start;
    int shown;
    int width; /* length of the line shown last, so a shorter one blanks it out */
};

static double elapsed(const struct timespec *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - s->tv_sec) + (double)(now.tv_nsec - s->tv_nsec) / 1e9;
}

/* The progress line, on stderr when it is a terminal (reports/progress.h): simulated time, % of
 * the horizon, events, events/s and an ETA from the wall clock, rewritten in place after the
 * first second. The wall clock reaches nothing but this line. */
static void show_progress(gs_time now, gs_time horizon, uint64_t events, void *ctx)
{
    struct progress *p = ctx;
    double wall = elapsed(&p->start);
    if (wall < 1.0)
        return;
    char line[256];
    int k = gs_progress_format(line, sizeof line, now, horizon, events, wall);
    if (k >= (int)sizeof line)
        k = (int)sizeof line - 1;
    fprintf(stderr, "\r%s%*s", line, p->width > k ? p->width - k : 0, "");
    p->width = k;
    p->shown = 1;
}

static int parse_args(int argc, char **argv, const char **scenario, const char **out, const char **sets,
                      int *nsets, int64_t *seed, int64_t *horizon, enum gs_trace_level *level, int *quiet,
                      int *every_pod)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            exit(GS_EXIT_OK);
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!v)
                goto missing;
            if (!v[0]) {
                fprintf(stderr, "gpusim: -o wants a file name, got an empty string\n");
                return GS_EXIT_USAGE;
            }
            *out = v;
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            if (!v)
                goto missing;
            unsigned long long s = strtoull(v, &end, 10);
            if (*end || v[0] == '-' || !v[0] || s > INT64_MAX) {
                fprintf(stderr, "gpusim: --seed wants a non-negative integer, got '%s'\n", v);
                return GS_EXIT_USAGE;
            }
            *seed = (int64_t)s;
            i++;
        } else if (strcmp(a, "--horizon") == 0) {
            if (!v)
                goto missing;
            int drc = gs_duration_parse(v, horizon);
            if (drc == GS_ERANGE) {
                fprintf(stderr, "gpusim: --horizon '%s' is out of range (at most about 2562047h)\n", v);
                return GS_EXIT_USAGE;
            }
            if (drc || *horizon <= 0) {
                fprintf(stderr, "gpusim: --horizon wants a positive duration like 90m or 2h, got '%s'\n", v);
                return GS_EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--set") == 0) {
            if (!v)
                goto missing;
            if (*nsets == GS_MAX_SETS) {
                fprintf(stderr, "gpusim: at most %d --set options\n", GS_MAX_SETS);
                return GS_EXIT_USAGE;
            }
            sets[(*nsets)++] = v;
            i++;
        } else if (strcmp(a, "--trace-level") == 0) {
            if (!v)
                goto missing;
            if (strcmp(v, "summary") == 0)
                *level = GS_TRACE_SUMMARY;
            else if (strcmp(v, "events") == 0)
                *level = GS_TRACE_EVENTS;
            else if (strcmp(v, "full") == 0)
                *level = GS_TRACE_FULL;
            else {
                fprintf(stderr, "gpusim: --trace-level is summary, events or full, not '%s'\n", v);
                return GS_EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--quiet-progress") == 0) {
            *quiet = 1;
        } else if (strcmp(a, "--sample-every-pod") == 0) {
            *every_pod = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpusim: unknown option '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        } else if (!*scenario) {
            *scenario = a;
        } else {
            fprintf(stderr, "gpusim: one scenario at a time ('%s' and '%s')\n", *scenario, a);
            return GS_EXIT_USAGE;
        }
        continue;
    missing:
        fprintf(stderr, "gpusim: option %s needs a value\n", a);
        return GS_EXIT_USAGE;
    }
    if (!*scenario) {
        fputs(usage, stderr);
        return GS_EXIT_USAGE;
    }
    return GS_EXIT_OK;
}

/* The default trace name: gpusim-NAME.db, plus -seedN when --seed is given and a hash of the
 * --set and --horizon arguments when any is, so the runs of a sweep do not share a name;
 * `attempt` > 1 adds -ATTEMPT (the name was taken by a live run). */
static void default_output(char *buf, size_t n, const char *name, int64_t seed, const char *const *sets,
                           int nsets, int64_t horizon, int attempt)
{
    int k = snprintf(buf, n, "gpusim-%s", name);
    if (seed >= 0 && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, "-seed%lld", (long long)seed);
    if ((nsets > 0 || horizon > 0) && k >= 0 && (size_t)k < n) {
        /* FNV-1a over the arguments, each followed by a 0 byte */
        uint32_t h = 2166136261u;
        char hz[32];
        snprintf(hz, sizeof hz, "%lld", (long long)horizon);
        for (int i = -1; i < nsets; i++)
            for (const char *c = i < 0 ? hz : sets[i];; c++) {
                h = (h ^ (unsigned char)*c) * 16777619u;
                if (!*c)
                    break;
            }
        k += snprintf(buf + k, n - (size_t)k, "-%08x", (unsigned)h);
    }
    if (attempt > 1 && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, "-%d", attempt);
    if (k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, ".db");
}

/* "gpusim run ARGS..." (the run table's `command`), into a gs_malloc'd string; NULL when out
 * of memory. argv[0] is "run". */
static char *command_line(int argc, char **argv)
{
    size_t n = 16;
    for (int i = 0; i < argc; i++)
        n += 4 * strlen(argv[i]) + 3;
    char *buf = gs_malloc(n);
    if (!buf)
        return NULL;
    snprintf(buf, n, "gpusim");
    for (int i = 0; i < argc; i++)
        gs_shell_word_append(buf, n, argv[i], false); /* '=' quoted, as in --set 'a.b=1' */
    return buf;
}

int gs_cmd_run(int argc, char **argv)
{
    const char *scenario = NULL, *out = NULL;
    const char *sets[GS_MAX_SETS];
    int nsets = 0, quiet = 0, every_pod = 0;
    int64_t seed = -1, horizon = -1;
    enum gs_trace_level level = GS_TRACE_EVENTS;
    /* First, so that a signal while the scenario loads stops the run cleanly at its start. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* Past the file size limit a write fails with EFBIG, which the trace reports like a full
     * disk, instead of the signal killing the run mid-write. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &sa, NULL);

    int rc = parse_args(argc, argv, &scenario, &out, sets, &nsets, &seed, &horizon, &level, &quiet, &every_pod);
    if (rc != GS_EXIT_OK)
        return rc;

    struct gs_scenario sc;
    struct gs_error err = {0};
    rc = gs_scenario_load(scenario, sets, nsets, seed, horizon, &sc, &err);
    if (rc)
        return gs_cli_scenario_error(&err, rc);
    gs_cli_scenario_warnings(&sc);

    char default_out[700];
    int defaulted = out == NULL;
    if (defaulted) {
        default_output(default_out, sizeof default_out, sc.name, seed, sets, nsets, horizon, 1);
        out = default_out;
    }

    struct progress prog = {.shown = 0, .width = 0};
    clock_gettime(CLOCK_MONOTONIC, &prog.start);
    struct gs_run_opts opts = {
        .trace_path = out,
        .trace_level = level,
        .stop = &stop_flag,
        .progress = (!quiet && isatty(STDERR_FILENO)) ? show_progress : NULL,
        .progress_ctx = &prog,
        .sample_every_pod = every_pod != 0,
        .command = command_line(argc, argv),
        .overrides = sets,
        .noverrides = nsets,
    };
    struct gs_run_result res;
    char errbuf[1536] = "";
    rc = gs_run(&sc, &opts, &res, errbuf, sizeof errbuf);
    /* A name gpusim chose itself is taken by another live run: take the next one. */
    for (int attempt = 2; rc == GS_EBUSY && defaulted && attempt <= 99; attempt++) {
        default_output(default_out, sizeof default_out, sc.name, seed, sets, nsets, horizon, attempt);
        rc = gs_run(&sc, &opts, &res, errbuf, sizeof errbuf);
    }
    if (prog.shown)
        fputs("\n", stderr);
    gs_free((void *)opts.command);
    gs_scenario_free(&sc);
    if (rc) {
        fprintf(stderr, "gpusim: run failed: %s\n", errbuf[0] ? errbuf : gs_strerror(rc));
        return rc == GS_EIO || rc == GS_ESQL || rc == GS_EBUSY ? GS_EXIT_USAGE : GS_EXIT_INTERNAL;
    }

    char partial[sizeof default_out + 16];
    const char *where = out;
    if (!res.trace_at_path) {
        gs_trace_partial_path(out, partial, sizeof partial);
        where = partial;
    }
    char rerr[512];
    if (gs_report_summary(where, stdout, rerr, sizeof rerr) != 0) {
        fprintf(stderr, "gpusim: cannot read back the trace %s: %s\n", where, rerr);
        return GS_EXIT_USAGE;
    }
    printf("trace: %s\n", where);
    fflush(stdout);
    gs_cli_run_warnings(where); /* the summary's warnings, on stderr too */
    if (strcmp(res.status, "interrupted") == 0) {
        fprintf(stderr, "gpusim: interrupted by %s; the trace %s says status=interrupted (%s left as it was)\n",
                stop_signal == SIGTERM ? "SIGTERM" : "SIGINT", where, out);
        return 128 + (stop_signal ? (int)stop_signal : SIGINT);
    }
    return res.checks_failed ? GS_EXIT_CHECK_FAILED : GS_EXIT_OK;
}
