/* PodGroup gang semantics (models/admission/gang.h): scheduler-plugins pkg/coscheduling. */
#include <stdio.h>

#include "models/admission/gang.h"
#include "models/quantity.h"

static bool active(const struct gs_pod *p)
{
    return !p->deleted && (p->phase == GS_PHASE_PENDING || p->phase == GS_PHASE_RUNNING);
}

int gs_gang_existing(const struct gs_world *w, int gi)
{
    int n = 0;
    for (int i = w->groups[gi].first_pod; i >= 0; i = w->pods[i].next_in_group)
        n += !w->pods[i].deleted;
    return n;
}

int gs_gang_assigned(const struct gs_world *w, int gi)
{
    int n = 0;
    for (int i = w->groups[gi].first_pod; i >= 0; i = w->pods[i].next_in_group)
        n += active(&w->pods[i]) && w->pods[i].node >= 0;
    return n;
}

int gs_gang_running(const struct gs_world *w, int gi)
{
    int n = 0;
    for (int i = w->groups[gi].first_pod; i >= 0; i = w->pods[i].next_in_group) {
        const struct gs_pod *p = &w->pods[i];
        n += !p->deleted && !p->terminating && p->phase == GS_PHASE_RUNNING;
    }
    return n;
}

const char *gs_gang_prefilter(const struct gs_world *w, int p, gs_time backoff_until, gs_time now, char *buf,
                              size_t n)
{
    const struct gs_pod *pod = &w->pods[p];
    if (pod->group < 0)
        return NULL;
    const struct gs_group *g = &w->groups[pod->group];
    /* core.go PreFilter: a backed-off group first, then the sibling count. */
    if (backoff_until > now) {
        snprintf(buf, n, "podGroup default/%s failed recently", g->name);
        return buf;
    }
    int existing = gs_gang_existing(w, pod->group);
    if (existing < g->min_member) {
        snprintf(buf, n,
                 "pre-filter pod %s cannot find enough sibling pods, current pods number: %d, minMember of group: %d",
                 pod->name, existing, g->min_member);
        return buf;
    }
    return NULL;
}

bool gs_gang_postfilter(const struct gs_world *w, int p, char *buf, size_t n)
{
    const struct gs_pod *pod = &w->pods[p];
    if (pod->group < 0)
        return false;
    const struct gs_group *g = &w->groups[pod->group];
    int assigned = gs_gang_assigned(w, pod->group);
    if (assigned >= g->min_member)
        return false;
    /* "If the gap is less than/equal 10%, we may want to try subsequent Pods". */
    float missing = (float)(g->min_member - assigned) / (float)g->min_member;
    if (missing <= 0.1f)
        return false;
    snprintf(buf, n, "PodGroup default/%s gets rejected due to Pod %s is unschedulable even after PostFilter", g->name,
             pod->name);
    return true;
}

bool gs_gang_permit(const struct gs_world *w, int p)
{
    const struct gs_pod *pod = &w->pods[p];
    if (pod->group < 0)
        return true;
    return gs_gang_assigned(w, pod->group) >= w->groups[pod->group].min_member;
}

gs_time gs_gang_wait_time(const struct gs_world *w, int gi, gs_time default_wait)
{
    gs_time t = w->groups[gi].schedule_timeout_us;
    return t >= 0 ? t : default_wait;
}

const char *gs_gang_timeout_message(gs_time waited, char *buf, size_t n)
{
    char d[32];
    gs_duration_format(waited, d, sizeof d);
    snprintf(buf, n, "rejected due to timeout after waiting %s at plugin Coscheduling", d);
    return buf;
}

int64_t gs_gang_gpus_held_incomplete(const struct gs_world *w, int gpu_res)
{
    if (gpu_res < 0)
        return 0;
    int64_t held = 0;
    for (int gi = 0; gi < w->ngroups; gi++) {
        const struct gs_group *g = &w->groups[gi];
        if (gs_gang_running(w, gi) >= g->min_member)
            continue;
        for (int i = g->first_pod; i >= 0; i = w->pods[i].next_in_group) {
            const struct gs_pod *p = &w->pods[i];
            if (active(p) && p->node >= 0)
                held += p->tmpl->requests.v[gpu_res];
        }
    }
    return held;
}
