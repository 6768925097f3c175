/* gpusim: a pod's GPU share request (gpushare_pod.h). */
#include "models/devices/gpushare_pod.h"

#include <stdlib.h>

bool gs_gpushare_pod_req(const struct gs_world *w, const struct gs_pod_template *t, struct gs_gpushare_req *req,
                         bool *annotated)
{
    *req = (struct gs_gpushare_req){0};
    if (annotated)
        *annotated = false;
    int gi = gs_res_find(&w->res, "nvidia.com/gpu");
    int64_t whole = gi >= 0 ? t->requests.v[gi] : 0;
    const char *m = gs_labels_get(&t->annotations, GS_GPU_MILLI_ANNOTATION);
    if (m) {
        char *end;
        long v = strtol(m, &end, 10);
        if (!*end && end != m && v > 0 && v <= GS_GPU_MILLI) {
            if (annotated)
                *annotated = true;
            req->num_gpu = 1;
            req->gpu_milli = (int)v;
            if (v == GS_GPU_MILLI && whole > 1)
                req->num_gpu = (int)(whole > GS_GPUS_MAX ? GS_GPUS_MAX + 1 : whole);
            return true;
        }
    }
    if (whole <= 0)
        return false;
    req->num_gpu = (int)(whole > GS_GPUS_MAX ? GS_GPUS_MAX + 1 : whole);
    req->gpu_milli = GS_GPU_MILLI;
    return true;
}
