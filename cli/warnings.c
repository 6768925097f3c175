/* gpusim: printing a loaded scenario's warnings (what the modelled software would ignore, such as
 * an unknown key in the device plugin's config file), and a finished run's (reports/report.h
 * gs_report_run_warnings), on stderr. */
#include <stdio.h>

#include "reports/report.h"
#include "sim/scenario.h"
#include "cli/cli.h"

void gs_cli_scenario_warnings(const struct gs_scenario *sc)
{
    for (int i = 0; i < sc->dp.nwarnings; i++) {
        const struct gs_dp_warning *w = &sc->dp.warnings[i];
        fprintf(stderr, "gpusim: %s:%d:%d: warning: %s\n", w->file ? w->file : sc->path, w->line, w->col, w->msg);
    }
}

static void print_run_warning(const char *text, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "gpusim: warning: %s\n", text);
}

void gs_cli_run_warnings(const char *trace)
{
    /* The trace was just read for the summary: an error here has been said already. */
    gs_report_run_warnings(trace, print_run_warning, NULL, NULL, 0);
}
