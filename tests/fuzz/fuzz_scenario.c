#define _GNU_SOURCE /* memmem */
/* libFuzzer target: the scenario loader (gs_scenario_load_string, sim/scenario.h) on arbitrary
 * bytes: libyaml, the node tree, every decoder and the checks after them. A loaded scenario is
 * freed again; an error must carry a printable message (fuzz_check_message), as must every
 * warning. Seeds: tests/fuzz/corpus/scenario (scenarios/, docs/examples/); dictionary:
 * tests/fuzz/scenario.dict (the keys the loader knows). */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "sim/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A scenario may name files to import (manifests, openb CSVs, kubectl snapshots); reading
     * a device or a kernel file would block or never end, which is not the loader's fault. */
    static const char *const special[] = {"/dev/", "/proc/", "/sys/", NULL};
    for (int i = 0; special[i]; i++)
        if (memmem(data, size, special[i], strlen(special[i])))
            return 0;
    char *text = fuzz_cstr(data, size);
    if (!text)
        return 0;
    struct gs_scenario sc;
    struct gs_error err = {0};
    memset(&sc, 0, sizeof sc);
    int rc = gs_scenario_load_string("fuzz.yaml", text, &sc, &err);
    if (rc == 0) {
        for (int i = 0; i < sc.dp.nwarnings; i++)
            fuzz_check_message("a device-plugin config warning", sc.dp.warnings[i].msg);
        gs_scenario_free(&sc);
    } else {
        fuzz_check_message("the loader's error", err.msg);
    }
    gs_free(text);
    return 0;
}
