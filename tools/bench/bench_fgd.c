/* FGD experiment throughput on the openb `default` trace (1213 nodes, 6212 GPUs, ~10.8k pods
 * after inflation to 1.3 x capacity):
 *
 * - one run of each policy, seed 42 (wall and CPU seconds, pods per second);
 * - the full sweep, 6 policies x 10 seeds (42-51), in 2 processes, wall seconds.
 *
 * Targets (issue 6): one FGD run under 2 s; the sweep under 2 minutes on 2 cores.
 * Skipped (exit 0, with a message) when the data directory is absent.
 *
 * usage: bench_fgd [DATA_DIR]   (default: $GPUSIM_OPENB_DIR or ../shared/data/openb)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "models/fgd/fgd.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : gs_openb_default_dir();
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("bench_fgd: skipped: openb data not found at %s\n", dir);
        return 0;
    }
    struct gs_fgd_experiment ex;
    struct gs_error err = {0};
    double t0 = now_s();
    if (gs_fgd_experiment_load(&ex, dir, "default", 95, &err)) {
        fprintf(stderr, "bench_fgd: %s:%d: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    printf("load: %.3f s (%d nodes, %d pods, %d typical keys)\n", now_s() - t0, ex.cluster.n, ex.workload.n,
           ex.typical.n);
    struct gs_fgd_run_result *r = malloc(sizeof *r);
    if (!r)
        return 1;
    for (int p = 0; p < GS_FGD_NPOLICIES; p++) {
        double w0 = now_s(), c0 = cpu_s();
        if (gs_fgd_experiment_run(&ex, (enum gs_fgd_policy)p, 42, 1.3, r)) {
            fprintf(stderr, "bench_fgd: run failed\n");
            return 1;
        }
        double w = now_s() - w0, c = cpu_s() - c0;
        printf("%-14s seed 42: %d pods (%d placed) in %.3f s wall, %.3f s cpu: %.0f pods/s; "
               "unallocated %.2f%% at 100%%, %.2f%% at 130%%\n",
               gs_fgd_policy_name(p), r->pods, r->placed, w, c, r->pods / w, 100.0 - r->curve.alloc_pct[100],
               100.0 - r->curve.alloc_pct[130]);
    }
    /* The sweep: 60 runs over 2 processes. */
    fflush(stdout);
    double w0 = now_s();
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] < 0) {
            perror("bench_fgd: fork");
            return 1;
        }
        if (kids[k] == 0) {
            int bad = 0;
            for (int i = k; i < GS_FGD_NPOLICIES * 10; i += 2)
                bad |= gs_fgd_experiment_run(&ex, (enum gs_fgd_policy)(i / 10), 42 + (uint64_t)(i % 10), 1.3, r) != 0;
            _exit(bad);
        }
    }
    int status = 0;
    for (int k = 0; k < 2; k++) {
        int ws;
        if (waitpid(kids[k], &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            status = 1;
    }
    printf("sweep: 6 policies x 10 seeds = 60 runs in 2 processes: %.2f s wall\n", now_s() - w0);
    free(r);
    gs_fgd_experiment_free(&ex);
    return status;
}
