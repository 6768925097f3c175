/* What report and describe do with an incomplete trace (cli/cli.h gs_cli_incomplete). */
#include <stdio.h>

#include "reports/report.h"
#include "cli/cli.h"

int gs_cli_incomplete(const char *trace, int allow)
{
    struct gs_report_state s;
    char err[512];
    if (gs_report_trace_state(trace, &s, err, sizeof err) != 0) {
        fprintf(stderr, "gpusim: %s\n", err);
        return GS_EXIT_USAGE;
    }
    if (s.complete)
        return GS_EXIT_OK;
    char note[1024];
    gs_report_incomplete_note(trace, &s, note, sizeof note);
    if (allow) {
        fprintf(stderr, "gpusim: warning: %s\n", note);
        return GS_EXIT_OK;
    }
    fprintf(stderr, "gpusim: %s (exit %d; pass --allow-incomplete to accept it)\n", note, GS_EXIT_INCOMPLETE);
    return GS_EXIT_INCOMPLETE;
}
