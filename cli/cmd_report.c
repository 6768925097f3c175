/* gpusim report TRACE: the summary of a trace, read from the database alone. */
#include <stdio.h>
#include <string.h>

#include "reports/report.h"
#include "cli/cli.h"

static const char usage[] =
    "usage: gpusim report TRACE.db [--allow-incomplete]\n"
    "\n"
    "Print the summary of a run from its trace database.\n"
    "\n"
    "A trace whose run did not complete (killed: status running; interrupted; failed) is\n"
    "reported with what it holds, says up to which simulated time it is complete, and exits\n"
    "5 unless --allow-incomplete is given.\n";

int gs_cmd_report(int argc, char **argv)
{
    const char *trace = NULL;
    int allow = 0;
    for (int i = 1; i < argc; i++) {
        if (gs_cli_is_help(argv[i])) {
            fputs(usage, stdout);
            return GS_EXIT_OK;
        }
        if (strcmp(argv[i], "--allow-incomplete") == 0) {
            allow = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gpusim: report: unknown option '%s'\n\n%s", argv[i], usage);
            return GS_EXIT_USAGE;
        } else if (!trace) {
            trace = argv[i];
        } else {
            fprintf(stderr, "gpusim: report: one trace at a time ('%s' and '%s')\n", trace, argv[i]);
            return GS_EXIT_USAGE;
        }
    }
    if (!trace) {
        fputs(usage, stderr);
        return GS_EXIT_USAGE;
    }
    char err[512];
    if (gs_report_summary(trace, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "gpusim: %s\n", err);
        return GS_EXIT_USAGE;
    }
    fflush(stdout);
    return gs_cli_incomplete(trace, allow);
}
