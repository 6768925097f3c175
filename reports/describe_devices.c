/* gpusim: the Devices section of `gpusim describe` (describe_devices.h): each GPU with its MIG
 * layout and who holds it at a time: GPU shares and whole GPUs (pod_event GpuAllocated), the
 * device plugin's devices (DeviceAllocated: whole GPUs, MIG devices, time-slicing / MPS
 * replicas) and DRA claims' devices (DeviceAllocated with claim=), all written by
 * sim/controllers/device_plugin_alloc.c and sim/cluster/dra.c at bind. A pod holds its devices from that event until
 * it finishes (pod.finished_us): nothing is read but the trace. */
#include "base/alloc.h"
#include "base/array.h"
#include "reports/describe_devices.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "models/devices/gpushare.h"

#define MAX_GPUS 64

/* A growing string. */
struct sbuf {
    char *s;
    size_t n;
    int cap;
    bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0 || b->oom)
        return;
    /* Lines are short; one beyond GS_ARRAY_MAX bytes counts as out of memory. */
    size_t want = b->n + (size_t)need + 1;
    if (want > (size_t)GS_ARRAY_MAX || GS_GROW(b->s, b->cap, (int)want)) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

/* One MIG device of a GPU that some pod holds (profile, placement start), or one replica of
 * the GPU (profile "", start = the replica). */
struct mig_dev {
    char profile[48];
    int start;
    struct sbuf owners;
};

struct gpu_view {
    char *layout;            /* the Mig row's value, NULL: MIG disabled */
    int used_milli;          /* shares, whole GPUs and DRA devices */
    int replicas, nreplicas; /* time-slicing / MPS: replicas per GPU, replicas held (in mig[]) */
    struct sbuf owners;      /* holders of the GPU itself (shares, whole GPUs, DRA) */
    struct mig_dev *mig;     /* MIG devices and replicas held, one line each */
    int nmig, migcap;
    char dra_seen[8][64];    /* DRA devices counted in used_milli (a shared claim counts once) */
    int ndra;
};

/* The value of " key=" in `m` up to the next space, into out; false when absent. */
static bool field(const char *m, const char *key, char *out, size_t n)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(m, pat);
    if (!p)
        return false;
    p += strlen(pat);
    size_t len = strcspn(p, " ");
    snprintf(out, n, "%.*s", (int)len, p);
    return true;
}

static int total_instances(const char *layout)
{
    int total = 0;
    for (const char *p = layout ? strstr(layout, " x") : NULL; p; p = strstr(p + 2, " x"))
        total += atoi(p + 2);
    return total;
}

static struct mig_dev *mig_dev(struct gpu_view *g, const char *profile, int start)
{
    for (int i = 0; i < g->nmig; i++)
        if (g->mig[i].start == start && strcmp(g->mig[i].profile, profile) == 0)
            return &g->mig[i];
    if (GS_GROW(g->mig, g->migcap, g->nmig + 1))
        return NULL;
    struct mig_dev *d = &g->mig[g->nmig++];
    memset(d, 0, sizeof *d);
    snprintf(d->profile, sizeof d->profile, "%s", profile);
    d->start = start;
    return d;
}

/* Replicas (profile "") first, then by start and profile. */
static int cmp_mig(const void *a, const void *b)
{
    const struct mig_dev *x = a, *y = b;
    bool rx = x->profile[0] == '\0', ry = y->profile[0] == '\0';
    if (rx != ry)
        return rx ? -1 : 1;
    return x->start != y->start ? x->start - y->start : strcmp(x->profile, y->profile);
}

