/* gpusim explain TRACE POD [--at DURATION] [--scenario FILE]: why a pod was where it was at a
 * simulated time, and what would change it, computed by replaying the run (reports/explain.h). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "models/quantity.h"
#include "reports/explain.h"
#include "cli/cli.h"

static const char usage[] =
    "usage: gpusim explain TRACE.db POD [--at DURATION] [--scenario FILE] [--allow-incomplete]\n"
    "\n"
    "Why POD was where it was at simulated time DURATION (Go syntax: 2m, 1h30m; default: the\n"
    "end of the run), and what would change it. The run is replayed from the scenario the trace\n"
    "records (run.scenario_path, seed, --set overrides, horizon) up to that time, and checked\n"
    "against the trace; the scheduler's filters then run on the replayed cluster: the pod's\n"
    "requests and message, the nodes grouped by the filter that rejects it, the free resources\n"
    "beside the request, a diagnosis in plain words, and the changes that would let it fit\n"
    "(pods whose removal makes room, a toleration, a selector dropped, an uncordon, a DRA\n"
    "selector dropped), each checked by the filters and given as `gpusim run --set` arguments.\n"
    "For a bound pod: the scores of the cycle that chose its node beside the runner-up.\n"
    "\n"
    "options:\n"
    "  --at DURATION        the simulated time (default: the end of the run)\n"
    "  --scenario FILE      the scenario to replay, when it moved since the run\n"
    "  --allow-incomplete   exit 0 on an incomplete trace (explained up to where it is complete)\n"
    "\n"
    "exit status: 0 done, 2 usage error, unreadable trace or scenario, no such pod, or a replay\n"
    "that disagrees with the trace (the scenario changed), 4 internal error, 5 incomplete trace,\n"
    "130/143 interrupted by SIGINT/SIGTERM (the replay's temporary files are removed).\n";

static volatile int stop_flag;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
    stop_flag = 1;
}

int gs_cmd_explain(int argc, char **argv)
{
    struct gs_explain_opts o = {.at_us = -1};
    int allow = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            return GS_EXIT_OK;
        }
        if (strcmp(a, "--at") == 0 || strncmp(a, "--at=", 5) == 0) {
            const char *v = a[4] == '=' ? a + 5 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || gs_duration_parse(v, &o.at_us) != 0 || o.at_us < 0) {
                fprintf(stderr, "gpusim: explain: --at needs a duration such as 2m or 1h30m, got '%s'\n", v ? v : "");
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--scenario") == 0 || strncmp(a, "--scenario=", 11) == 0) {
            const char *v = a[10] == '=' ? a + 11 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !v[0]) {
                fprintf(stderr, "gpusim: explain: --scenario needs a file\n");
                return GS_EXIT_USAGE;
            }
            o.scenario = v;
        } else if (strcmp(a, "--allow-incomplete") == 0) {
            allow = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpusim: explain: unknown option '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        } else if (!o.trace) {
            o.trace = a;
        } else if (!o.pod) {
            o.pod = a;
        } else {
            fprintf(stderr, "gpusim: explain: unexpected argument '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        }
    }
    if (!o.trace || !o.pod) {
        fputs(usage, stderr);
        return GS_EXIT_USAGE;
    }
    /* Ctrl-C stops the replay between events, so its temporary trace is removed. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    o.stop = &stop_flag;
    char err[2048];
    int rc = gs_report_explain(&o, stdout, err, sizeof err);
    if (rc == GS_EINTERRUPTED) {
        fprintf(stderr, "gpusim: explain: %s\n", err);
        return 128 + (stop_signal ? (int)stop_signal : SIGINT);
    }
    if (rc) {
        fflush(stdout);
        fprintf(stderr, "gpusim: explain: %s\n", err);
        return rc == GS_ENOMEM || rc == GS_ESQL ? GS_EXIT_INTERNAL : GS_EXIT_USAGE;
    }
    fflush(stdout);
    return gs_cli_incomplete(o.trace, allow);
}
