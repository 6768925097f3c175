/* gpusim validate SCENARIO: load and check without running. */
#include <stdio.h>

#include "sim/limits.h"
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
    struct gs_scenario_size size;
    gs_scenario_size(&sc, &size);
    printf("size: %lld nodes (limit %d), %lld pods over the run without replacements (limit %d); "
           "memory at most %lld MiB\n",
           (long long)size.nodes, GS_MAX_NODES, (long long)size.pods, GS_MAX_PODS,
           (long long)((size.memory_bytes + (1 << 20) - 1) >> 20));
    gs_scenario_free(&sc);
    return GS_EXIT_OK;
}
