/* gpusim describe TRACE pod/NAME (reports/get.h): one pod as `kubectl describe pod` shows it
 * (kubernetes staging/src/k8s.io/kubectl/pkg/describe/describe.go describePod: Name, Namespace,
 * Priority, Node, Start Time, Status, Reason, Message, Conditions, Events with Type, Reason,
 * Age, From, Message), at a simulated time, from the trace's history. What gpusim does not
 * model (labels, IPs, containers, volumes, QoS) is left out rather than invented; what it adds
 * (workload, PodGroup, requests, the GPUs held) is in lines of its own. */
#include <inttypes.h>
#include <string.h>

#include "base/error.h"
#include "models/quantity.h"
#include "reports/get.h"
#include "reports/explain_internal.h"
#include "reports/get_internal.h"
#include "reports/open.h"

static bool is(const char *a, const char *b)
{
    return a && strcmp(a, b) == 0;
}

/* Event type and source as Kubernetes' components record them (Warning for failures). */
static const char *ev_type(const char *r)
{
    static const char *const warn[] = {"FailedScheduling", "UnexpectedAdmissionError", "GpuAllocationFailed",
                                       "DeviceAllocationFailed", "Warning", "Evicted", "Rejected", NULL};
    for (int i = 0; warn[i]; i++)
        if (is(r, warn[i]))
            return "Warning";
    return "Normal";
}

static const char *ev_from(const char *r)
{
    if (is(r, "FailedScheduling") || is(r, "Scheduled") || is(r, "Preempted") || is(r, "WaitingOnPermit"))
        return "default-scheduler";
    if (is(r, "TriggeredScaleUp") || is(r, "NotTriggerScaleUp"))
        return "cluster-autoscaler";
    if (is(r, "Started") || is(r, "Killing") || is(r, "Completed") || is(r, "UnexpectedAdmissionError") ||
        is(r, "GpuAllocated") || is(r, "DeviceAllocated") || is(r, "GpuAllocationFailed") ||
        is(r, "DeviceAllocationFailed"))
        return "kubelet";
    return "gpusim";
}

static void cpu_str(int64_t m, char *buf, size_t n)
{
    if (m % 1000 == 0)
        snprintf(buf, n, "%" PRId64, m / 1000);
    else
        snprintf(buf, n, "%" PRId64 "m", m);
}

