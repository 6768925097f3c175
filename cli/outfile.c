/* gpusim command line: output files written whole or not at all (cli/outfile.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/outfile.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/trace.h"

int gs_outfile_open(struct gs_outfile *o, const char *path, const char *const *inputs, int ninputs, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGXFSZ, &sa, NULL);

    struct stat st, ls;
    if (snprintf(o->target, sizeof o->target, "%s", path) >= (int)sizeof o->target) {
        fprintf(stderr, "gpusim: %s: the file name '%s' is too long\n", cmd, path);
        return -1;
    }
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            fprintf(stderr, "gpusim: %s: '%s' exists and is not a regular file: not replaced (give a file name)\n", cmd,
                    path);
            return -1;
        }
        for (int i = 0; i < ninputs; i++) {
            struct stat is;
            if (inputs[i] && stat(inputs[i], &is) == 0 && is.st_dev == st.st_dev && is.st_ino == st.st_ino) {
                fprintf(stderr, "gpusim: %s: '%s' is the input '%s' itself: give the output another file name\n", cmd,
                        path, inputs[i]);
                return -1;
            }
        }
        if (gs_trace_file_kind(path) == GS_TRACE_FILE_TRACE) {
            fprintf(stderr,
                    "gpusim: %s: '%s' is a gpusim trace: not replaced by this output (remove it first, or give "
                    "another file name)\n",
                    cmd, path);
            return -1;
        }
        /* A symbolic link: replace the file it points to, not the link. */
        if (lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode)) {
            char real[PATH_MAX];
            if (!realpath(path, real) || snprintf(o->target, sizeof o->target, "%s", real) >= (int)sizeof o->target) {
                fprintf(stderr, "gpusim: %s: cannot resolve '%s': %s\n", cmd, path, strerror(errno));
                return -1;
            }
        }
    } else if (errno != ENOENT) {
        fprintf(stderr, "gpusim: %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        return -1;
    }
    /* The temporary file, beside the target. */
    const char *slash = strrchr(o->target, '/');
    int dirlen = slash ? (int)(slash - o->target) : 0;
    const char *base = slash ? slash + 1 : o->target;
    int n = slash ? snprintf(o->tmp, sizeof o->tmp, "%.*s/.%s.XXXXXX", dirlen ? dirlen : 1, dirlen ? o->target : "/",
                             base)
                  : snprintf(o->tmp, sizeof o->tmp, ".%s.XXXXXX", base);
    if (n < 0 || n >= (int)sizeof o->tmp) {
        fprintf(stderr, "gpusim: %s: the file name '%s' is too long\n", cmd, path);
        o->tmp[0] = '\0';
        return -1;
    }
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        fprintf(stderr, "gpusim: %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        o->tmp[0] = '\0';
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask); /* as a file fopen would create */
    o->f = fdopen(fd, "w");
    if (!o->f) {
        fprintf(stderr, "gpusim: %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return -1;
    }
    return 0;
}

int gs_outfile_commit(struct gs_outfile *o, const char *cmd)
{
    if (o->f == stdout) {
        o->f = NULL;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "gpusim: %s: cannot write to standard output: %s\n", cmd, strerror(errno ? errno : EIO));
            return -1;
        }
        return 0;
    }
    errno = 0;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int err = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->target) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        fprintf(stderr, "gpusim: %s: cannot write '%s': %s (nothing was written there)\n", cmd, o->path,
                strerror(err ? err : EIO));
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return -1;
    }
    o->tmp[0] = '\0';
    return 0;
}

void gs_outfile_abort(struct gs_outfile *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}
