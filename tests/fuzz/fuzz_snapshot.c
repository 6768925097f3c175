/* libFuzzer target: the kubectl snapshot reader (spec.cluster.source {format: kubectl},
 * sim/scenario/snapshot.c, and the JSON loader under it, sim/scenario/json.c).
 *
 * The input is the node list, a NUL byte, then the pod list (JSON cannot hold a raw NUL, so
 * the split loses nothing; no NUL: no pod list). Both are written to the target's temporary
 * directory and a fixed scenario that imports them is loaded, so the reader runs exactly as
 * under `gpusim run`. Seeds: tests/fuzz/corpus/snapshot (tests/fixtures/snapshot and the
 * JSON of tests/unit/test_snapshot.c); dictionary: tests/fuzz/snapshot.dict. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "sim/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t nodes_len = nul ? (size_t)(nul - data) : size;
    char nodes[512], pods[512], yaml_path[512];
    fuzz_write("nodes.json", data, nodes_len, nodes, sizeof nodes);
    if (nul)
        fuzz_write("pods.json", nul + 1, size - nodes_len - 1, pods, sizeof pods);
    /* The scenario's own name puts it in the temporary directory: the files are relative. */
    snprintf(yaml_path, sizeof yaml_path, "%s/s.yaml", fuzz_tmpdir());
    const char *yaml = nul ? "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"
                             "  cluster:\n    source: {format: kubectl, nodes: nodes.json, pods: pods.json}\n"
                           : "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"
                             "  cluster:\n    source: {format: kubectl, nodes: nodes.json}\n";
    struct gs_scenario sc;
    struct gs_error err = {0};
    memset(&sc, 0, sizeof sc);
    if (gs_scenario_load_string(yaml_path, yaml, &sc, &err) == 0)
        gs_scenario_free(&sc);
    else
        fuzz_check_message("the snapshot reader's error", err.msg);
    return 0;
}
