/* The Kueue controller: the Workload controller, the Kueue scheduler's admission cycles, the Job
 * integration (an admission hook suspends what Kueue manages; admission unsuspends it with the
 * flavor's node labels and tolerations), waitForPodsReady and Topology Aware Scheduling, on top
 * of the pure functions of models/admission/kueue.h. Its Workloads are the `object:` checks of
 * kind Workload.
 *
 * Rules gpusim chooses:
 * - A workload is managed by Kueue when it carries kueue.x-k8s.io/queue-name (a Job or Pod
 *   manifest in its metadata.labels, a plain workload in template.metadata.labels) and the
 *   scenario has Kueue (a kueue.x-k8s.io object, or scheduler.admission: kueue), as a cluster
 *   with Kueue installed would. One Workload per Job (or per arrival of a plain workload, named
 *   like its PodGroup), one pod set `main` of `count` pods.
 * - Kueue's controllers act instantly: an admission pass runs at the time of the change that
 *   could let a Workload in (arrival, quota released, cluster event, backoff over); an evicted
 *   Workload's pods are deleted at once (no graceful termination) and its quota released.
 * - Kueue does not place pods (without TAS): admitted pods go through kube-scheduler.
 *
 * Upstream: kubernetes-sigs/kueue pkg/scheduler/scheduler.go (schedule, entry ordering:
 * fitting in nominal quota before borrowing, priority, timestamp), pkg/queue (StrictFIFO keeps
 * the head, BestEffortFIFO moves an inadmissible head aside until the cohort changes),
 * pkg/controller/core/workload_controller.go (PodsReady timeout, requeue backoff,
 * deactivation), pkg/controller/jobframework/reconciler.go (unsuspend with the flavor's node
 * labels and tolerations, stop on eviction), pkg/workload/admission.go (conditions). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "sim/controllers/kueue.h"

/* ------------------------------------------------------------------ helpers */

static gs_time now_of(struct kueue *r)
{
    return gs_cluster_now(r->c);
}

void kq_set_err(struct kueue *r, int rc)
{
    gs_cluster_fail(r->c, rc);
}

static const char *dup(struct kueue *r, const char *s)
{
    const char *c = gs_arena_strdup(&r->c->w->arena, s);
    if (s && !c)
        kq_set_err(r, GS_ENOMEM);
    return c;
}

