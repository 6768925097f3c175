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

/* Length of the well-formed UTF-8 character at p (at most `left` bytes), or 0 when p does
 * not start one. */
static size_t utf8_char_len(const unsigned char *p, size_t left)
{
    unsigned char c = p[0];
    size_t need;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        need = 2, cp = c & 0x1Fu;
    else if (c >= 0xE0 && c <= 0xEF)
        need = 3, cp = c & 0x0Fu;
    else if (c >= 0xF0 && c <= 0xF4)
        need = 4, cp = c & 0x07u;
    else
        return 0; /* a continuation byte, an overlong lead (C0, C1) or beyond U+10FFFF */
    if (need > left)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

const char *gs_error_quote(const char *s, size_t len, size_t max, char *out, size_t n)
{
    if (!out || n == 0)
        return out;
    size_t j = 0;
    if (!s) {
        out[0] = '\0';
        return out;
    }
    size_t full = len == (size_t)-1 ? strlen(s) : strnlen(s, len);
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < full && i < max;) {
        char esc[8];
        size_t k = utf8_char_len(p + i, full - i);
        const char *piece;
        size_t plen;
        if (k > 1 && i + k > max)
            break; /* `max` splits this character: leave it out whole */
        if (k == 0 || (k == 1 && (p[i] < 0x20 || p[i] == 0x7f))) {
            unsigned char c = p[i];
            if (c == '\n' || c == '\t' || c == '\r')
                snprintf(esc, sizeof esc, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
            else
                snprintf(esc, sizeof esc, "\\x%02x", c);
            piece = esc;
            plen = strlen(esc);
            k = 1;
        } else {
            piece = s + i;
            plen = k;
        }
        if (j + plen >= n)
            break;
        memcpy(out + j, piece, plen);
        j += plen;
        i += k;
    }
    out[j] = '\0';
    return out;
}

_Noreturn void gs_assert_fail(const char *expr, const char *file, int line)
{
    /* The one place library code writes to the terminal: the process is about to die. */
    fprintf(stderr, "gpusim: internal error at t=%lldus: %s (%s:%d)\n",
            (long long)gs_assert_clock_us, expr ? expr : "?", file ? file : "?", line);
    fflush(stderr);
    abort();
}
