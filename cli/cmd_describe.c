/* gpusim describe TRACE NODE|node/NAME|pod/NAME [--at DURATION]: a node as `kubectl describe
 * node` shows it, or a pod as `kubectl describe pod` does (reports/get.h), read from the trace
 * database alone. */
#include <stdio.h>
#include <string.h>

#include "models/quantity.h"
#include "reports/get.h"
#include "reports/report.h"
#include "cli/cli.h"

static const char usage[] =
    "usage: gpusim describe TRACE.db NODE|node/NODE|pod/POD [--at DURATION] [--allow-incomplete]\n"
    "\n"
    "pod/POD: print POD as `kubectl describe pod` would at that time: priority, node, start\n"
    "time, status, workload and PodGroup, requests, the GPUs it holds, conditions and its\n"
    "events (Type, Reason, Age, From, Message); of several pods with the name, the newest.\n"
    "\n"
    "Print NODE as `kubectl describe node` would: labels, taints, capacity, allocatable,\n"
    "kernel, the GPU Operator's pods with their status, and the pods bound to it, at simulated\n"
    "time DURATION (Go syntax: 25m, 1h30m; default: the end of the run), from the trace alone.\n"
    "An incomplete trace (killed, interrupted or failed run) is described as far as it goes\n"
    "(by default at the simulated time it is complete up to), with a note of that time, and\n"
    "exits 5 unless --allow-incomplete is given.\n";

int gs_cmd_describe(int argc, char **argv)
{
    const char *trace = NULL, *node = NULL;
    int64_t at = -1;
    int allow = 0;
    for (int i = 1; i < argc; i++) {
        if (gs_cli_is_help(argv[i])) {
            fputs(usage, stdout);
            return GS_EXIT_OK;
        }
        if (strcmp(argv[i], "--at") == 0 || strncmp(argv[i], "--at=", 5) == 0) {
            const char *v = argv[i][4] == '=' ? argv[i] + 5 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || gs_duration_parse(v, &at) != 0 || at < 0) {
                fprintf(stderr, "gpusim: describe: --at needs a duration such as 25m or 1h30m, got '%s'\n",
                        v ? v : "");
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--allow-incomplete") == 0) {
            allow = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gpusim: describe: unknown option '%s'\n\n%s", argv[i], usage);
            return GS_EXIT_USAGE;
        } else if (!trace) {
            trace = argv[i];
        } else if (!node) {
            node = argv[i];
        } else {
            fprintf(stderr, "gpusim: describe: unexpected argument '%s'\n\n%s", argv[i], usage);
            return GS_EXIT_USAGE;
        }
    }
    if (!trace || !node) {
        fputs(usage, stderr);
        return GS_EXIT_USAGE;
    }
    char err[1024];
    if (strncmp(node, "pod/", 4) == 0 || strncmp(node, "pods/", 5) == 0) {
        if (gs_report_describe_pod(trace, strchr(node, '/') + 1, at, stdout, err, sizeof err) != 0) {
            fprintf(stderr, "gpusim: %s\n", err);
            return GS_EXIT_USAGE;
        }
        fflush(stdout);
        return gs_cli_incomplete(trace, allow);
    }
    if (strncmp(node, "node/", 5) == 0 || strncmp(node, "nodes/", 6) == 0)
        node = strchr(node, '/') + 1;
    if (gs_report_describe(trace, node, at, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "gpusim: %s\n", err);
        return GS_EXIT_USAGE;
    }
    fflush(stdout);
    return gs_cli_incomplete(trace, allow);
}
