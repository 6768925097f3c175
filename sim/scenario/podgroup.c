/* A PodGroup manifest (scheduling.x-k8s.io/v1alpha1, kubernetes-sigs/scheduler-plugins
 * apis/scheduling/v1alpha1/types.go) as a workload that makes no pods: at its arrival the
 * group exists; pods join it through the label scheduling.x-k8s.io/pod-group (sim/controllers/workloads.c). */
#include <string.h>

#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

int gs_scn_podgroup_manifest(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_workload *w,
                             const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
    static const char *const required[] = {"metadata", "spec", NULL};
    static const char *const spec_keys[] = {"minMember", "scheduleTimeoutSeconds", NULL};
    static const char *const spec_later[] = {"minResources", NULL};
    static const char *const spec_required[] = {"minMember", NULL};
    char p[GS_SCN_PATH], sp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, required);
    if (rc)
        return rc;
    gs_scn_path(p, "%s.metadata", path);
    if ((rc = gs_scn_metadata(d, gs_y_get(m, "metadata"), p, true, &w->name, name_node, NULL, NULL)))
        return rc;
    if (!gs_scn_is_dns_subdomain(w->name))
        return gs_y_error(d, *name_node, "invalid PodGroup name '%s' at %s.name: must be a DNS-1123 subdomain",
                          w->name, p);
    w->kind = GS_WL_PODGROUP;
    w->api_kind = "PodGroup";
    w->api_group = "scheduling.x-k8s.io";
    w->replicas = 0;
    const struct gs_ynode *spec = gs_y_get(m, "spec"), *v;
    gs_scn_path(sp, "%s.spec", path);
    if ((rc = gs_y_check_map(d, spec, sp, spec_keys, spec_later, spec_required)))
        return rc;
    int64_t x;
    /* minMember is an int32; the plugin treats a group of minMember <= 1 as no gang. */
    if ((rc = gs_y_int(d, gs_y_get(spec, "minMember"), gs_scn_path(p, "%s.minMember", sp), 1, 100000, &x)))
        return rc;
    w->group_min_member = (int)x;
    w->group_timeout_us = -1;
    if ((v = gs_y_get(spec, "scheduleTimeoutSeconds")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.scheduleTimeoutSeconds", sp), 1, INT32_MAX, &x)))
            return rc;
        w->group_timeout_us = x * 1000000;
    }
    return 0;
}
