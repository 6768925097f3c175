/* gpusim version */
#include <stdio.h>

#include "sim/trace.h"
#include "cli/cli.h"

int gs_cmd_version(int argc, char **argv)
{
    if (argc > 1 && gs_cli_is_help(argv[1])) {
        fputs("usage: gpusim version\n\nPrint gpusim's version, scenario format and trace schema.\n", stdout);
        return GS_EXIT_OK;
    }
    printf("gpusim %s (scenario format gpusim/v1alpha1, trace schema %d, Kubernetes 1.28-1.35)\n",
           GPUSIM_VERSION, GS_TRACE_SCHEMA_VERSION);
    return GS_EXIT_OK;
}
