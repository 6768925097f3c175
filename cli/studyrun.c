/* gpusim command line: child runs and trace lists for `compare` and `plan` (cli/studyrun.h). */
#include "cli/studyrun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/array.h"
#include "models/quantity.h"

/* The child gs_cli_run_self waits for, and the signal that stopped the wait (0: none). */
static volatile sig_atomic_t child_pid, got_signal;

static void forward(int sig)
{
    got_signal = sig;
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

int gs_cli_run_self(const char **args, const char *log)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return -1;
    self[len] = '\0';
    int nargs = 0;
    while (args[nargs])
        nargs++;
    char **argv = gs_calloc((size_t)nargs + 2, sizeof *argv);
    if (!argv) {
        errno = ENOMEM;
        return -1;
    }
    argv[0] = self;
    for (int i = 0; i < nargs; i++)
        argv[i + 1] = (char *)args[i];
    /* SIGINT, SIGTERM and SIGHUP reach the child (gpusim sweep stops its runs and keeps their
     * .partial traces); the child also gets SIGTERM if this process dies without passing one on. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa = {0}, old[3];
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    got_signal = 0;
    child_pid = 0;
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, &old[i]);
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 3; i++)
            sigaction(sigs[i], &old[i], NULL);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(128 + SIGTERM);
        if (log) {
            int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                _exit(127);
        }
        execv(self, argv);
        _exit(127);
    }
    int e = errno;
    gs_free(argv);
    int rc = -1;
    if (pid < 0) {
        errno = e;
    } else {
        child_pid = pid;
        if (got_signal) /* arrived between fork and here */
            kill(pid, got_signal);
        int ws;
        pid_t w;
        while ((w = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
            ;
        if (w == pid)
            rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : -1;
        child_pid = 0;
    }
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    return rc;
}

int gs_cli_signal(void)
{
    return got_signal;
}

void gs_cli_print_log(const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f))
        fprintf(stderr, "  %s", line);
    fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The run index of each trace file named in a sweep manifest of `dir` (sweep.json, or a shard's
 * sweep-K-of-N.json: docs/sweep.md); -1 for files no manifest names. */
static long manifest_index(json_t *const *mans, int nman, const char *file)
{
    for (int m = 0; m < nman; m++) {
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(mans[m], "runs"), i, r)
        {
            const char *f = json_string_value(json_object_get(r, "file"));
            json_t *idx = json_object_get(r, "index");
            if (f && json_is_integer(idx) && strcmp(f, file) == 0)
                return (long)json_integer_value(idx);
        }
    }
    return -1;
}

struct ordered {
    char *path;
    long index;
};

static int cmp_ordered(const void *a, const void *b)
{
    const struct ordered *x = a, *y = b;
    if ((x->index < 0) != (y->index < 0))
        return x->index < 0 ? 1 : -1; /* files of the sweep first */
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* Reorders the sorted paths `v` of `dir` into the run order of the sweep whose manifest the
 * directory holds (the first --vary value first); leaves them sorted by name without one. */
static void sweep_order(const char *dir, char **v, int n)
{
    json_t *mans[64];
    int nman = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && nman < 64) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "sweep", 5) != 0 || l < 10 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
            continue;
        json_t *j = json_load_file(p, 0, NULL);
        if (j)
            mans[nman++] = j;
    }
    closedir(d);
    struct ordered *o = nman ? gs_calloc((size_t)n, sizeof *o) : NULL;
    if (o) {
        for (int i = 0; i < n; i++) {
            const char *base = strrchr(v[i], '/');
            o[i].path = v[i];
            o[i].index = manifest_index(mans, nman, base ? base + 1 : v[i]);
        }
        qsort(o, (size_t)n, sizeof *o, cmp_ordered);
        for (int i = 0; i < n; i++)
            v[i] = o[i].path;
        gs_free(o);
    }
    for (int m = 0; m < nman; m++)
        json_decref(mans[m]);
}

void gs_cli_free_paths(char **paths, int n)
{
    for (int i = 0; i < n; i++)
        gs_free(paths[i]);
    gs_free(paths);
}

int gs_cli_list_traces(const char *dir, char ***paths)
{
    *paths = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **v = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".db") != 0)
            continue;
        size_t need = strlen(dir) + l + 2;
        char *p = gs_malloc(need);
        if (!p || GS_GROW(v, cap, n + 1)) {
            gs_free(p);
            goto oom;
        }
        snprintf(p, need, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            gs_free(p);
            continue;
        }
        v[n++] = p;
    }
    closedir(d);
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_str);
    if (n > 1)
        sweep_order(dir, v, n);
    *paths = v;
    return n;
oom:
    closedir(d);
    gs_cli_free_paths(v, n);
    errno = ENOMEM;
    return -1;
}

int gs_cli_is_sqlite(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char head[16];
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

int gs_cli_is_merged(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char head[72];
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    /* application_id, big-endian at offset 68 of the SQLite header: "GPSM" (cli/cmd_merge.c) */
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0 && memcmp(head + 68, "GPSM", 4) == 0;
}

char *gs_cli_tempdir(const char *what)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t)
        t = "/tmp";
    size_t need = strlen(t) + strlen(what) + 32;
    char *p = gs_malloc(need);
    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    snprintf(p, need, "%s/gpusim-%s-XXXXXX", t, what);
    if (!mkdtemp(p)) {
        int e = errno;
        gs_free(p);
        errno = e;
        return NULL;
    }
    return p;
}

void gs_cli_rmtree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[PATH_MAX];
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
                continue;
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                gs_cli_rmtree(p);
            else
                unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

int gs_cli_metric_is_time(const char *expr)
{
    return strstr(expr, "timeTo") != NULL;
}

void gs_cli_format_metric(const char *expr, double v, char *buf, size_t n)
{
    if (isnan(v)) {
        snprintf(buf, n, "-");
    } else if (gs_cli_metric_is_time(expr)) {
        /* rounded to 0.1 s: a percentile over interpolated waits has no more meaning */
        double us = round(v * 10.0) * 100000.0;
        if (fabs(us) > 9e18)
            snprintf(buf, n, "%.3g s", v);
        else
            gs_duration_format((int64_t)us, buf, n);
    } else if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, n, "%.0f", v);
    } else {
        snprintf(buf, n, "%.4g", v);
    }
}
