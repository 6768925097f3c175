/* The workload controllers: what makes the pods of plain workloads (a ReplicaSet-like
 * controller), Pod manifests and batch/v1 Jobs (the Job controller), and their PodGroups.
 *
 * - Arrival (WORKLOAD_ARRIVED, unless an admission hook such as Kueue's holds it): a plain
 *   workload makes `replicas` pods, spaced by arrival.stagger; a Pod manifest one pod; a Job
 *   min(parallelism, completions) pods.
 * - Names: `<name>` when the workload makes one pod in the whole run, else `<name>-<i>` with i
 *   counting the workload's pods. The pods of one arrival form one PodGroup (`<name>`, or
 *   `<name>-<arrival>` for a repeating workload) when the workload has group.minMember; a pod
 *   labelled scheduling.x-k8s.io/pod-group joins that PodGroup object (none: scheduled alone).
 * - A Job creates a replacement or a further pod until `completions` pods succeeded; beyond
 *   backoffLimit failures it deletes its active pods and makes no more (kubernetes
 *   pkg/controller/job/job_controller.go). A suspended Job neither counts nor replaces pods.
 * - An evicted pod of a plain workload (not a PodGroup member, not pinned with nodeName) is
 *   re-created under the workload's next index, as its ReplicaSet would.
 * - Kueue admitting pods of a workload (GROUP_ADMITTED) creates them from the injected template.
 * - gpusPerPod: each new pod of a plain workload takes the template of a GPU count drawn from
 *   the gpusPerPod stream (the loader made one template per count); a replacement keeps the
 *   count of the pod it replaces.
 */
#include <stdio.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/rng.h"
#include "sim/controller.h"

enum { TIMER_STAGGER = 0 };

struct workloads {
    int self;
};

static int setup(struct gs_cluster *c, int self, void **state)
{
    (void)c;
    struct workloads *s = gs_calloc(1, sizeof *s);
    if (!s)
        return GS_ENOMEM;
    s->self = self;
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    gs_free(state);
}

/* The PodGroup of arrival `arrival` of workload `wi`: `<name>` when the workload has one arrival,
 * `<name>-<arrival>` otherwise. */
static int arrival_group(struct gs_cluster *c, int wi, int arrival)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    char name[300];
    if (wl->arrival.count > 1)
        snprintf(name, sizeof name, "%s-%d", wl->name, arrival);
    else
        snprintf(name, sizeof name, "%s", wl->name);
    return gs_cluster_group(c, wi, arrival, name, wl->group_min_member);
}

/* The template of a new pod of a workload with gpusPerPod: a choice drawn with probability
 * weight / total from the gpusPerPod stream (one uniform draw per pod, even for one choice, so
 * a pod's draw does not depend on the form), walking the cumulative weights. */
static const struct gs_pod_template *gpus_per_pod(struct gs_cluster *c, const struct gs_workload *wl)
{
    double total = 0;
    for (int i = 0; i < wl->ngpu_choices; i++)
        total += wl->gpu_choices[i].weight;
    double u = gs_rng_uniform(c->rng, GS_STREAM_GPUS_PER_POD) * total;
    for (int i = 0; i < wl->ngpu_choices - 1; i++) {
        if (u < wl->gpu_choices[i].weight)
            return wl->gpu_choices[i].tmpl;
        u -= wl->gpu_choices[i].weight;
    }
    return wl->gpu_choices[wl->ngpu_choices - 1].tmpl;
}

/* Create the next pod of workload `wi` (arrival `arrival`) from `tmpl` (NULL: the workload's
 * active template). Returns the pod index or a negative GS_E* code. */
static int create_pod(struct gs_cluster *c, int wi, int arrival, const struct gs_pod_template *tmpl)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    if (!tmpl && wl->ngpu_choices > 0)
        tmpl = gpus_per_pod(c, wl);
    if (!tmpl)
        tmpl = wl->active_tmpl ? wl->active_tmpl : &wl->tmpl;
    char name[512];
    if (gs_workload_planned_pods(wl) == 1 && wl->pods_created == 0)
        snprintf(name, sizeof name, "%s", wl->name);
    else
        snprintf(name, sizeof name, "%s-%d", wl->name, wl->pods_created);
    int gi = -1;
    const char *pg = gs_labels_get(&tmpl->labels, "scheduling.x-k8s.io/pod-group");
    if (pg)
        gi = gs_cluster_podgroup_object(c, pg);
    else if (wl->group_min_member > 0 && (gi = arrival_group(c, wi, arrival)) < 0)
        return GS_ENOMEM;
    struct gs_pod_spec spec = {.workload = wi, .name = name, .tmpl = tmpl, .group = gi, .lws_group = -1};
    return gs_cluster_create_pod(c, &spec);
}

