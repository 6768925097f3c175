/* gpusim experiment fgd: reproduce the FGD paper's (USENIX ATC '23) runs on the openb trace. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_statistics_double.h>

#include "base/alloc.h"
#include "models/fgd/fgd.h"
#include "models/openb.h"
#include "cli/cli.h"

#define MAX_SEEDS 1000
#define MAX_WORKLOADS 32

static const char usage[] =
    "usage: gpusim experiment fgd [options]\n"
    "\n"
    "Replay an openb pod list (Alibaba GPU trace v2023) on its 1213-node, 6212-GPU cluster under\n"
    "the six policies of the FGD paper (USENIX ATC '23) with the authors' protocol: the pod list\n"
    "sorted by name and shuffled with the seed, copies drawn with replacement until the GPU\n"
    "request reaches TUNE x capacity, one decision per pod, no departures, no retry. Prints the\n"
    "unallocated GPU % at 100% and 130% arrived workload, mean (sd) over the seeds.\n"
    "\n"
    "options:\n"
    "  --workload NAME[,NAME]  pod list(s) openb_pod_list_NAME.csv: default, cpu050, gpushare40,\n"
    "                          gpuspec10, multigpu20, ... (default: default)\n"
    "  --policies LIST         all, or a comma list of Random, DotProd, GpuClustering, GpuPacking,\n"
    "                          BestFit, FGD (default: all)\n"
    "  --seeds A-B|A,B,...     seeds (default: 42-51)\n"
    "  --tune R                inflate the GPU request to R x capacity, 0 < R <= 3 (default: 1.3)\n"
    "  --threshold PCT         typical-pod popularity threshold (default: 95)\n"
    "  --data DIR              the openb data (default: $GPUSIM_OPENB_DIR, else\n"
    "                          ../shared/data/openb next to the source tree)\n"
    "  --csv FILE              write every run's curve against arrived workload: columns\n"
    "                          workload,policy,seed,tune,arrived_pct,alloc_pct,unalloc_pct,\n"
    "                          frag_pct,frag_ratio_pct\n"
    "  --jobs N                runs in parallel processes (default: the number of CPUs)\n"
    "  --ties rank|random      equal top scores go to the first node in a seeded random node\n"
    "                          order, as the authors' kube-scheduler fork does (rank, default),\n"
    "                          or to a uniform choice as stock kube-scheduler does (random)\n"
    "\n"
    "exit status: 0 done, 2 usage error or unreadable data, 4 internal error.\n";

/* The authors' published means (and sd) for `default`, ../shared/reference/fgd.md §6. */
static const double authors_mean[2][GS_FGD_NPOLICIES] = {{13.70, 9.38, 8.35, 8.22, 7.14, 4.77},
                                                         {12.53, 9.15, 8.12, 8.00, 6.92, 4.61}};
static const double authors_sd[2][GS_FGD_NPOLICIES] = {{0.33, 0.19, 0.61, 0.53, 0.14, 0.11},
                                                       {0.32, 0.20, 0.62, 0.54, 0.13, 0.08}};

