/* gpusim: `gpusim get pods|nodes TRACE --at T [-o wide]` and `gpusim describe TRACE pod/NAME`:
 * pods and nodes as kubectl prints them, at a simulated time, read from the trace through
 * reports/history.h (reports/get.c, reports/describe_pod.c).
 *
 * Columns follow kubectl's printers (kubernetes pkg/printers/internalversion/printers.go,
 * podColumnDefinitions / printPod and nodeColumnDefinitions / printNode; AGE as
 * apimachinery's duration.HumanDuration) where gpusim has the data:
 *   pods:  NAME READY STATUS RESTARTS AGE; -o wide adds IP NODE NOMINATED NODE READINESS GATES
 *          (IP always <none>: gpusim models no pod network; READINESS GATES <none>), then
 *          gpusim's GPU columns GPUS (nvidia.com/gpu requested) and GPU-IDS (the GPU indexes it
 *          holds on its node, with the milli-GPU of a share: `1:500m`), only with -o wide so
 *          the default shape stays kubectl's.
 *   nodes: NAME STATUS ROLES AGE VERSION; -o wide adds INTERNAL-IP EXTERNAL-IP OS-IMAGE
 *          KERNEL-VERSION CONTAINER-RUNTIME (addresses, image and runtime <none>/<unknown>: not
 *          modelled), then GPU (the product) and GPUS (allocated/allocatable, the samples' rule).
 * A pod is listed from its creation until its object goes (Deleted, Evicted; a Rejected pod
 * never existed); a completed pod stays, as kubectl lists it. Its STATUS is kubectl's: Pending,
 * ContainerCreating (bound, not started), Running, Terminating (graceful deletion or
 * preemption under way), Completed (Succeeded), the status reason of a failed pod
 * (UnexpectedAdmissionError) or Error. READY is 1/1 while Running and 0/1 otherwise: gpusim
 * runs a pod's containers as one. RESTARTS is 0: a restarted pod is a new pod in gpusim.
 * NOMINATED NODE is the node named by the latest Preempted event whose preemptor is the pod,
 * until it is bound.
 * A node is listed from Joined until Deleted; STATUS Ready, NotReady (rebooting), with
 * ",SchedulingDisabled" when cordoned; ROLES from node-role.kubernetes.io/<role> labels;
 * VERSION v<kubernetesVersion> (gpusim models a minor release, so no patch number).
 *
 * Errors: 0; GS_EINVAL (not a trace, a summary-level trace without events, no such pod: errbuf
 * suggests the nearest names), GS_EIO, GS_ENOTSUP, GS_ESQL, GS_ENOMEM; errbuf (size errlen;
 * may be NULL) says why. Times µs; < 0: the end of the run.
 */
#ifndef GPUSIM_REPORTS_GET_H
#define GPUSIM_REPORTS_GET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum gs_get_kind { GS_GET_PODS, GS_GET_NODES };

int gs_report_get(const char *trace, enum gs_get_kind kind, int64_t at_us, bool wide, FILE *out, char *errbuf,
                  int errlen);

/* `kubectl describe pod` of pod `name` (the newest created by T of that name): name, priority,
 * node, start time, status and reason, its workload and PodGroup, requests, the GPUs it holds,
 * conditions, the message of its last FailedScheduling, and its events up to T (Type, Reason,
 * Age, From, Message, as kubectl's describe prints them). */
int gs_report_describe_pod(const char *trace, const char *name, int64_t at_us, FILE *out, char *errbuf, int errlen);

/* kubectl's AGE: apimachinery duration.HumanDuration of `us` (µs) into buf. */
void gs_get_human_duration(int64_t us, char *buf, size_t n);

#endif