/* One GpuAllocated or DeviceAllocated row of pod `name`. Returns 0 or GS_ENOMEM. */
static int add_row(struct gpu_view *gv, int ngpu, const char *name, const char *reason, const char *m)
{
    char v[128], w[128];
    if (strcmp(reason, "GpuAllocated") == 0) {
        /* "<node> gpu=<i>[,<j>...] milli=<m>" */
        if (!field(m, "gpu", v, sizeof v) || !field(m, "milli", w, sizeof w))
            return 0;
        int milli = atoi(w);
        for (char *c = v, *end; *c; c = *end == ',' ? end + 1 : end) {
            long g = strtol(c, &end, 10);
            if (end == c)
                break;
            if (g < 0 || g >= ngpu)
                continue;
            gv[g].used_milli += milli;
            sb_printf(&gv[g].owners, "%s%s %dm", gv[g].owners.n ? ", " : "", name, milli);
        }
        return 0;
    }
    if (!field(m, "gpu", v, sizeof v))
        return 0;
    int g = atoi(v);
    if (g < 0 || g >= ngpu)
        return 0;
    struct gpu_view *x = &gv[g];
    char claim[128], device[64];
    if (field(m, "claim", claim, sizeof claim) && field(m, "device", device, sizeof device)) {
        /* "<node> claim=<c> request=<r> device=<d> gpu=<i>": a device counts once however many
         * pods share its claim. */
        bool seen = false;
        for (int i = 0; i < x->ndra && !seen; i++)
            seen = strcmp(x->dra_seen[i], device) == 0;
        if (!seen && x->ndra < 8) {
            snprintf(x->dra_seen[x->ndra++], sizeof x->dra_seen[0], "%s", device);
            if (!strstr(device, "-mig-"))
                x->used_milli += GS_GPU_MILLI;
        }
        char whole[32];
        snprintf(whole, sizeof whole, "gpu-%d", g);
        if (strcmp(device, whole) == 0)
            sb_printf(&x->owners, "%s%s (claim %s)", x->owners.n ? ", " : "", name, claim);
        else
            sb_printf(&x->owners, "%s%s (claim %s device %s)", x->owners.n ? ", " : "", name, claim, device);
        return x->owners.oom ? GS_ENOMEM : 0;
    }
    /* "<node> <resource> gpu=<i>[ mig=<profile> start=<s>][ replica=<k>/<n>]" */
    int replica = -1, replicas = 0;
    if (field(m, "replica", w, sizeof w)) {
        replica = atoi(w);
        const char *slash = strchr(w, '/');
        replicas = slash ? atoi(slash + 1) : 0;
    }
    char prof[48];
    if (field(m, "mig", prof, sizeof prof) && field(m, "start", w, sizeof w)) {
        struct mig_dev *d = mig_dev(x, prof, atoi(w));
        if (!d)
            return GS_ENOMEM;
        if (replica >= 0)
            sb_printf(&d->owners, "%s%s (replica %d/%d)", d->owners.n ? ", " : "", name, replica, replicas);
        else
            sb_printf(&d->owners, "%s%s", d->owners.n ? ", " : "", name);
        return d->owners.oom ? GS_ENOMEM : 0;
    }
    if (replica >= 0) {
        /* A replica: one line each, under the GPU (as MIG devices, with profile ""). */
        x->replicas = replicas;
        struct mig_dev *d = mig_dev(x, "", replica);
        if (!d)
            return GS_ENOMEM;
        x->nreplicas++;
        sb_printf(&d->owners, "%s%s", d->owners.n ? ", " : "", name);
        return d->owners.oom ? GS_ENOMEM : 0;
    } else {
        x->used_milli += GS_GPU_MILLI;
        sb_printf(&x->owners, "%s%s %dm", x->owners.n ? ", " : "", name, GS_GPU_MILLI);
    }
    return x->owners.oom ? GS_ENOMEM : 0;
}

