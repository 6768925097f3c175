/* The DynamicResources plugin in the scheduler (models/sched/plugins/dynamic_resources.c) on
 * hand-built worlds: PreFilter reasons, Filter outcomes, the FailedScheduling text with the
 * 1.34 PostFilter part, shared claims, the device-plugin/DRA ledger and CEL runtime errors.
 * Expected texts from kubernetes dynamicresources.go (1.34) and the c22 case. */
#include "models/dra/dra_state.h"
#include "sched_fixture.h"

static const struct gs_gpu_product T4 = {
    .product = "Tesla-T4", .nvml_name = "Tesla T4", .memory_mib = 15360, .compute_major = 7,
    .compute_minor = 5, .family = "turing", .architecture = "Turing", .brand = "Tesla"};
static const struct gs_gpu_product H100 = {
    .product = "NVIDIA-H100-80GB-HBM3", .nvml_name = "NVIDIA H100 80GB HBM3", .memory_mib = 81559,
    .compute_major = 9, .compute_minor = 0, .family = "hopper", .architecture = "Hopper",
    .brand = "Nvidia", .mig_capable = true};

struct dfx {
    struct fx *f;
    struct gs_dra_spec spec;
    struct gs_device_class classes[2];
    struct gs_resource_claim_template tmpl[4];
    struct gs_dra_claim_obj claims[2];
    struct gs_dra_state st;
};

/* A one-request claim spec of class gpu.nvidia.com with an optional selector. */
static void one_request(struct dfx *d, struct gs_dra_claim_spec *s, const char *selector)
{
    struct gs_arena *a = &d->f->w.arena;
    struct gs_dra_request *r = gs_arena_alloc(a, sizeof *r);
    cr_assert(r);
    r->name = "gpu";
    r->device_class_name = GS_DRA_CLASS_GPU;
    r->count = 1;
    if (selector) {
        r->selectors = gs_arena_alloc(a, sizeof *r->selectors);
        cr_assert(r->selectors);
        r->selectors[0].expression = selector;
        r->nselectors = 1;
    }
    s->requests = r;
    s->nrequests = 1;
    struct gs_error e = {0};
    cr_assert_eq(gs_dra_claim_spec_compile(s, &e), 0, "%s", e.msg);
}

static struct dfx *dfx_new(void)
{
    struct dfx *d = calloc(1, sizeof *d);
    cr_assert(d);
    d->f = fx_new();
    struct gs_error e = {0};
    cr_assert_eq(gs_device_class_nvidia(d->classes, &d->f->w.arena, false, &e), 0, "%s", e.msg);
    d->spec.classes = d->classes;
    d->spec.nclasses = 2;
    const char *sel[] = {"device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('24Gi')) >= 0", NULL,
                         "device.attributes['gpu.nvidia.com'].foo == 'x'"};
    const char *names[] = {"gpu-24gi", "one-gpu", "broken"};
    for (int i = 0; i < 3; i++) {
        d->tmpl[i].name = names[i];
        d->tmpl[i].namespace_ = "default";
        one_request(d, &d->tmpl[i].spec, sel[i]);
    }
    d->spec.templates = d->tmpl;
    d->spec.ntemplates = 3;
    d->claims[0].name = "shared";
    d->claims[0].namespace_ = "default";
    one_request(d, &d->claims[0].spec, NULL);
    d->spec.claims = d->claims;
    d->spec.nclaims = 1;
    d->spec.driver = true;
    cr_assert_eq(gs_dra_state_init(&d->st, &d->spec), 0);
    return d;
}

static void dfx_free(struct dfx *d)
{
    gs_dra_state_free(&d->st);
    gs_dra_spec_free(&d->spec);
    fx_free(d->f);
    free(d);
}

/* The kubelet plugin published node n's slice. */
static void publish(struct dfx *d, int n, const struct gs_gpu_product *prod, int ngpus)
{
    struct gs_dra_node_state *ns = gs_dra_state_node(&d->st, n);
    cr_assert(ns);
    struct gs_dra_slice_opts opts = {0};
    struct gs_error e = {0};
    cr_assert_eq(gs_dra_slice_build(&d->f->w.arena, d->f->w.nodes[n].name, prod, ngpus, NULL, &opts, &ns->slice, &e),
                 0, "%s", e.msg);
    ns->in_use = calloc((size_t)ns->slice.ndevices, sizeof *ns->in_use);
    cr_assert(ns->in_use);
    cr_assert_eq(gs_gpu_ledger_init(&ns->ledger, ngpus), 0);
    ns->published = true;
}

