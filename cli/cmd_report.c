/* gpusim report TRACE: the summary of a trace, read from the database alone. */
#include <stdio.h>

#include "reports/report.h"
#include "cli/cli.h"

int gs_cmd_report(int argc, char **argv)
{
    if (argc != 2 || gs_cli_is_help(argv[1])) {
        fputs("usage: gpusim report TRACE.db\n\nPrint the summary of a run from its trace database.\n",
              argc == 2 ? stdout : stderr);
        return argc == 2 ? GS_EXIT_OK : GS_EXIT_USAGE;
    }
    char err[512];
    if (gs_report_summary(argv[1], stdout, err, sizeof err) != 0) {
        fprintf(stderr, "gpusim: %s\n", err);
        return GS_EXIT_USAGE;
    }
    return GS_EXIT_OK;
}
