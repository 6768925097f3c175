/* gpusim base: reading a whole input file into memory, with a size limit.
 *
 * Every file gpusim reads as input (the scenario, the files it names: kubectl snapshots, openb
 * CSVs, manifests, the catalogs) is read through gs_read_file with a limit chosen for that
 * kind of input (docs/scenario-format.md lists them), so that a wrong path (`nodes: /dev/zero`,
 * a FIFO, a log file) ends with a message saying what was seen instead of exhausting memory.
 * A regular file larger than the limit is refused from its size, without being read; anything
 * else (a character device, a FIFO, a /proc file) is read until the limit and then refused.
 * The file is opened without blocking, so a FIFO that nobody writes to reads as empty instead
 * of hanging in open(); once opened, reads block as usual (a FIFO whose writer stays open
 * without writing waits for it, as any reader would). Memory comes from the allocation seam
 * (base/alloc.h) through the growth helper (base/array.h). */
#ifndef GPUSIM_BASE_READFILE_H
#define GPUSIM_BASE_READFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* Why gs_read_file failed with GS_EIO. */
enum gs_read_fail {
    GS_READ_OK = 0,
    GS_READ_OPEN,      /* open(2) or fstat(2) failed: sys_errno */
    GS_READ_IO,        /* read(2) failed: sys_errno */
    GS_READ_TOO_LARGE, /* the file has `limit` bytes or more: seen, stopped */
};

struct gs_read_status {
    enum gs_read_fail fail;
    int sys_errno;   /* GS_READ_OPEN, GS_READ_IO: errno */
    uint64_t seen;   /* GS_READ_TOO_LARGE: the file's size in bytes, or (stopped) the bytes read */
    bool stopped;    /* GS_READ_TOO_LARGE: not a regular file (or one that grew while read):
                      * reading stopped after `seen` bytes, its real size is unknown */
    bool regular;    /* the file is a regular file */
};

/* Read all of `path`: on success returns 0, *text (heap, owned by the caller, released with
 * gs_free) holds the *len bytes of the file followed by a NUL (the file itself may contain NUL
 * bytes: *len counts them). A file must be smaller than `limit` bytes: one of `limit` bytes or
 * more is refused (`limit` 0, or above GS_ARRAY_MAX, is taken as GS_ARRAY_MAX, 1 GiB: the most
 * one buffer may hold). At most min(size + 1, limit) bytes are allocated for a regular file;
 * other files grow their buffer by doubling up to `limit`. Errors: GS_EIO with st->fail saying
 * which (the caller words GS_READ_OPEN and GS_READ_IO with strerror(st->sys_errno);
 * gs_read_too_large words GS_READ_TOO_LARGE), GS_ENOMEM; *text is then NULL and *len 0. */
int gs_read_file(const char *path, size_t limit, char **text, size_t *len, struct gs_read_status *st);

/* Fill `err` (file `path`, no line) with the message of a GS_READ_TOO_LARGE status for a file
 * that is `what` (with its article: "a kubectl node list", "an openb pod list") limited to
 * `limit` bytes, and return GS_EIO:
 *   file too large: 'nodes.json' has 2147483648 bytes; a kubectl node list must be smaller
 *     than 1 GiB (1073741824 bytes)
 *   file too large: '/dev/zero' gave 1073741824 bytes and gpusim stopped reading it (it is not
 *     a regular file); a scenario file must be smaller than 1 GiB (1073741824 bytes) */
int gs_read_too_large(struct gs_error *err, const char *path, const char *what, size_t limit,
                      const struct gs_read_status *st);

/* gs_read_file for an input that is `what` (as for gs_read_too_large), with every failure
 * worded into `err` (file `path`, no line): "out of memory" (GS_ENOMEM), the too-large message
 * (GS_EIO), "cannot open: <strerror>" or "cannot read: <strerror>" (GS_EIO). On success
 * *text (heap, the caller's, gs_free) holds *len bytes and a NUL. */
int gs_read_input(const char *path, const char *what, size_t limit, char **text, size_t *len, struct gs_error *err);

/* True when `err` holds a gs_read_too_large message (for callers that add a hint to the other
 * GS_EIO messages, such as "the gpusim catalog is missing"). */
bool gs_read_is_too_large(const struct gs_error *err);

#endif