/* A pod whose only spec.resourceClaims entry "gpu" names a template or a claim. */
static int claim_pod(struct dfx *d, const char *name, const char *tmpl, const char *claim)
{
    struct gs_arena *a = &d->f->w.arena;
    struct gs_pod_claim_ref *r = gs_arena_alloc(a, sizeof *r);
    struct gs_pod_claims *pc = gs_arena_alloc(a, sizeof *pc);
    cr_assert(r && pc);
    r->name = "gpu";
    r->template_name = tmpl;
    r->claim_name = claim;
    pc->refs = r;
    pc->n = 1;
    struct gs_pod_template *t = fx_tmpl(d->f, 100, 0, 0, 0);
    t->claims = pc;
    return fx_pod(d->f, name, t);
}

static struct gs_node_status dfilter(struct dfx *d, int p, int n)
{
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&d->f->w, &c, NULL);
    cr_assert(s);
    gs_sched_set_dra(s, &d->st);
    struct gs_node_status st;
    gs_sched_filter_node(s, p, n, &st);
    static char keep[GS_MAX_REASONS][512];
    for (int i = 0; i < st.nreasons; i++) {
        snprintf(keep[i], sizeof keep[i], "%s", st.reasons[i]);
        st.reasons[i] = keep[i];
    }
    gs_sched_free(s);
    return st;
}

static struct gs_cycle_result dcycle(struct dfx *d, int p)
{
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&d->f->w, &c, NULL);
    cr_assert(s);
    gs_sched_set_dra(s, &d->st);
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    snprintf(d->f->msg, sizeof d->f->msg, "%s", r.message ? r.message : "");
    r.message = r.message ? d->f->msg : NULL;
    r.victims = r.lost = NULL;
    gs_sched_free(s);
    return r;
}