int gs_report_describe_pod(const char *trace, const char *name, int64_t at_us, FILE *out, char *errbuf, int errlen)
{
    struct gs_get_view v;
    int rc = gs_get_view_open(trace, at_us, &v, errbuf, errlen);
    int i = rc == 0 ? gs_get_find_pod(&v, trace, name, errbuf, errlen) : -1;
    if (rc == 0 && i < 0)
        rc = GS_EINVAL;
    if (rc) {
        gs_get_view_free(&v);
        return rc;
    }
    const struct gs_history *h = &v.h;
    const struct gs_hist_pod *hp = &h->pods[i];
    const struct gs_get_pod *p = &v.pods[i];
    char t[64], b[64];
    gs_duration_format(v.at, t, sizeof t);
    int named = 0;
    for (int k = 0; k < h->npods; k++)
        named += h->pods[k].name && strcmp(h->pods[k].name, name) == 0;
    fprintf(out, "Name:             %s\n", hp->name);
    fprintf(out, "Namespace:        default\n");
    fprintf(out, "At:               %s\n", t);
    if (named > 1)
        fprintf(out, "                  (%d pods had this name; this is the newest created by then, pod id %d)\n", named, i);
    fprintf(out, "Priority:         %d\n", hp->priority);
    int node = p->node >= 0 ? p->node : -1;
    fprintf(out, "Node:             %s%s\n", node >= 0 ? h->nodes[node].name : "<none>",
            node >= 0 && p->reserved && !p->bound ? " (reserved, waiting at Permit)" : "");
    gs_duration_format(hp->created_us, b, sizeof b);
    fprintf(out, "Created:          %s\n", b);
    if (p->bound_at >= 0) {
        gs_duration_format(p->bound_at, b, sizeof b);
        fprintf(out, "Start Time:       %s\n", b);
    }
    const char *phase = p->succeeded ? "Succeeded" : p->failed ? "Failed" : p->started ? "Running" : "Pending";
    if (!p->exists && hp->created_us <= v.at)
        phase = is(hp->phase, "Rejected") ? "Rejected" : "Deleted";
    fprintf(out, "Status:           %s%s\n", phase, p->exists && p->terminating && !p->succeeded && !p->failed ? " (Terminating)" : "");
    if (p->failed && p->fail_reason)
        fprintf(out, "Reason:           %s\n", p->fail_reason);
    if (!p->exists && hp->message && (is(hp->phase, "Rejected") || is(hp->phase, "Failed")))
        fprintf(out, "Message:          %s\n", hp->message);
    fprintf(out, "Workload:         %s\n", hp->workload ? hp->workload : "<none>");
    fprintf(out, "PodGroup:         %s\n", hp->group ? hp->group : "<none>");
    if (p->nominated >= 0 && !p->bound)
        fprintf(out, "NominatedNodeName: %s\n", h->nodes[p->nominated].name);
    char cpu[32], mem[32];
    cpu_str(hp->cpu_m, cpu, sizeof cpu);
    gs_explain_bytes(hp->memory_b, mem, sizeof mem);
    fprintf(out, "Requests:\n  cpu:             %s\n  memory:          %s\n", cpu, mem);
    if (hp->gpu > 0)
        fprintf(out, "  nvidia.com/gpu:  %" PRId64 "\n", hp->gpu);
    if (node >= 0 && p->exists && !p->succeeded && !p->failed) {
        char ids[256];
        gs_get_pod_gpu_ids(&v, i, ids, sizeof ids);
        if (strcmp(ids, "-") != 0)
            fprintf(out, "GPUs:             %s gpu=%s\n", h->nodes[node].name, ids);
    }
    /* Conditions (kubelet's and the scheduler's): PodScheduled, then Ready. */
    fprintf(out, "Conditions:\n  Type           Status\n");
    fprintf(out, "  PodScheduled   %s\n", p->bound ? "True" : "False");
    if (p->bound)
        fprintf(out, "  Ready          %s\n", p->started && !p->succeeded && !p->failed && !p->terminating ? "True" : "False");
    /* Events at or before T, as describe lists them (oldest first). */
    int nev = 0;
    for (int k = 0; k < v.upto; k++)
        nev += h->events[k].pod == i;
    if (nev == 0) {
        fprintf(out, "Events:           <none>\n");
    } else {
        fprintf(out, "Events:\n");
        int wr = 6, wa = 4, wf = 4;
        char age[96];
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                fprintf(out, "  %-7s  %-*s  %-*s  %-*s  %s\n", "Type", wr, "Reason", wa, "Age", wf, "From", "Message");
                fprintf(out, "  %-7s  %-*s  %-*s  %-*s  %s\n", "----", wr, "------", wa, "----", wf, "----", "-------");
            }
            for (int k = 0; k < v.upto; k++) {
                const struct gs_hist_event *e = &h->events[k];
                if (e->pod != i)
                    continue;
                /* kubectl: "<age of last> (x<count> over <age of first>)" for an aggregated event;
                 * only the occurrences by T count. */
                char a1[32], a2[32];
                gs_get_human_duration(v.at - e->t_us, a2, sizeof a2);
                if (e->count > 1 && e->last_us <= v.at) {
                    gs_get_human_duration(v.at - e->last_us, a1, sizeof a1);
                    snprintf(age, sizeof age, "%s (x%d over %s)", a1, e->count, a2);
                } else {
                    snprintf(age, sizeof age, "%s", a2);
                }
                const char *r = e->reason ? e->reason : "";
                if (pass == 0) {
                    if ((int)strlen(r) > wr)
                        wr = (int)strlen(r);
                    if ((int)strlen(age) > wa)
                        wa = (int)strlen(age);
                    if ((int)strlen(ev_from(r)) > wf)
                        wf = (int)strlen(ev_from(r));
                } else {
                    if (e->message && e->message[0])
                        fprintf(out, "  %-7s  %-*s  %-*s  %-*s  %s\n", ev_type(r), wr, r, wa, age, wf, ev_from(r),
                                e->message);
                    else
                        fprintf(out, "  %-7s  %-*s  %-*s  %s\n", ev_type(r), wr, r, wa, age, ev_from(r));
                }
            }
        }
    }
    if (fflush(out) != 0 || ferror(out))
        rc = gs_report_error(errbuf, errlen, GS_EIO, "cannot write the description of '%s'", name);
    gs_get_view_free(&v);
    return rc;
}
