/* gpusim: printing a loaded scenario's warnings (what the modelled software would ignore, such as
 * an unknown key in the device plugin's config file) on stderr. */
#include <stdio.h>

#include "sim/scenario.h"
#include "cli/cli.h"

void gs_cli_scenario_warnings(const struct gs_scenario *sc)
{
    for (int i = 0; i < sc->dp.nwarnings; i++) {
        const struct gs_dp_warning *w = &sc->dp.warnings[i];
        fprintf(stderr, "gpusim: %s:%d:%d: warning: %s\n", w->file ? w->file : sc->path, w->line, w->col, w->msg);
    }
}