static bool str_same(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Set condition `type` (metav1 SetStatusCondition: unchanged fields keep it as is); each change
 * is an object row in the trace: status "<Type>=<Status>", message "<reason>: <message>". */
static void set_cond(struct kueue *r, struct kwl *k, const char *type, const char *status, const char *reason,
                     const char *msg)
{
    struct kcond *c = NULL;
    for (int i = 0; i < k->ncond; i++)
        if (strcmp(k->cond[i].type, type) == 0)
            c = &k->cond[i];
    if (c && str_same(c->status, status) && str_same(c->reason, reason) && str_same(c->message, msg))
        return;
    if (!c) {
        if (k->ncond >= NCOND)
            return;
        c = &k->cond[k->ncond++];
        c->type = type;
    }
    c->status = status;
    c->reason = reason;
    if (!c->message || !str_same(c->message, msg))
        c->message = dup(r, msg ? msg : "");
    char st[96], m[GS_KUEUE_MSG_MAX + 128];
    snprintf(st, sizeof st, "%s=%s", type, status);
    snprintf(m, sizeof m, "%s: %s", reason, msg ? msg : "");
    gs_cluster_object(r->c, "Workload", "default", k->name, st, m);
}

static const struct kcond *get_cond(const struct kwl *k, const char *type)
{
    for (int i = 0; i < k->ncond; i++)
        if (strcmp(k->cond[i].type, type) == 0)
            return &k->cond[i];
    return NULL;
}

static void want_pass(struct kueue *r)
{
    struct kueue *kr = r;
    if (!kr->pass_ev)
        kr->pass_ev = gs_cluster_timer(r->c, r->self, now_of(r), PRIO_KUEUE, EV_PASS, -1, 0, false);
}

static void timer(struct kueue *r, int k, gs_time t, int kind)
{
    gs_cluster_timer(r->c, r->self, t, PRIO_KUEUE, kind, k, r->w[k].gen, false);
}

/* Something changed that may let a moved-aside Workload in (QueueInadmissibleWorkloads). */
static void requeue_inadmissible(struct kueue *r)
{
    struct kueue *kr = r;
    bool any = false;
    for (int i = 0; i < kr->n; i++) {
        if (kr->w[i].state == KW_PENDING && !kr->w[i].blocked) {
            kr->w[i].inadmissible = false;
            any = true;
        }
    }
    if (any)
        want_pass(r);
}

static int ensure_pod_map(struct kueue *r)
{
    struct kueue *kr = r;
    int old = kr->pod_cap;
    if (GS_GROW(kr->pod_kwl, kr->pod_cap, r->c->w->npods)) {
        kq_set_err(r, GS_ENOMEM);
        return GS_ENOMEM;
    }
    for (int i = old; i < kr->pod_cap; i++)
        kr->pod_kwl[i] = -1;
    return 0;
}

/* The Workload of pod `pi`: recorded when Kueue created it; a Job's replacement pods (made by
 * its controller) belong to the Job's latest Workload. */
static int pod_kwl(struct kueue *r, int pi)
{
    struct kueue *kr = r;
    if (ensure_pod_map(r))
        return -1;
    if (kr->pod_kwl[pi] >= 0)
        return kr->pod_kwl[pi];
    int wi = r->c->w->pods[pi].workload;
    if (wi >= 0 && r->c->w->workloads[wi].kind == GS_WL_LWS) {
        /* A pod the LeaderWorkerSet re-created: its group's latest Workload. */
        for (int ki = kr->n - 1; ki >= 0; ki--)
            if (kr->w[ki].wi == wi && kr->w[ki].lws_group == r->c->w->pods[pi].lws_group) {
                kr->pod_kwl[pi] = ki;
                return ki;
            }
        return -1;
    }
    if (wi < 0 || kr->wl_kwl[wi] < 0 || r->c->w->workloads[wi].kind != GS_WL_JOB)
        return -1;
    kr->pod_kwl[pi] = kr->wl_kwl[wi];
    return kr->pod_kwl[pi];
}

/* ------------------------------------------------------------------ setup */

static const char *queue_label(const struct kueue *r, int wi)
{
    const struct gs_workload *wl = &r->c->w->workloads[wi];
    const struct gs_kueue_spec *s = r->spec;
    if (wl->kind == GS_WL_PLAIN)
        return gs_labels_get(&wl->tmpl.labels, QUEUE_LABEL);
    for (int i = 0; s && i < s->nlabels; i++)
        if (strcmp(s->labels[i].workload, wl->name) == 0)
            return s->labels[i].queue;
    return NULL;
}

static int setup(struct gs_cluster *c, int self, void **state)
{
    struct gs_kueue_spec *s = c->sc->kueue;
    bool objects = s && (s->nflavors + s->ncqs + s->nlqs + s->ntopologies) > 0;
    bool admission = c->sc->admission && strcmp(c->sc->admission, "kueue") == 0;
    if (!objects && !admission)
        return 0;
    struct kueue *kr = gs_calloc(1, sizeof *kr);
    if (!kr)
        return GS_ENOMEM;
    *state = kr;
    kr->c = c;
    kr->self = self;
    static struct gs_kueue_spec empty;
    kr->spec = s ? s : &empty;
    kr->wl_kwl = gs_malloc(sizeof *kr->wl_kwl * (size_t)(c->w->nworkloads ? c->w->nworkloads : 1));
    if (!kr->wl_kwl || gs_kueue_quota_init(&kr->q, kr->spec))
        return GS_ENOMEM;
    for (int i = 0; i < c->w->nworkloads; i++)
        kr->wl_kwl[i] = -1;
    return 0;
}

static void destroy(void *state)
{
    struct kueue *kr = state;
    for (int i = 0; i < kr->n; i++)
        gs_free(kr->w[i].tas_nodes);
    gs_free(kr->w);
    gs_free(kr->wl_kwl);
    gs_free(kr->pod_kwl);
    gs_kueue_quota_free(&kr->q);
    gs_free(kr);
}

/* ------------------------------------------------------------------ Workload creation */

static int job_pods(const struct gs_workload *wl)
{
    int n = wl->parallelism;
    if (wl->completions > 0 && wl->completions - wl->succeeded < n)
        n = wl->completions - wl->succeeded;
    return n > 0 ? n : 0;
}

static void set_pending(struct kueue *r, struct kwl *k, const char *reason, const char *msg)
{
    set_cond(r, k, "QuotaReserved", "False", reason, msg);
}

/* A new Workload of `count` pods for arrival `arrival` of workload `wi`, named `name` (arena),
 * in LocalQueue `queue`; `lws_group` >= 0 for a LeaderWorkerSet group. */
static void new_kwl(struct kueue *r, int wi, int arrival, const char *name, int count, int lws_group,
                    const char *queue);

/* An arrival of workload `wi` (admission hook): true when Kueue manages it (a Job or Pod labelled
 * kueue.x-k8s.io/queue-name, or a plain workload whose template carries the label): a Workload is
 * created and its pods only after admission. */
static bool admit_arrival(struct kueue *r, int wi, int arrival)
{
    const char *queue = queue_label(r, wi);
    if (!queue)
        return false;
    const struct gs_workload *wl = &r->c->w->workloads[wi];
    if (wl->kind == GS_WL_LWS) {
        /* Kueue's LeaderWorkerSet integration: one Workload per group, `<lws>-<group>`. */
        for (int g = 0; g < wl->replicas; g++)
            new_kwl(r, wi, arrival, gs_arena_printf(&r->c->w->arena, "%s-%d", wl->name, g), wl->lws_size, g, queue);
        return true;
    }
    new_kwl(r, wi, arrival,
            wl->arrival.count > 1 ? gs_arena_printf(&r->c->w->arena, "%s-%d", wl->name, arrival) : wl->name,
            wl->kind == GS_WL_JOB ? job_pods(wl) : wl->kind == GS_WL_POD ? 1 : wl->replicas, -1, queue);
    return true;
}

static void new_kwl(struct kueue *r, int wi, int arrival, const char *name, int count, int lws_group,
                    const char *queue)
{
    struct kueue *kr = r;
    const struct gs_workload *wl = &r->c->w->workloads[wi];
    if (!name) {
        kq_set_err(r, GS_ENOMEM);
        return;
    }
    if (GS_GROW(kr->w, kr->cap, kr->n + 1)) {
        kq_set_err(r, GS_ENOMEM);
        return;
    }
    int ki = kr->n++;
    struct kwl *k = &kr->w[ki];
    memset(k, 0, sizeof *k);
    k->wi = wi;
    k->arrival = arrival;
    k->name = name;
    k->tmpl = &wl->tmpl;
    k->count = count;
    k->lws_group = lws_group;
    k->created = now_of(r);
    k->e.priority = wl->tmpl.priority;
    k->e.queue_ts = k->created;
    k->e.seq = kr->seq++;
    k->lq = gs_kueue_find_lq(kr->spec, "default", queue);
    k->cq = k->lq >= 0 ? kr->spec->lqs[k->lq].cq : -1;
    k->e.cq = k->cq;
    kr->wl_kwl[wi] = ki;
    gs_cluster_object(r->c, "Workload", "default", k->name, "Created", NULL);
    char msg[512];
    if (k->lq < 0) {
        snprintf(msg, sizeof msg, "LocalQueue %s doesn't exist", queue);
        k->blocked = dup(r, msg);
    } else if (k->cq < 0) {
        snprintf(msg, sizeof msg, "ClusterQueue %s doesn't exist", kr->spec->lqs[k->lq].cluster_queue);
        k->blocked = dup(r, msg);
    } else if (!kr->spec->cqs[k->cq].active) {
        snprintf(msg, sizeof msg, "ClusterQueue %s is inactive", kr->spec->cqs[k->cq].name);
        k->blocked = dup(r, msg);
    } else if (!kr->spec->cqs[k->cq].selects_default) {
        k->blocked = "Workload namespace doesn't match ClusterQueue selector";
    }
    if (k->blocked)
        set_pending(r, k, "Inadmissible", k->blocked);
    else
        want_pass(r);
}

/* ------------------------------------------------------------------ pods of an admission */

/* A copy of `base` with the flavor's nodeLabels added to the nodeSelector, its tolerations
 * appended, and `extra` labels (TAS domain) added (jobframework PodSetInfo merge). Arena. */
const struct gs_pod_template *kq_inject(struct kueue *r, const struct gs_pod_template *base,
                                            const struct gs_kueue_flavor *fl, const struct gs_labels *extra)
{
    struct gs_arena *a = &r->c->w->arena;
    struct gs_pod_template *t = gs_arena_alloc(a, sizeof *t);
    if (!t) {
        kq_set_err(r, GS_ENOMEM);
        return base;
    }
    *t = *base;
    memset(&t->node_selector, 0, sizeof t->node_selector);
    int rc = 0;
    for (int i = 0; i < base->node_selector.n && !rc; i++)
        rc = gs_labels_set(&t->node_selector, a, base->node_selector.kv[i].key, base->node_selector.kv[i].value);
    for (int i = 0; fl && i < fl->node_labels.n && !rc; i++)
        rc = gs_labels_set(&t->node_selector, a, fl->node_labels.kv[i].key, fl->node_labels.kv[i].value);
    for (int i = 0; extra && i < extra->n && !rc; i++)
        rc = gs_labels_set(&t->node_selector, a, extra->kv[i].key, extra->kv[i].value);
    if (fl && fl->ntolerations) {
        struct gs_toleration *tol = gs_arena_alloc(a, sizeof *tol * (size_t)(base->ntolerations + fl->ntolerations));
        if (!tol) {
            rc = GS_ENOMEM;
        } else {
            if (base->ntolerations)
                memcpy(tol, base->tolerations, sizeof *tol * (size_t)base->ntolerations);
            memcpy(tol + base->ntolerations, fl->tolerations, sizeof *tol * (size_t)fl->ntolerations);
            t->tolerations = tol;
            t->ntolerations = base->ntolerations + fl->ntolerations;
        }
    }
    kq_set_err(r, rc);
    return t;
}

/* The Workload's pods: its owner creates `n` of them from template `t` (a LeaderWorkerSet its
 * group); they belong to the Workload. */
void kq_create_pods(struct kueue *r, int ki, const struct gs_pod_template *t, int n)
{
    const struct kwl *k = &r->w[ki];
    int first = r->c->w->npods;
    gs_cluster_set_active_template(r->c, k->wi, t);
    gs_cluster_admit(r->c, k->wi, k->arrival, k->lws_group, k->lws_group >= 0 ? 0 : n, t);
    if (ensure_pod_map(r))
        return;
    for (int pi = first; pi < r->c->w->npods; pi++)
        r->pod_kwl[pi] = ki;
}

/* ------------------------------------------------------------------ admission and eviction */

static void admit(struct kueue *r, int ki, const struct gs_kueue_assignment *a, bool tas)
{
    struct kueue *kr = r;
    struct kwl *k = &kr->w[ki];
    gs_time now = now_of(r);
    k->e.usage = a->usage;
    k->e.reserved_at = now;
    gs_kueue_usage_apply(&kr->q, k->cq, &k->e.usage, +1);
    k->state = KW_ADMITTED;
    k->inadmissible = false;
    k->pods_ready = false;
    k->gen++;
    gs_cluster_set_suspended(r->c, k->wi, false); /* unsuspended: the Job controller runs again */
    char msg[512];
    snprintf(msg, sizeof msg, "Quota reserved in ClusterQueue %s", kr->spec->cqs[k->cq].name);
    set_cond(r, k, "QuotaReserved", "True", "QuotaReserved", msg);
    const struct kcond *ev = get_cond(k, "Evicted");
    if (ev && strcmp(ev->status, "True") == 0) {
        snprintf(msg, sizeof msg, "Previously: %s", ev->message);
        set_cond(r, k, "Evicted", "False", "QuotaReserved", msg);
    }
    const struct kcond *pr = get_cond(k, "Preempted");
    if (pr && strcmp(pr->status, "True") == 0) {
        snprintf(msg, sizeof msg, "Previously: %s", pr->message);
        set_cond(r, k, "Preempted", "False", "QuotaReserved", msg);
    }
    set_cond(r, k, "Admitted", "True", "Admitted", "The workload is admitted");
    if (kr->spec->config.wait_for_pods_ready) {
        set_cond(r, k, "PodsReady", "False", "WaitForStart", "Not all pods are ready or succeeded");
        timer(r, ki, now + kr->spec->config.pods_ready_timeout, EV_TIMEOUT);
    }
    /* The Job integration unsuspends the Job: its controller creates the pods. */
    struct gs_workload *wl = &r->c->w->workloads[k->wi];
    int n = wl->kind == GS_WL_JOB ? job_pods(wl) : k->count;
    const struct gs_kueue_flavor *fl = a->flavor >= 0 ? &kr->spec->flavors[a->flavor] : NULL;
    if (tas) {
        kq_create_tas_pods(r, ki, a->flavor);
    } else {
        kq_create_pods(r, ki, kq_inject(r, k->tmpl, fl, NULL), n);
    }
}

/* Stop the Workload's Job: delete its active pods without the Job controller replacing them
 * or counting them as failed (a suspended Job), and release the quota. */
static void stop(struct kueue *r, int ki, const char *msg)
{
    struct kueue *kr = r;
    struct kwl *k = &kr->w[ki];
    gs_kueue_usage_apply(&kr->q, k->cq, &k->e.usage, -1);
    memset(&k->e.usage, 0, sizeof k->e.usage);
    /* A suspended Job makes no pods and counts no failure; the pods go as their owner stopped them
     * (nor does a LeaderWorkerSet re-create its group). */
    gs_cluster_set_suspended(r->c, k->wi, true);
    kr->evicting = true;
    for (int pi = 0; pi < r->c->w->npods; pi++) {
        const struct gs_pod *p = &r->c->w->pods[pi];
        if (p->deleted || p->workload != k->wi || (p->phase != GS_PHASE_PENDING && p->phase != GS_PHASE_RUNNING))
            continue;
        if (pod_kwl(r, pi) == ki)
            gs_cluster_delete_pod(r->c, pi, GS_DEL_OWNER, "Deleted", msg);
    }
    kr->evicting = false;
    gs_free(k->tas_nodes);
    k->tas_nodes = NULL;
    k->tas_n = 0;
    k->state = KW_PENDING;
    k->gen++;
    k->pods_ready = false;
    k->e.reserved_at = 0;
    set_cond(r, k, "Admitted", "False", "NoReservation", "The workload has no reservation");
}

static void evict(struct kueue *r, int ki, const char *reason, const char *msg, const char *preempt_reason)
{
    struct kueue *kr = r;
    stop(r, ki, msg);
    struct kwl *k = &kr->w[ki];
    gs_time now = now_of(r);
    set_cond(r, k, "Evicted", "True", reason, msg);
    if (preempt_reason)
        set_cond(r, k, "Preempted", "True", preempt_reason, msg);
    set_pending(r, k, "Pending", msg);
    if (!kr->spec->config.timestamp_creation)
        k->e.queue_ts = now;
    if (strcmp(reason, "PodsReadyTimeout") == 0) {
        const struct gs_kueue_config *c = &kr->spec->config;
        if (gs_kueue_requeue_exhausted(c->backoff_limit_count, k->requeues)) {
            const char *m = "The workload is deactivated due to exceeding the maximum number of re-queuing retries";
            k->state = KW_DEACTIVATED;
            set_cond(r, k, "Evicted", "True", "DeactivatedDueToRequeuingLimitExceeded", m);
            set_pending(r, k, "Pending", m);
            set_cond(r, k, "Requeued", "False", "DeactivatedDueToRequeuingLimitExceeded", m);
        } else {
            k->requeues++;
            k->in_backoff = true;
            set_cond(r, k, "Requeued", "False", reason, msg);
            timer(r, ki, now + gs_kueue_requeue_backoff(c->backoff_base_s, c->backoff_max_s, k->requeues), EV_BACKOFF);
        }
    } else {
        set_cond(r, k, "Requeued", "True", reason, msg);
    }
    requeue_inadmissible(r);
}

/* ------------------------------------------------------------------ the admission pass */

static bool eligible(const struct kwl *k)
{
    return k->state == KW_PENDING && !k->blocked && !k->in_backoff;
}

/* The head of ClusterQueue `cq`: StrictFIFO, the first Workload (none while it is
 * inadmissible: it blocks the queue); BestEffortFIFO, the first not moved aside. */
static int head_of(struct kueue *kr, int cq)
{
    bool strict = kr->spec->cqs[cq].strategy == GS_KQ_STRICT_FIFO;
    int best = -1;
    for (int i = 0; i < kr->n; i++) {
        const struct kwl *k = &kr->w[i];
        if (k->cq != cq || !eligible(k) || (!strict && k->inadmissible))
            continue;
        if (best < 0 || gs_kueue_queue_cmp(&k->e, &kr->w[best].e) < 0)
            best = i;
    }
    if (best >= 0 && strict && kr->w[best].inadmissible)
        return -1;
    return best;
}

struct head {
    int ki;
    bool borrows;
};

static const struct kueue *sort_ctx;

static int head_cmp(const void *pa, const void *pb)
{
    const struct head *a = pa, *b = pb;
    if (a->borrows != b->borrows)
        return a->borrows ? 1 : -1;
    return gs_kueue_queue_cmp(&sort_ctx->w[a->ki].e, &sort_ctx->w[b->ki].e);
}

static void pending_message(struct kueue *r, struct kwl *k, const char *reasons, int npreempt)
{
    char msg[GS_KUEUE_MSG_MAX + 128];
    int len = snprintf(msg, sizeof msg, "couldn't assign flavors to pod set main: %s", reasons);
    if (npreempt > 0 && len > 0 && (size_t)len < sizeof msg)
        snprintf(msg + len, sizeof msg - (size_t)len, ". Pending the preemption of %d workload(s)", npreempt);
    set_pending(r, k, "Pending", msg);
}

/* Try to admit head `ki`: true when something changed (admitted, or victims evicted). */
static bool try_head(struct kueue *r, int ki)
{
    struct kueue *kr = r;
    struct kwl *k = &kr->w[ki];
    struct gs_kueue_assignment a;
    gs_kueue_assign(&kr->q, k->cq, &r->c->w->res, k->tmpl, &k->tmpl->requests, k->count, &a);
    if (a.mode == GS_KQ_FIT) {
        struct tas_mode m = kq_tas_mode(kr->spec, k, a.flavor);
        if (m.on) {
            char msg[512];
            if (!kq_tas_place(r, k, a.flavor, &m, msg, sizeof msg)) {
                k->inadmissible = true;
                pending_message(r, k, msg, 0);
                return false;
            }
        }
        admit(r, ki, &a, m.on);
        return true;
    }
    if (a.mode == GS_KQ_PREEMPT) {
        int nadm = 0;
        for (int i = 0; i < kr->n; i++)
            nadm += kr->w[i].state == KW_ADMITTED;
        struct gs_kueue_entry *adm = gs_malloc(sizeof *adm * (size_t)(nadm ? nadm : 1));
        int *idx = gs_malloc(sizeof *idx * (size_t)(nadm ? nadm : 1) * 2);
        const char **why = gs_malloc(sizeof *why * (size_t)(nadm ? nadm : 1));
        if (!adm || !idx || !why) {
            gs_free(adm);
            gs_free(idx);
            gs_free(why);
            kq_set_err(r, GS_ENOMEM);
            return false;
        }
        int *targets = idx + nadm;
        nadm = 0;
        for (int i = 0; i < kr->n; i++)
            if (kr->w[i].state == KW_ADMITTED) {
                idx[nadm] = i;
                adm[nadm++] = kr->w[i].e;
            }
        int nt = 0;
        kq_set_err(r, gs_kueue_preemption_targets(&kr->q, &k->e, &a, adm, nadm, targets, why, &nt));
        pending_message(r, k, a.reasons, nt);
        for (int t = 0; t < nt; t++) {
            const struct kwl *v = &kr->w[idx[targets[t]]];
            char msg[768];
            const char *cohort = kr->spec->cqs[k->cq].cohort;
            snprintf(msg, sizeof msg,
                     "Preempted to accommodate a workload (UID: %s, JobUID: %s) due to %s; preemptor path: /%s%s%s; "
                     "preemptee path: /%s%s%s",
                     k->name, k->name,
                     strcmp(why[t], "InClusterQueue") == 0 ? "prioritization in the ClusterQueue"
                                                            : "reclamation within the cohort",
                     cohort ? cohort : "", cohort ? "/" : "", kr->spec->cqs[k->cq].name, cohort ? cohort : "",
                     cohort ? "/" : "", kr->spec->cqs[v->cq].name);
            evict(r, idx[targets[t]], "Preempted", msg, why[t]);
        }
        gs_free(adm);
        gs_free(idx);
        gs_free(why);
        if (nt > 0)
            return true;
        k->inadmissible = true;
        return false;
    }
    k->inadmissible = true;
    pending_message(r, k, a.reasons, 0);
    return false;
}

static bool admission_blocked(const struct kueue *kr)
{
    if (!kr->spec->config.wait_for_pods_ready || !kr->spec->config.block_admission)
        return false;
    for (int i = 0; i < kr->n; i++)
        if (kr->w[i].state == KW_ADMITTED && !kr->w[i].pods_ready)
            return true;
    return false;
}

static void pass(struct kueue *r)
{
    struct kueue *kr = r;
    int ncq = kr->spec->ncqs;
    struct head *heads = gs_malloc(sizeof *heads * (size_t)(ncq ? ncq : 1));
    if (!heads) {
        kq_set_err(r, GS_ENOMEM);
        return;
    }
    /* Each round is one scheduling cycle: the heads of all ClusterQueues, those fitting in
     * their nominal quota first, then by priority and timestamp. */
    for (int round = 0; round < 4 * kr->n + 8 && !r->c->err; round++) {
        if (admission_blocked(kr))
            break;
        int nh = 0;
        for (int c = 0; c < ncq; c++) {
            int h = head_of(kr, c);
            if (h < 0)
                continue;
            struct gs_kueue_assignment a;
            const struct kwl *k = &kr->w[h];
            gs_kueue_assign(&kr->q, c, &r->c->w->res, k->tmpl, &k->tmpl->requests, k->count, &a);
            heads[nh++] = (struct head){h, a.borrows};
        }
        if (nh == 0)
            break;
        sort_ctx = kr;
        qsort(heads, (size_t)nh, sizeof *heads, head_cmp);
        sort_ctx = NULL;
        bool progress = false;
        for (int i = 0; i < nh; i++) {
            if (admission_blocked(kr))
                break;
            progress |= try_head(r, heads[i].ki);
        }
        bool more = false;
        for (int c = 0; c < ncq && !more; c++)
            more = head_of(kr, c) >= 0;
        if (!progress && !more)
            break;
    }
    gs_free(heads);
}

/* ------------------------------------------------------------------ the controller */

/* Pod `pi` became Running (PodsReady accounting). */
static void pod_started(struct kueue *r, int pi)
{
    struct kueue *kr = r;
    int ki = pod_kwl(r, pi);
    if (ki < 0 || kr->w[ki].state != KW_ADMITTED || kr->w[ki].pods_ready)
        return;
    struct kwl *k = &kr->w[ki];
    int ready = 0;
    for (int p = 0; p < r->c->w->npods; p++) {
        const struct gs_pod *pod = &r->c->w->pods[p];
        if (!pod->deleted && p < kr->pod_cap && kr->pod_kwl[p] == ki &&
            (pod->phase == GS_PHASE_RUNNING || pod->phase == GS_PHASE_SUCCEEDED))
            ready++;
    }
    if (ready < k->count)
        return;
    k->pods_ready = true;
    if (kr->spec->config.wait_for_pods_ready) {
        set_cond(r, k, "PodsReady", "True", "PodsReady", "All pods reached readiness and the workload is running");
        if (kr->spec->config.block_admission)
            want_pass(r);
    }
}

/* Pod `pi` ended (succeeded, failed or deleted), after its Job controller ran: a finished Workload
 * releases its quota. */
static void pod_ended(struct kueue *r, int pi)
{
    struct kueue *kr = r;
    if (kr->evicting)
        return;
    int ki = pod_kwl(r, pi);
    if (ki < 0 || kr->w[ki].state != KW_ADMITTED)
        return;
    struct kwl *k = &kr->w[ki];
    const struct gs_workload *wl = &r->c->w->workloads[k->wi];
    if (k->lws_group >= 0)
        return; /* a LeaderWorkerSet group serves until deleted: its Workload never finishes */
    bool finished = false, failed = false;
    if (wl->kind == GS_WL_JOB) {
        failed = wl->failed > wl->backoff_limit;
        finished = failed || (wl->completions > 0 && wl->succeeded >= wl->completions);
        if (!finished && wl->completions <= 0 && wl->succeeded > 0) {
            finished = true; /* work queue: done once one succeeded and none is active */
            for (int p = 0; p < r->c->w->npods && finished; p++) {
                const struct gs_pod *q = &r->c->w->pods[p];
                finished = q->workload != k->wi || q->deleted ||
                           (q->phase != GS_PHASE_PENDING && q->phase != GS_PHASE_RUNNING);
            }
        }
    } else {
        int done = 0;
        for (int p = 0; p < r->c->w->npods; p++)
            if (p < kr->pod_cap && kr->pod_kwl[p] == ki && !r->c->w->pods[p].deleted &&
                r->c->w->pods[p].phase == GS_PHASE_SUCCEEDED)
                done++;
        finished = done >= k->count;
    }
    if (!finished)
        return;
    gs_kueue_usage_apply(&kr->q, k->cq, &k->e.usage, -1);
    memset(&k->e.usage, 0, sizeof k->e.usage);
    k->state = KW_FINISHED;
    k->gen++;
    if (failed)
        set_cond(r, k, "Finished", "True", "Failed", "Job has reached the specified backoff limit");
    else
        set_cond(r, k, "Finished", "True", "Succeeded",
                 wl->kind == GS_WL_JOB ? "Job finished successfully" : "Pods succeeded");
    requeue_inadmissible(r);
}

/* LeaderWorkerSet group `g` of workload `wi` was scaled away: its Workload goes with it (owner
 * reference), quota released. */
static void group_deleted(struct kueue *r, int wi, int g)
{
    struct kueue *kr = r;
    for (int ki = kr->n - 1; ki >= 0; ki--) {
        struct kwl *k = &kr->w[ki];
        if (k->wi != wi || k->lws_group != g || k->deleted)
            continue;
        /* The group's Workload goes with it (owner reference): its quota is released. */
        if (k->state == KW_ADMITTED) {
            gs_kueue_usage_apply(&kr->q, k->cq, &k->e.usage, -1);
            memset(&k->e.usage, 0, sizeof k->e.usage);
        }
        k->state = KW_FINISHED;
        k->deleted = true;
        k->gen++;
        gs_cluster_object(r->c, "Workload", "default", k->name, "Deleted", NULL);
        requeue_inadmissible(r);
        return;
    }
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    (void)c;
    struct kueue *kr = state;
    switch (ev->type) {
    case GS_W_POD_STARTED:
        pod_started(kr, ev->pod);
        break;
    case GS_W_POD_FINISHED:
        pod_ended(kr, ev->pod);
        break;
    case GS_W_CLUSTER_EVENT:
        /* A cluster event (node added or changed, pod deleted): pending Workloads are retried. */
        if (!kr->evicting)
            requeue_inadmissible(kr);
        break;
    case GS_W_GROUP_DELETED:
        group_deleted(kr, ev->workload, ev->lws_group);
        break;
    default:
        break;
    }
}

static void on_timer(void *state, struct gs_cluster *c, int kind, int64_t a, int64_t b)
{
    (void)c;
    struct kueue *kr = state;
    if (kind == EV_PASS) {
        kr->pass_ev = 0;
        pass(kr);
        return;
    }
    int ki = (int)a;
    struct kwl *k = &kr->w[ki];
    if (k->gen != (uint32_t)b)
        return;
    if (kind == EV_TIMEOUT && k->state == KW_ADMITTED && !k->pods_ready) {
        char msg[512];
        snprintf(msg, sizeof msg, "Exceeded the PodsReady timeout default/%s", k->name);
        evict(kr, ki, "PodsReadyTimeout", msg, NULL);
    } else if (kind == EV_BACKOFF && k->state == KW_PENDING && k->in_backoff) {
        k->in_backoff = false;
        set_cond(kr, k, "Requeued", "True", "BackoffFinished", "The workload backoff was finished");
        want_pass(kr);
    }
}

/* Admission: an arrival of a workload Kueue manages, or a LeaderWorkerSet group added by a scale
 * (a Workload `<lws>-<g>`; its pods come at admission). */
static bool admit_group(void *state, struct gs_cluster *c, int wi, int arrival, int lws_group)
{
    struct kueue *kr = state;
    if (lws_group < 0)
        return admit_arrival(kr, wi, arrival);
    const char *queue = queue_label(kr, wi);
    if (!queue)
        return false;
    const struct gs_workload *wl = &c->w->workloads[wi];
    new_kwl(kr, wi, 0, gs_arena_printf(&c->w->arena, "%s-%d", wl->name, lws_group), wl->lws_size, lws_group, queue);
    return true;
}

/* A Workload's conditions: QuotaReserved, Admitted, PodsReady, Evicted, Preempted, Requeued,
 * Finished. */
static bool condition(const struct gs_cluster *c, const void *obj, const char *type, struct gs_condition *out)
{
    (void)c;
    const struct kcond *k = get_cond(obj, type);
    if (!k)
        return false;
    out->status = k->status;
    out->reason = k->reason;
    out->message = k->message;
    return true;
}

/* `object:` checks of kind Workload (named after its Job or workload); none without Kueue. */
static bool object(void *state, const struct gs_cluster *c, const struct gs_expect *e, struct gs_object_view *v)
{
    (void)c;
    const struct kueue *kr = state;
    if (strcmp(e->obj_kind, "Workload") != 0)
        return false;
    v->cget = condition;
    for (int i = kr ? kr->n - 1 : -1; i >= 0; i--)
        if (strcmp(kr->w[i].name, e->name) == 0) {
            v->cobj = kr->w[i].deleted ? NULL : &kr->w[i];
            break;
        }
    v->exists = v->cobj != NULL;
    return true;
}

const struct gs_controller gs_ctl_kueue = {
    .name = "kueue",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_CLUSTER_EVENT) | GS_WATCH_BIT(GS_W_GROUP_DELETED) |
               GS_WATCH_BIT(GS_W_POD_FINISHED) | GS_WATCH_BIT(GS_W_POD_STARTED),
    .on_timer = on_timer,
    .admit_group = admit_group,
    .object = object,
};
