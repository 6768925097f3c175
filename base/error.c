/* gpusim: error texts, input-error records and the internal assertion (see error.h). */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t gs_assert_clock_us = 0;

const char *gs_strerror(int code)
{
    switch (code) {
#define GS_ERR_CASE(name, val, text) \
    case val:                        \
        return text;
        GS_ERRORS(GS_ERR_CASE)
#undef GS_ERR_CASE
    default:
        return "unknown error";
    }
}

/* Cut a NUL-terminated string that may have been truncated in the middle of a UTF-8
 * sequence back to the last whole character, so messages never end in mojibake. */
static void trim_partial_utf8(char *s)
{
    size_t n = strlen(s);
    size_t i = n;
    /* Walk back over at most 3 continuation bytes to the lead byte of the last character. */
    while (i > 0 && n - i < 4 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0)
        return;
    unsigned char lead = (unsigned char)s[i - 1];
    size_t need = (lead & 0x80) == 0 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3
                                        : (lead & 0xF8) == 0xF0 ? 4 : 1;
    if (n - (i - 1) < need)
        s[i - 1] = '\0';
}

int gs_error_set(struct gs_error *e, int code, const char *file, int line, int col,
                 const char *fmt, ...)
{
    if (!e)
        return code;
    e->code = code;
    e->line = line < 0 ? 0 : line;
    e->col = col < 0 ? 0 : col;

    /* snprintf truncates safely; only trim a split character when truncation happened. */
    const char *f = file ? file : "";
    int fl = snprintf(e->file, sizeof e->file, "%s", f);
    if (fl < 0)
        e->file[0] = '\0';
    else if ((size_t)fl >= sizeof e->file)
        trim_partial_utf8(e->file);

    if (!fmt) {
        e->msg[0] = '\0';
        return code;
    }
    va_list ap;
    va_start(ap, fmt);
    int ml = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (ml < 0)
        e->msg[0] = '\0';
    else if ((size_t)ml >= sizeof e->msg)
        trim_partial_utf8(e->msg);
    return code;
}

_Noreturn void gs_assert_fail(const char *expr, const char *file, int line)
{
    /* The one place library code writes to the terminal: the process is about to die. */
    fprintf(stderr, "gpusim: internal error at t=%lldus: %s (%s:%d)\n",
            (long long)gs_assert_clock_us, expr ? expr : "?", file ? file : "?", line);
    fflush(stderr);
    abort();
}
