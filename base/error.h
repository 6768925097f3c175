/* gpusim: error codes, input-error positions and the internal assertion.
 *
 * Every library function returns int: 0 on success or a negative GS_E* code.
 * Errors in user input (scenario files, catalogs) also fill a struct gs_error with the
 * 1-based file:line:column of the offending text and a one-line message.
 */
#ifndef GPUSIM_ERROR_H
#define GPUSIM_ERROR_H

#include <stddef.h>
#include <stdint.h>

/* One table gives both the code and its text (gs_strerror). */
#define GS_ERRORS(X)                                              \
    X(GS_OK, 0, "success")                                        \
    X(GS_ENOMEM, -1, "out of memory")                             \
    X(GS_EINVAL, -2, "invalid input")                             \
    X(GS_EIO, -3, "input/output error")                           \
    X(GS_ERANGE, -4, "value out of range")                        \
    X(GS_ENOTSUP, -5, "not supported yet")                        \
    X(GS_ESQL, -6, "trace database error")                        \
    X(GS_EINTERRUPTED, -7, "interrupted")                         \
    X(GS_EINTERNAL, -8, "internal error")                         \
    X(GS_EBUSY, -9, "in use by another process")

enum gs_errcode {
#define GS_ERR_ENUM(name, val, text) name = val,
    GS_ERRORS(GS_ERR_ENUM)
#undef GS_ERR_ENUM
};

/* The text for a GS_E* code; "unknown error" for anything else. Static storage. */
const char *gs_strerror(int code);

/* An input error: where (1-based line and column; 0 when unknown) and what.
 * `file` is a copy, so the struct owns all its storage. */
struct gs_error {
    char file[512];
    int line;
    int col;
    int code;         /* GS_EINVAL for bad input, GS_ENOTSUP for a key modelled in a later release */
    char msg[1024];
};

/* Fill `e` (may be NULL: then nothing happens) with a printf-style message. `file` (may be
 * NULL: "") is copied. Too-long file names and messages are cut to fit, never in the middle
 * of a UTF-8 character; negative line/col become 0 (unknown).
 * Returns `code`, so callers can `return gs_error_set(e, GS_EINVAL, ...)`. */
int gs_error_set(struct gs_error *e, int code, const char *file, int line, int col,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Input text quoted in a message (an error or a warning), made safe to print: well-formed
 * UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) is copied as it
 * is; a newline, tab and carriage return become "\n", "\t", "\r"; any other ASCII control
 * character (and DEL), and every byte that is not part of a well-formed UTF-8 character,
 * becomes "\xNN" (two lower-case hex digits), so no raw input byte can garble a terminal, a
 * log or the trace. At most `max` bytes of `s` are rendered (`len` bytes, or up to a NUL when
 * `len` is (size_t)-1), and a character that `max` would split is left out whole, as is
 * anything that does not fit `out`. `out` (size `n` > 0, caller-owned) is always
 * NUL-terminated. Returns `out`, to be passed to a "%s". Pure; no allocation. */
const char *gs_error_quote(const char *s, size_t len, size_t max, char *out, size_t n);

/* Simulated time (microseconds) printed by GS_ASSERT; the run loop keeps it current. */
extern int64_t gs_assert_clock_us;

/* Abort on a programming error, printing to stderr
 * "gpusim: internal error at t=<us>us: <expr> (<file>:<line>)". Never used for bad input. */
_Noreturn void gs_assert_fail(const char *expr, const char *file, int line);
#define GS_ASSERT(cond) ((cond) ? (void)0 : gs_assert_fail(#cond, __FILE__, __LINE__))

#endif