static void print_gpu(FILE *out, int g, struct gpu_view *x)
{
    const char *layout = x->layout ? x->layout : "MIG disabled";
    bool mig_on = x->layout && strcmp(x->layout, "MIG disabled") != 0;
    char status[64];
    int nmig = x->nmig - x->nreplicas; /* MIG devices held (replicas of whole GPUs aside) */
    if (nmig > 0 || (mig_on && x->owners.n == 0 && x->nreplicas == 0)) {
        int total = total_instances(x->layout);
        if (total > 0)
            snprintf(status, sizeof status, "MIG devices %d/%d in use", nmig, total);
        else
            snprintf(status, sizeof status, "MIG devices %d in use", nmig);
    } else if (x->nreplicas > 0) {
        if (x->replicas > 0)
            snprintf(status, sizeof status, "replicas %d/%d in use", x->nreplicas, x->replicas);
        else
            snprintf(status, sizeof status, "replicas %d in use", x->nreplicas);
    } else {
        int free = GS_GPU_MILLI - x->used_milli;
        snprintf(status, sizeof status, "free %4dm", free < 0 ? 0 : free);
    }
    if (x->owners.n)
        fprintf(out, "  GPU %-3d %-28s %s  %s\n", g, layout, status, x->owners.s);
    else
        fprintf(out, "  GPU %-3d %-28s %s\n", g, layout, status);
    if (x->nmig > 1)
        qsort(x->mig, (size_t)x->nmig, sizeof x->mig[0], cmp_mig);
    for (int i = 0; i < x->nmig; i++) {
        char what[80];
        if (x->mig[i].profile[0])
            snprintf(what, sizeof what, "MIG %s start %d", x->mig[i].profile, x->mig[i].start);
        else
            snprintf(what, sizeof what, "replica %d", x->mig[i].start);
        fprintf(out, "          %-26s %s\n", what, x->mig[i].owners.s ? x->mig[i].owners.s : "");
    }
}

int gs_describe_devices(sqlite3 *db, int64_t id, int64_t at_us, FILE *out)
{
    sqlite3_stmt *st = NULL;
    int ngpu = 0;
    char product[128] = "";
    if (sqlite3_prepare_v2(db, "SELECT gpu_count, gpu_product FROM node WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        ngpu = sqlite3_column_int(st, 0);
        const unsigned char *p = sqlite3_column_text(st, 1);
        if (p)
            snprintf(product, sizeof product, "%s", (const char *)p);
    }
    sqlite3_finalize(st);
    if (ngpu <= 0)
        return 0;
    if (ngpu > MAX_GPUS)
        ngpu = MAX_GPUS;
    struct gpu_view *gv = gs_calloc((size_t)ngpu, sizeof *gv);
    if (!gv)
        return GS_ENOMEM;
    int rc = 0;
    /* MIG layouts: the last Mig row per GPU up to the time. */
    if (sqlite3_prepare_v2(db,
                           "SELECT subject, value FROM node_event WHERE node_id = ?1 AND kind = 'Mig' AND t_us <= ?2"
                           " ORDER BY t_us, rowid",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = GS_ESQL;
        goto done;
    }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, at_us);
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
        int g = s && strncmp(s, "GPU ", 4) == 0 ? atoi(s + 4) : -1;
        if (g < 0 || g >= ngpu || !v)
            continue;
        gs_free(gv[g].layout);
        gv[g].layout = gs_strdup(v);
        if (!gv[g].layout)
            rc = GS_ENOMEM;
    }
    sqlite3_finalize(st);
    if (rc)
        goto done;
    /* Pods holding devices at the time: allocated by then, not finished. */
    if (sqlite3_prepare_v2(db,
                           "SELECT p.name, e.reason, e.message FROM pod_event e JOIN pod p ON p.id = e.pod_id"
                           " WHERE e.reason IN ('GpuAllocated', 'DeviceAllocated') AND e.t_us <= ?2 AND p.node_id = ?1"
                           " AND (p.finished_us IS NULL OR p.finished_us < 0 OR p.finished_us > ?2)"
                           " ORDER BY e.t_us, e.rowid",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = GS_ESQL;
        goto done;
    }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, at_us);
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *reason = (const char *)sqlite3_column_text(st, 1);
        const char *m = (const char *)sqlite3_column_text(st, 2);
        if (name && reason && m)
            rc = add_row(gv, ngpu, name, reason, m);
    }
    sqlite3_finalize(st);
    if (rc)
        goto done;
    fprintf(out, "Devices:              (%d GPUs%s%s)\n", ngpu, product[0] ? " " : "", product);
    for (int g = 0; g < ngpu; g++)
        print_gpu(out, g, &gv[g]);
done:
    for (int g = 0; g < ngpu; g++) {
        gs_free(gv[g].layout);
        gs_free(gv[g].owners.s);
        for (int i = 0; i < gv[g].nmig; i++)
            gs_free(gv[g].mig[i].owners.s);
        gs_free(gv[g].mig);
    }
    gs_free(gv);
    return rc;
}
