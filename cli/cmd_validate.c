/* gpusim validate SCENARIO: load and check without running. */
#include <stdio.h>

#include "sim/scenario.h"
#include "cli/cli.h"

int gs_cmd_validate(int argc, char **argv)
{
    if (argc != 2 || gs_cli_is_help(argv[1])) {
        fputs("usage: gpusim validate SCENARIO.yaml\n\nCheck a scenario file; exit 3 if it is invalid.\n",
              argc == 2 ? stdout : stderr);
        return argc == 2 ? GS_EXIT_OK : GS_EXIT_USAGE;
    }
    struct gs_scenario sc;
    struct gs_error err = {0};
    int rc = gs_scenario_load(argv[1], NULL, 0, -1, -1, &sc, &err);
    if (rc)
        return gs_cli_scenario_error(&err, rc);
    gs_cli_scenario_warnings(&sc);
    printf("%s: ok: scenario %s, %d node pools, %d workloads, %d events, %d checks\n", argv[1], sc.name,
           sc.world.npools, sc.world.nworkloads, sc.nevents, sc.nexpects);
    gs_scenario_free(&sc);
    return GS_EXIT_OK;
}