static int job_initial_pods(const struct gs_workload *wl)
{
    int n = wl->parallelism;
    if (wl->completions > 0 && wl->completions < n)
        n = wl->completions;
    return n;
}

static void arrived(struct workloads *s, struct gs_cluster *c, int wi, int arrival)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    int npods;
    switch (wl->kind) {
    case GS_WL_PLAIN: npods = wl->replicas; break;
    case GS_WL_POD: npods = 1; break;
    case GS_WL_JOB: npods = job_initial_pods(wl); break;
    default: return; /* PodGroups make no pods; LeaderWorkerSets and pod lists are not ours */
    }
    gs_time now = gs_cluster_now(c);
    gs_time stagger = wl->arrival.stagger;
    for (int i = 0; i < npods; i++) {
        if (i == 0 || stagger == 0)
            create_pod(c, wi, arrival, NULL);
        else
            gs_cluster_timer(c, s->self, now + (gs_time)i * stagger, GS_PRIO_CREATE, TIMER_STAGGER, wi,
                             ((int64_t)arrival << 20) | i, false);
    }
}

/* The Job controller after pod `pi` of a Job ended (`succeeded`, or failed / deleted while
 * active). */
static void job_after_pod(struct gs_cluster *c, int pi, bool succeeded)
{
    struct gs_world *w = c->w;
    int wi = w->pods[pi].workload;
    if (wi < 0)
        return;
    const struct gs_workload *wl = &w->workloads[wi];
    if (wl->kind != GS_WL_JOB || wl->suspended)
        return;
    if (wl->failed > wl->backoff_limit)
        return; /* the Job already failed */
    gs_cluster_job_counted(c, wi, succeeded);
    wl = &w->workloads[wi];
    if (wl->failed > wl->backoff_limit) {
        /* BackoffLimitExceeded: the Job fails, the controller deletes its active pods. */
        for (int i = 0; i < w->npods; i++) {
            const struct gs_pod *q = &w->pods[i];
            if (q->workload == wi && !q->deleted && (q->phase == GS_PHASE_PENDING || q->phase == GS_PHASE_RUNNING))
                gs_cluster_delete_pod(c, i, GS_DEL_API, "Deleted", "Job has reached the specified backoff limit");
        }
        return;
    }
    int active = 0;
    for (int i = 0; i < w->npods; i++) {
        const struct gs_pod *q = &w->pods[i];
        if (q->workload == wi && !q->deleted && (q->phase == GS_PHASE_PENDING || q->phase == GS_PHASE_RUNNING))
            active++;
    }
    int want;
    if (wl->completions > 0) {
        int remaining = wl->completions - wl->succeeded - active;
        want = remaining < wl->parallelism - active ? remaining : wl->parallelism - active;
    } else {
        /* Work queue: no new pods once one succeeded. */
        want = wl->succeeded > 0 ? 0 : wl->parallelism - active;
    }
    for (int i = 0; i < want; i++)
        create_pod(c, wi, 0, NULL);
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    struct workloads *s = state;
    switch (ev->type) {
    case GS_W_WORKLOAD_ARRIVED:
        if (!ev->held_by_admission)
            arrived(s, c, ev->workload, ev->arrival);
        break;
    case GS_W_POD_FINISHED:
        if (ev->outcome != GS_OUT_DELETED || ev->was_active)
            job_after_pod(c, ev->pod, ev->outcome == GS_OUT_SUCCEEDED);
        if (ev->recreate) {
            /* The replacement keeps the evicted pod's GPU count (its template), as a
             * ReplicaSet's replacement keeps the pod template. */
            const struct gs_workload *wl = &c->w->workloads[ev->workload];
            create_pod(c, ev->workload, 0, wl->ngpu_choices > 0 ? c->w->pods[ev->pod].tmpl : NULL);
        }
        break;
    case GS_W_GROUP_ADMITTED: {
        enum gs_workload_kind k = c->w->workloads[ev->workload].kind;
        if (ev->lws_group >= 0 || (k != GS_WL_PLAIN && k != GS_WL_POD && k != GS_WL_JOB))
            break;
        for (int i = 0; i < ev->count && !c->err; i++)
            if (create_pod(c, ev->workload, ev->arrival, ev->tmpl) < 0)
                break;
        break;
    }
    default:
        break;
    }
}

static void on_timer(void *state, struct gs_cluster *c, int type, int64_t a, int64_t b)
{
    (void)state;
    if (type == TIMER_STAGGER)
        create_pod(c, (int)a, (int)(b >> 20), NULL);
}

const struct gs_controller gs_ctl_workloads = {
    .name = "workloads",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_GROUP_ADMITTED) | GS_WATCH_BIT(GS_W_POD_FINISHED) |
               GS_WATCH_BIT(GS_W_WORKLOAD_ARRIVED),
    .on_timer = on_timer,
};
