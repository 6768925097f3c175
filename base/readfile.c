/* Reading an input file with a size limit (base/readfile.h). */
#include "base/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"

/* The first buffer of a file whose size is not known. */
#define GS_READ_FIRST (64 * 1024)

/* read(2), retried when a signal interrupts it. */
static ssize_t read_some(int fd, char *buf, size_t n)
{
    for (;;) {
        ssize_t got = read(fd, buf, n);
        if (got >= 0 || errno != EINTR)
            return got;
    }
}

static int fail(int fd, char *buf, enum gs_read_fail why, int sys_errno, struct gs_read_status *st)
{
    if (fd >= 0)
        close(fd);
    gs_free(buf);
    st->fail = why;
    st->sys_errno = sys_errno;
    return GS_EIO;
}

int gs_read_file(const char *path, size_t limit, char **text, size_t *len, struct gs_read_status *st)
{
    *text = NULL;
    *len = 0;
    *st = (struct gs_read_status){0};
    if (limit < 1 || limit > GS_ARRAY_MAX)
        limit = GS_ARRAY_MAX;
    /* O_NONBLOCK: a FIFO without a writer would block open(2) until one comes. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(-1, NULL, GS_READ_OPEN, errno, st);
    struct stat sb;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &sb) != 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        return fail(fd, NULL, GS_READ_OPEN, errno, st);
    bool regular = S_ISREG(sb.st_mode);
    st->regular = regular;
    if (regular && (uint64_t)sb.st_size >= limit) {
        st->seen = (uint64_t)sb.st_size;
        return fail(fd, NULL, GS_READ_TOO_LARGE, 0, st);
    }
    size_t first = regular ? (size_t)sb.st_size + 1 : GS_READ_FIRST;
    size_t max_data = limit - 1; /* the most bytes a file may have */
    char *buf = NULL;
    int cap = 0;
    size_t n = 0;
    for (;;) {
        if (n == max_data) {
            /* The buffer holds all a file may have: one more byte makes it too large. */
            char probe;
            ssize_t got = read_some(fd, &probe, 1);
            if (got < 0)
                return fail(fd, buf, GS_READ_IO, errno, st);
            if (got == 0)
                break;
            st->seen = (uint64_t)limit;
            st->stopped = true;
            return fail(fd, buf, GS_READ_TOO_LARGE, 0, st);
        }
        if (n + 1 >= (size_t)cap) {
            /* Room for one more byte and the NUL: the file's size at once when it is known,
             * then doubling (base/array.h); never more than `limit` bytes are needed. */
            size_t want = n == 0 ? first : n + 2;
            if (want > limit)
                want = limit;
            int rc = GS_GROW(buf, cap, (int)want);
            if (rc) {
                close(fd);
                gs_free(buf);
                return GS_ENOMEM;
            }
        }
        size_t room = (size_t)cap - 1 - n;
        if (room > max_data - n)
            room = max_data - n;
        ssize_t got = read_some(fd, buf + n, room);
        if (got < 0)
            return fail(fd, buf, GS_READ_IO, errno, st);
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

#define TOO_LARGE "file too large: "

bool gs_read_is_too_large(const struct gs_error *err)
{
    return strncmp(err->msg, TOO_LARGE, sizeof TOO_LARGE - 1) == 0;
}

/* "1 GiB", "3 MiB", "512 KiB" or "1000 bytes". */
static void human(char *out, size_t sz, uint64_t v)
{
    static const char *const units[] = {"GiB", "MiB", "KiB"};
    static const int shifts[] = {30, 20, 10};
    for (int i = 0; i < 3; i++) {
        if (v >= (UINT64_C(1) << shifts[i]) && v % (UINT64_C(1) << shifts[i]) == 0) {
            snprintf(out, sz, "%" PRIu64 " %s", v >> shifts[i], units[i]);
            return;
        }
    }
    snprintf(out, sz, "%" PRIu64 " bytes", v);
}

int gs_read_too_large(struct gs_error *err, const char *path, const char *what, size_t limit,
                      const struct gs_read_status *st)
{
    char lim[64];
    human(lim, sizeof lim, (uint64_t)limit);
    if (st->stopped)
        return gs_error_set(err, GS_EIO, path, 0, 0,
                            TOO_LARGE "'%s' gave %" PRIu64 " bytes and gpusim stopped reading it (%s); "
                            "%s must be smaller than %s (%" PRIu64 " bytes)",
                            path, st->seen, st->regular ? "it grew while read" : "it is not a regular file", what,
                            lim, (uint64_t)limit);
    return gs_error_set(err, GS_EIO, path, 0, 0,
                        TOO_LARGE "'%s' has %" PRIu64 " bytes; %s must be smaller than %s (%" PRIu64
                        " bytes)",
                        path, st->seen, what, lim, (uint64_t)limit);
}

int gs_read_input(const char *path, const char *what, size_t limit, char **text, size_t *len, struct gs_error *err)
{
    struct gs_read_status st;
    int rc = gs_read_file(path, limit, text, len, &st);
    if (rc == GS_ENOMEM)
        return gs_error_set(err, GS_ENOMEM, path, 0, 0, "out of memory");
    if (rc && st.fail == GS_READ_TOO_LARGE)
        return gs_read_too_large(err, path, what, limit, &st);
    if (rc)
        return gs_error_set(err, GS_EIO, path, 0, 0, "%s: %s", st.fail == GS_READ_OPEN ? "cannot open" : "cannot read",
                            strerror(st.sys_errno));
    return 0;
}
