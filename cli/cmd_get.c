/* gpusim get pods|nodes TRACE [--at DURATION] [-o wide]: pods or nodes at a simulated time, in
 * kubectl's columns, from the trace alone (reports/get.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "models/quantity.h"
#include "reports/get.h"
#include "cli/cli.h"

static const char usage[] =
    "usage: gpusim get pods|nodes TRACE.db [--at DURATION] [-o wide] [--allow-incomplete]\n"
    "\n"
    "List the pods or nodes of a run at simulated time DURATION (Go syntax: 2m, 1h30m; default:\n"
    "the end of the run) as `kubectl get` prints them, from the trace alone:\n"
    "  pods:  NAME READY STATUS RESTARTS AGE\n"
    "         -o wide: IP NODE NOMINATED NODE READINESS GATES, then GPUS GPU-IDS (gpusim's)\n"
    "  nodes: NAME STATUS ROLES AGE VERSION\n"
    "         -o wide: INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME, then\n"
    "         GPU GPUS (allocated/allocatable)\n"
    "Needs a trace written at --trace-level events or full.\n"
    "\n"
    "exit status: 0 done, 2 usage error or unreadable trace, 5 incomplete trace (without\n"
    "--allow-incomplete).\n";

int gs_cmd_get(int argc, char **argv)
{
    const char *what = NULL, *trace = NULL;
    int64_t at = -1;
    int allow = 0;
    bool wide = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            return GS_EXIT_OK;
        }
        if (strcmp(a, "--at") == 0 || strncmp(a, "--at=", 5) == 0) {
            const char *v = a[4] == '=' ? a + 5 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || gs_duration_parse(v, &at) != 0 || at < 0) {
                fprintf(stderr, "gpusim: get: --at needs a duration such as 2m or 1h30m, got '%s'\n", v ? v : "");
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strncmp(a, "-o=", 3) == 0 ||
                   strncmp(a, "--output=", 9) == 0) {
            const char *eq = strchr(a, '=');
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || strcmp(v, "wide") != 0) {
                fprintf(stderr, "gpusim: get: -o takes 'wide', got '%s'\n", v ? v : "");
                return GS_EXIT_USAGE;
            }
            wide = true;
        } else if (strcmp(a, "-owide") == 0) {
            wide = true;
        } else if (strcmp(a, "--allow-incomplete") == 0) {
            allow = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpusim: get: unknown option '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        } else if (!what) {
            what = a;
        } else if (!trace) {
            trace = a;
        } else {
            fprintf(stderr, "gpusim: get: unexpected argument '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        }
    }
    if (!what || !trace) {
        fputs(usage, stderr);
        return GS_EXIT_USAGE;
    }
    enum gs_get_kind kind;
    /* kubectl's names and short names for the two kinds. */
    if (strcmp(what, "pods") == 0 || strcmp(what, "pod") == 0 || strcmp(what, "po") == 0)
        kind = GS_GET_PODS;
    else if (strcmp(what, "nodes") == 0 || strcmp(what, "node") == 0 || strcmp(what, "no") == 0)
        kind = GS_GET_NODES;
    else {
        fprintf(stderr, "gpusim: get: the resource type is pods or nodes, not '%s'\n", what);
        return GS_EXIT_USAGE;
    }
    char err[1024];
    if (gs_report_get(trace, kind, at, wide, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "gpusim: get: %s\n", err);
        return GS_EXIT_USAGE;
    }
    fflush(stdout);
    return gs_cli_incomplete(trace, allow);
}
