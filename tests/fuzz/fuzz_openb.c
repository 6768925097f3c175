/* libFuzzer target: the openb CSV readers (models/openb.h): the same bytes as a node list
 * and as a pod list, into one model registry (as a run reads them), then the gpu_spec mask
 * parser on the whole input. Everything read is freed; errors must be printable.
 * Seeds: tests/fuzz/corpus/openb (tests/fixtures/openb, heads of the real trace files);
 * dictionary: tests/fuzz/openb.dict (the column names and values the readers know). */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "models/openb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    if (!text)
        return 0;
    struct gs_openb_models models = {0};
    struct gs_openb_cluster c;
    struct gs_openb_workload w;
    struct gs_error err = {0};
    if (gs_openb_parse_nodes("nodes.csv", text, &models, &c, &err) == 0) {
        for (int i = 0; i < c.n; i++)
            if (c.nodes[i].model >= models.n || c.nodes[i].gpu < 0)
                abort();
        gs_openb_cluster_free(&c);
    } else {
        fuzz_check_message("the node list reader's error", err.msg);
    }
    memset(&err, 0, sizeof err);
    if (gs_openb_parse_pods("pods.csv", text, &models, &w, &err) == 0) {
        for (int i = 0; i < w.n; i++)
            if (w.pods[i].spec < 0 || w.pods[i].spec >= w.nspecs)
                abort();
        gs_openb_workload_free(&w);
    } else {
        fuzz_check_message("the pod list reader's error", err.msg);
    }
    uint32_t mask;
    (void)gs_openb_spec_mask(&models, text, (int)strlen(text), &mask);
    gs_free(text);
    return 0;
}