static int parse_policies(const char *s, int *pol, int *n)
{
    *n = 0;
    if (strcmp(s, "all") == 0) {
        for (int i = 0; i < GS_FGD_NPOLICIES; i++)
            pol[(*n)++] = i;
        return 0;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int p = gs_fgd_policy_parse(tok);
        if (p < 0 || *n >= GS_FGD_NPOLICIES)
            return -1;
        for (int k = 0; k < *n; k++)
            if (pol[k] == p)
                return -1;
        pol[(*n)++] = p;
    }
    return *n > 0 ? 0 : -1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct job {
    int policy;
    uint64_t seed;
};

struct msg {
    int index;
    int rc;
    double seconds;
    struct gs_fgd_run_result r;
};

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

static void run_one(const struct gs_fgd_experiment *ex, const struct job *j, double tune, struct msg *m)
{
    double t0 = now_s();
    m->rc = gs_fgd_experiment_run(ex, (enum gs_fgd_policy)j->policy, j->seed, tune, &m->r);
    m->seconds = now_s() - t0;
}

/* Run all jobs, `jobs` processes at a time; results[i] for jobs[i]. Returns 0 or -1. */
static int run_jobs(const struct gs_fgd_experiment *ex, const struct job *jl, int nj, double tune, int jobs,
                    struct msg *results)
{
    if (jobs <= 1 || nj <= 1) {
        for (int i = 0; i < nj; i++) {
            results[i].index = i;
            run_one(ex, &jl[i], tune, &results[i]);
        }
        return 0;
    }
    if (jobs > nj)
        jobs = nj;
    int fds[64];
    pid_t pids[64];
    if (jobs > 64)
        jobs = 64;
    fflush(stdout);
    fflush(stderr);
    for (int w = 0; w < jobs; w++) {
        int pf[2];
        if (pipe(pf) < 0)
            return -1;
        pid_t pid = fork();
        if (pid < 0)
            return -1;
        if (pid == 0) {
            close(pf[0]);
            struct msg *m = gs_malloc(sizeof *m);
            int bad = !m;
            for (int i = w; i < nj && !bad; i += jobs) {
                memset(m, 0, sizeof *m);
                m->index = i;
                run_one(ex, &jl[i], tune, m);
                bad = write_all(pf[1], m, sizeof *m) != 0;
            }
            gs_free(m);
            close(pf[1]);
            _exit(bad ? 1 : 0);
        }
        close(pf[1]);
        fds[w] = pf[0];
        pids[w] = pid;
    }
    int status = 0;
    for (int w = 0; w < jobs; w++) {
        for (int i = w; i < nj; i += jobs) {
            struct msg *m = &results[i];
            if (read_all(fds[w], m, sizeof *m) != 0 || m->index != i) {
                status = -1;
                break;
            }
        }
        close(fds[w]);
    }
    for (int w = 0; w < jobs; w++) {
        int ws;
        if (waitpid(pids[w], &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            status = -1;
    }
    return status;
}

static int cmd_fgd(int argc, char **argv)
{
    const char *workloads = "default", *policies = "all", *seeds_s = "42-51", *data = NULL, *csv = NULL;
    double tune = 1.3, threshold = 95.0;
    enum gs_fgd_tiebreak ties = GS_FGD_TIE_RANK;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1)
        jobs = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            return GS_EXIT_OK;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gpusim experiment fgd: %s: missing value or unknown option\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        }
        const char *v = argv[++i];
        char *end;
        if (strcmp(a, "--workload") == 0) {
            workloads = v;
        } else if (strcmp(a, "--policies") == 0) {
            policies = v;
        } else if (strcmp(a, "--seeds") == 0) {
            seeds_s = v;
        } else if (strcmp(a, "--data") == 0) {
            data = v;
        } else if (strcmp(a, "--csv") == 0) {
            csv = v;
        } else if (strcmp(a, "--tune") == 0) {
            tune = strtod(v, &end);
            if (*end || !(tune > 0 && tune <= 3.0)) {
                fprintf(stderr, "gpusim experiment fgd: --tune %s: expected a number in (0, 3]\n", v);
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--threshold") == 0) {
            threshold = strtod(v, &end);
            if (*end || !(threshold > 0 && threshold <= 100)) {
                fprintf(stderr, "gpusim experiment fgd: --threshold %s: expected a percentage in (0, 100]\n", v);
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--ties") == 0) {
            if (strcmp(v, "rank") == 0) {
                ties = GS_FGD_TIE_RANK;
            } else if (strcmp(v, "random") == 0) {
                ties = GS_FGD_TIE_RANDOM;
            } else {
                fprintf(stderr, "gpusim experiment fgd: --ties %s: expected rank or random\n", v);
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--jobs") == 0) {
            jobs = strtol(v, &end, 10);
            if (*end || jobs < 1 || jobs > 64) {
                fprintf(stderr, "gpusim experiment fgd: --jobs %s: expected 1 to 64\n", v);
                return GS_EXIT_USAGE;
            }
        } else {
            fprintf(stderr, "gpusim experiment fgd: unknown option '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        }
    }
    static uint64_t seeds[MAX_SEEDS];
    int nseeds, pol[GS_FGD_NPOLICIES], npol;
    if (gs_cli_parse_seeds(seeds_s, seeds, MAX_SEEDS, &nseeds)) {
        fprintf(stderr, "gpusim experiment fgd: --seeds %s: expected A-B or A,B,... of distinct non-negative integers "
                        "(at most %d)\n",
                seeds_s, MAX_SEEDS);
        return GS_EXIT_USAGE;
    }
    if (parse_policies(policies, pol, &npol)) {
        fprintf(stderr,
                "gpusim experiment fgd: --policies %s: expected all or a comma list of distinct Random, "
                "DotProd, GpuClustering, GpuPacking, BestFit, FGD\n",
                policies);
        return GS_EXIT_USAGE;
    }
    if (!data)
        data = gs_openb_default_dir();
    struct stat st;
    if (stat(data, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "gpusim experiment fgd: openb data directory '%s' not found: pass --data DIR or set "
                "GPUSIM_OPENB_DIR (the files come from github.com/alibaba/clusterdata, "
                "cluster-trace-gpu-v2023/csv)\n",
                data);
        return GS_EXIT_USAGE;
    }
    /* Each name non-empty, of the file-name characters openb uses, and given once. */
    {
        const char *bad = NULL;
        size_t n = strlen(workloads);
        if (n == 0 || n >= 1024 || workloads[0] == ',' || workloads[n - 1] == ',' || strstr(workloads, ",,"))
            bad = "empty name";
        for (const char *c = workloads; !bad && *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == ',' || *c == '_'))
                bad = "names are lowercase letters, digits and '_'";
        for (const char *a1 = workloads; !bad && a1; a1 = strchr(a1, ',') ? strchr(a1, ',') + 1 : NULL) {
            size_t l1 = strcspn(a1, ",");
            for (const char *b1 = strchr(a1, ','); !bad && b1; b1 = strchr(b1 + 1, ','))
                if (strcspn(b1 + 1, ",") == l1 && strncmp(a1, b1 + 1, l1) == 0)
                    bad = "a name given twice";
        }
        if (bad) {
            fprintf(stderr, "gpusim experiment fgd: --workload '%s': %s\n", workloads, bad);
            return GS_EXIT_USAGE;
        }
    }
    FILE *out = NULL;
    if (csv) {
        out = fopen(csv, "w");
        if (!out) {
            fprintf(stderr, "gpusim experiment fgd: cannot write %s: %s\n", csv, strerror(errno));
            return GS_EXIT_USAGE;
        }
        fputs("workload,policy,seed,tune,arrived_pct,alloc_pct,unalloc_pct,frag_pct,frag_ratio_pct\n", out);
    }
    char wl[1024];
    snprintf(wl, sizeof wl, "%s", workloads);
    int rc = GS_EXIT_OK;
    int nj = npol * nseeds;
    struct job *jl = gs_malloc((size_t)nj * sizeof *jl);
    struct msg *res = gs_malloc((size_t)nj * sizeof *res);
    if (!jl || !res) {
        fprintf(stderr, "gpusim experiment fgd: out of memory\n");
        rc = GS_EXIT_INTERNAL;
        goto end;
    }
    for (int p = 0; p < npol; p++)
        for (int s = 0; s < nseeds; s++)
            jl[p * nseeds + s] = (struct job){pol[p], seeds[s]};
    int xcols[2] = {100, (int)rint(tune * 100.0)};
    for (char *save = NULL, *name = strtok_r(wl, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        struct gs_fgd_experiment ex;
        struct gs_error err = {0};
        int lrc = gs_fgd_experiment_load(&ex, data, name, threshold, &err);
        if (lrc) {
            if (err.line > 0)
                fprintf(stderr, "gpusim experiment fgd: %s:%d:%d: error: %s\n", err.file, err.line, err.col,
                        err.msg);
            else
                fprintf(stderr, "gpusim experiment fgd: %s: error: %s\n", err.file, err.msg);
            rc = GS_EXIT_USAGE;
            goto end;
        }
        ex.tiebreak = ties;
        double t0 = now_s();
        if (run_jobs(&ex, jl, nj, tune, (int)jobs, res)) {
            fprintf(stderr, "gpusim experiment fgd: a worker process failed\n");
            gs_fgd_experiment_free(&ex);
            rc = GS_EXIT_INTERNAL;
            goto end;
        }
        double wall = now_s() - t0;
        for (int i = 0; i < nj; i++)
            if (res[i].rc) {
                fprintf(stderr, "gpusim experiment fgd: %s %s seed %llu: %s\n", name,
                        gs_fgd_policy_name(jl[i].policy), (unsigned long long)jl[i].seed,
                        gs_strerror(res[i].rc));
                gs_fgd_experiment_free(&ex);
                rc = GS_EXIT_INTERNAL;
                goto end;
            }
        double cpu_s = 0, frag0 = res[0].r.empty_frag_pct;
        int maxpods = 0;
        for (int i = 0; i < nj; i++) {
            cpu_s += res[i].seconds;
            if (res[i].r.max_pods_per_node > maxpods)
                maxpods = res[i].r.max_pods_per_node;
        }
        printf("workload %s: %d nodes, %lld GPUs; %d pods, %d typical pod keys of %d (%.2f%% of pods); "
               "empty-cluster frag %.1f GPUs (%.2f%%)\n",
               name, ex.cluster.n, (long long)ex.cluster.total_gpus, ex.workload.n, ex.typical.n,
               ex.typical.nkeys, 100.0 * (double)ex.typical.covered / (double)ex.typical.npods,
               frag0 * (double)ex.cluster.total_gpus / 100.0, frag0);
        printf("tune %.2f, ties %s, %d seeds (%s), %d runs in %.1f s wall (%.2f s per run, %ld jobs); "
               "at most %d pods on a node\n",
               tune, ties == GS_FGD_TIE_RANK ? "rank" : "random", nseeds, seeds_s, nj, wall, cpu_s / nj, jobs, maxpods);
        bool is_default = strcmp(name, "default") == 0 && fabs(tune - 1.3) < 1e-9;
        printf("\nunallocated GPU (%% of %lld GPUs), mean (sd) over %d seeds\n", (long long)ex.cluster.total_gpus,
               nseeds);
        char h0[32], h1[32];
        snprintf(h0, sizeof h0, "arrived %d%%", xcols[0]);
        snprintf(h1, sizeof h1, "arrived %d%%", xcols[1]);
        printf("%-14s %16s %16s%s\n", "policy", h0, h1, is_default ? "    authors 100%    authors 130%" : "");
        for (int p = 0; p < npol; p++) {
            printf("%-14s", gs_fgd_policy_name(pol[p]));
            for (int c = 0; c < 2; c++) {
                double v[MAX_SEEDS];
                int nv = 0;
                for (int s = 0; s < nseeds; s++) {
                    const struct gs_fgd_curve *cv = &res[p * nseeds + s].r.curve;
                    int x = xcols[c];
                    if (x < cv->ncols && !isnan(cv->alloc_pct[x]))
                        v[nv++] = 100.0 - cv->alloc_pct[x];
                }
                if (nv == 0)
                    printf(" %16s", "n/a");
                else if (nv == 1)
                    printf(" %16.2f", v[0]);
                else
                    printf(" %9.2f (%4.2f)", gsl_stats_mean(v, 1, (size_t)nv), gsl_stats_sd(v, 1, (size_t)nv));
            }
            if (is_default)
                printf("   %6.2f (%4.2f)  %6.2f (%4.2f)", authors_mean[0][pol[p]], authors_sd[0][pol[p]],
                       authors_mean[1][pol[p]], authors_sd[1][pol[p]]);
            printf("\n");
        }
        printf("\n");
        if (out) {
            for (int i = 0; i < nj; i++) {
                const struct gs_fgd_curve *cv = &res[i].r.curve;
                for (int x = 0; x < cv->ncols; x++) {
                    if (isnan(cv->alloc_pct[x]))
                        continue;
                    fprintf(out, "%s,%s,%llu,%.2f,%d,%.2f,%.2f,%.2f,%.2f\n", name,
                            gs_fgd_policy_name(jl[i].policy), (unsigned long long)jl[i].seed, tune, x,
                            cv->alloc_pct[x], 100.0 - cv->alloc_pct[x], cv->frag_pct[x], cv->frag_ratio_pct[x]);
                }
            }
        }
        gs_fgd_experiment_free(&ex);
    }
end:
    if (out && fclose(out) != 0 && rc == GS_EXIT_OK) {
        fprintf(stderr, "gpusim experiment fgd: cannot write %s\n", csv);
        rc = GS_EXIT_USAGE;
    }
    gs_free(jl);
    gs_free(res);
    return rc;
}

int gs_cmd_experiment(int argc, char **argv)
{
    static const char top[] = "usage: gpusim experiment NAME [options]\n"
                              "\n"
                              "experiments:\n"
                              "  fgd    the FGD paper's policies on the openb trace (gpusim experiment fgd --help)\n";
    if (argc < 2 || gs_cli_is_help(argv[1])) {
        fputs(top, argc < 2 ? stderr : stdout);
        if (argc >= 2)
            fputs("\n", stdout), fputs(usage, stdout);
        return argc < 2 ? GS_EXIT_USAGE : GS_EXIT_OK;
    }
    if (strcmp(argv[1], "fgd") == 0)
        return cmd_fgd(argc - 1, argv + 1);
    fprintf(stderr, "gpusim experiment: unknown experiment '%s'\n\n%s", argv[1], top);
    return GS_EXIT_USAGE;
}