Test(sched_dra, memory_selector_cannot_allocate_on_t4)
{
    struct dfx *d = dfx_new();
    int t0 = fx_node(d->f, "t4", 0, 8000, 32 * GI, 0), t1 = fx_node(d->f, "t4", 1, 8000, 32 * GI, 0);
    publish(d, t0, &T4, 1);
    publish(d, t1, &T4, 1);
    int p = claim_pod(d, "big", "gpu-24gi", NULL);
    cr_assert_eq(gs_dra_state_create_pod_claims(&d->st, &d->f->w.arena, &d->f->w, p), 1);
    cr_assert_geq(gs_dra_state_find_claim(&d->st, "default", "big-gpu"), 0);

    struct gs_node_status st = dfilter(d, p, t0);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
    cr_assert_eq(st.plugin, GS_PL_DYNAMIC_RESOURCES);
    cr_assert_eq(st.nreasons, 1);
    cr_assert_str_eq(st.reasons[0], "cannot allocate all claims");
    struct gs_cycle_result r = dcycle(d, p);
    cr_assert_eq(r.node, -1);
    cr_assert_str_eq(r.message, "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
                                "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    cr_assert(r.unsched_plugins & (1u << GS_PL_DYNAMIC_RESOURCES));

    /* An H100 joins: 80 GiB devices match. */
    int h = fx_node(d->f, "h100", 0, 96000, 512 * GI, 0);
    publish(d, h, &H100, 8);
    cr_assert_eq(dfilter(d, p, h).code, GS_ST_SUCCESS);
    r = dcycle(d, p);
    cr_assert_eq(r.node, h, "%s", d->f->msg);
    /* Reserve + PreBind: gpu-0 of the H100, reserved for the pod, GPU 0 held by DRA. */
    gs_world_assign(&d->f->w, p, h);
    cr_assert_eq(gs_dra_state_bind(&d->st, &d->f->w, p, h), 0);
    const struct gs_resource_claim *c = &d->st.claims[gs_dra_state_find_claim(&d->st, "default", "big-gpu")].c;
    cr_assert(c->allocated);
    cr_assert_str_eq(c->allocation.results[0].device, "gpu-0");
    cr_assert_str_eq(c->allocation.node_name, "h100-0");
    cr_assert_eq(c->nreserved, 1);
    cr_assert_eq(gs_gpu_ledger_dra_held(&d->st.nodes[h].ledger), 1);
    /* The pod ends: the generated claim is deallocated and deleted. */
    cr_assert_eq(gs_dra_state_release(&d->st, &d->f->w, p), 2);
    cr_assert_eq(gs_dra_state_find_claim(&d->st, "default", "big-gpu"), -1);
    cr_assert_eq(gs_gpu_ledger_dra_held(&d->st.nodes[h].ledger), 0);
    cr_assert_eq(d->st.nodes[h].in_use[0], false);
    dfx_free(d);
}

Test(sched_dra, c22_message_with_selector_and_dra_reasons)
{
    /* c22: a CPU-only system node (no nodeSelector match) and a T4 node. */
    struct dfx *d = dfx_new();
    int sys = fx_node(d->f, "system", 0, 2000, 8 * GI, 0);
    int gpu = fx_node(d->f, "gpudra", 0, 4000, 28 * GI, 0);
    fx_label(d->f, gpu, "pool", "gpudra");
    (void)sys;
    publish(d, gpu, &T4, 1);
    int p = claim_pod(d, "pod-mem-impossible", "gpu-24gi", NULL);
    struct gs_pod_template *t = (struct gs_pod_template *)d->f->w.pods[p].tmpl;
    cr_assert_eq(gs_labels_set(&t->node_selector, &d->f->w.arena, "pool", "gpudra"), 0);
    gs_dra_state_create_pod_claims(&d->st, &d->f->w.arena, &d->f->w, p);
    dcycle(d, p);
    cr_assert_str_eq(d->f->msg,
                     "0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node "
                     "affinity/selector. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is "
                     "not helpful for scheduling.");
    dfx_free(d);
}

Test(sched_dra, prefilter_reasons)
{
    struct dfx *d = dfx_new();
    int n0 = fx_node(d->f, "l4", 0, 8000, 32 * GI, 0), n1 = fx_node(d->f, "l4", 1, 8000, 32 * GI, 0);
    publish(d, n0, &T4, 1);
    publish(d, n1, &T4, 1);
    /* A template claim the controller has not created yet. */
    int p = claim_pod(d, "p", "one-gpu", NULL);
    dcycle(d, p);
    cr_assert_str_eq(d->f->msg, "0/2 nodes are available: pod \"default/p\": ResourceClaim not created yet. no new "
                                "claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not "
                                "helpful for scheduling.");
    struct gs_node_status st = dfilter(d, p, n0);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
    cr_assert_str_eq(st.reasons[0], "pod \"default/p\": ResourceClaim not created yet");
    /* A named claim that does not exist. */
    int q = claim_pod(d, "q", NULL, "missing");
    dcycle(d, q);
    cr_assert_str_eq(d->f->msg, "0/2 nodes are available: could not find ResourceClaim \"default/missing\". no new "
                                "claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not "
                                "helpful for scheduling.");
    /* A claim being deleted. */
    int ci = gs_dra_state_find_claim(&d->st, "default", "shared");
    d->st.claims[ci].c.deleting = true;
    int s = claim_pod(d, "s", NULL, "shared");
    cr_assert_str_eq(dfilter(d, s, n0).reasons[0], "resourceclaim \"shared\" is being deleted");
    /* A request whose class is unknown. */
    d->st.claims[ci].c.deleting = false;
    d->spec.nclasses = 1; /* only gpu.nvidia.com */
    struct gs_dra_claim_spec mig = d->claims[0].spec;
    struct gs_dra_request rq = mig.requests[0];
    rq.device_class_name = "mig.nvidia.com";
    mig.requests = &rq;
    d->st.claims[ci].c.spec = &mig;
    cr_assert_str_eq(dfilter(d, s, n0).reasons[0], "request gpu: device class mig.nvidia.com does not exist");
    d->st.claims[ci].c.spec = &d->claims[0].spec;
    d->spec.nclasses = 2;
    /* A pod without claims keeps the plain 1.34 tail. */
    int plain = fx_pod(d->f, "plain", fx_tmpl(d->f, 100, 0, 2, 0));
    dcycle(d, plain);
    cr_assert_str_eq(d->f->msg, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. no new claims to deallocate, "
                                "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    dfx_free(d);
}

Test(sched_dra, shared_claim_follows_its_allocation)
{
    struct dfx *d = dfx_new();
    int n0 = fx_node(d->f, "l4", 0, 8000, 32 * GI, 0), n1 = fx_node(d->f, "l4", 1, 8000, 32 * GI, 0);
    publish(d, n0, &T4, 1);
    publish(d, n1, &T4, 1);
    int a = claim_pod(d, "a", NULL, "shared"), b = claim_pod(d, "b", NULL, "shared");
    struct gs_cycle_result r = dcycle(d, a);
    cr_assert_eq(r.node, n0, "%s", d->f->msg);
    gs_world_assign(&d->f->w, a, n0);
    cr_assert_eq(gs_dra_state_bind(&d->st, &d->f->w, a, n0), 0);
    /* b uses the allocated claim: only where it is allocated. */
    cr_assert_eq(dfilter(d, b, n0).code, GS_ST_SUCCESS);
    struct gs_node_status st = dfilter(d, b, n1);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
    cr_assert_str_eq(st.reasons[0], "resourceclaim not available on the node");
    gs_world_assign(&d->f->w, b, n0);
    cr_assert_eq(gs_dra_state_bind(&d->st, &d->f->w, b, n0), 0);
    const struct gs_resource_claim *c = &d->st.claims[0].c;
    cr_assert_eq(c->nreserved, 2);
    cr_assert_eq(gs_gpu_ledger_dra_held(&d->st.nodes[n0].ledger), 1, "one GPU for both pods");
    /* A pod with a claim of its own finds gpu-0 of l4-0 taken and takes l4-1's. */
    int own = claim_pod(d, "own", "one-gpu", NULL);
    gs_dra_state_create_pod_claims(&d->st, &d->f->w.arena, &d->f->w, own);
    cr_assert_str_eq(dfilter(d, own, n0).reasons[0], "cannot allocate all claims");
    cr_assert_eq(dfilter(d, own, n1).code, GS_ST_SUCCESS);
    /* The first sharer ends: still allocated; the second: deallocated. */
    cr_assert_eq(gs_dra_state_release(&d->st, &d->f->w, a), 0);
    cr_assert(c->allocated);
    cr_assert_eq(gs_dra_state_release(&d->st, &d->f->w, b), 1);
    cr_assert(!c->allocated);
    cr_assert_eq(dfilter(d, own, n0).code, GS_ST_SUCCESS);
    dfx_free(d);
}

Test(sched_dra, device_plugin_gpus_are_not_given_to_dra)
{
    struct dfx *d = dfx_new();
    int h = fx_node(d->f, "h100", 0, 96000, 512 * GI, 8);
    publish(d, h, &H100, 8);
    int idx[8];
    cr_assert_eq(gs_gpu_ledger_dp_take(&d->st.nodes[h].ledger, 8, idx), 0);
    int p = claim_pod(d, "p", "one-gpu", NULL);
    gs_dra_state_create_pod_claims(&d->st, &d->f->w.arena, &d->f->w, p);
    cr_assert_str_eq(dfilter(d, p, h).reasons[0], "cannot allocate all claims");
    cr_assert_eq(gs_gpu_ledger_dp_release(&d->st.nodes[h].ledger, idx + 7, 1), 0);
    cr_assert_eq(dfilter(d, p, h).code, GS_ST_SUCCESS);
    gs_world_assign(&d->f->w, p, h);
    cr_assert_eq(gs_dra_state_bind(&d->st, &d->f->w, p, h), 0);
    const struct gs_resource_claim *c = &d->st.claims[gs_dra_state_find_claim(&d->st, "default", "p-gpu")].c;
    cr_assert_str_eq(c->allocation.results[0].device, "gpu-7", "the one GPU the device plugin does not hold");
    cr_assert_eq(gs_gpu_ledger_dp_free(&d->st.nodes[h].ledger), 0);
    dfx_free(d);
}

Test(sched_dra, cel_runtime_error_aborts_the_attempt)
{
    struct dfx *d = dfx_new();
    int n = fx_node(d->f, "t4", 0, 8000, 32 * GI, 0);
    publish(d, n, &T4, 1);
    int p = claim_pod(d, "p", "broken", NULL);
    gs_dra_state_create_pod_claims(&d->st, &d->f->w.arena, &d->f->w, p);
    struct gs_cycle_result r = dcycle(d, p);
    cr_assert_eq(r.node, -1);
    cr_assert_str_eq(d->f->msg, "running \"DynamicResources\" filter plugin: claim default/p-gpu: selector #0: CEL "
                                "runtime error: no such key: foo");
    struct gs_node_status st = dfilter(d, p, n);
    cr_assert_eq(st.code, GS_ST_ERROR);
    dfx_free(d);
}
