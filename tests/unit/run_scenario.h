/* Running a scenario file in the tests: load it (a path relative to the source tree, or
 * absolute) and run it to its end into the trace at `trace` (replaced), at `level`. Aborts the
 * test with the loader's or the run's message when either fails. */
#ifndef GPUSIM_TEST_RUN_SCENARIO_H
#define GPUSIM_TEST_RUN_SCENARIO_H

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"

static inline void gs_test_run_file(const char *scenario, const char *trace, enum gs_trace_level level)
{
    char path[1024];
    if (scenario[0] == '/')
        snprintf(path, sizeof path, "%s", scenario);
    else
        snprintf(path, sizeof path, "%s/%s", GPUSIM_SOURCE_DIR, scenario);
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert(eq(int, gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err), 0), "%s:%d:%d: %s", err.file, err.line,
              err.col, err.msg);
    struct gs_run_opts o = {.trace_path = trace, .trace_level = level};
    struct gs_run_result r;
    char ebuf[256] = "";
    unlink(trace);
    cr_assert(eq(int, gs_run(&sc, &o, &r, ebuf, sizeof ebuf), 0), "%s: %s", path, ebuf);
    gs_scenario_free(&sc);
}

#endif
