#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <signal.h>
#include <string.h>

#include "base/error.h"

Test(error, strerror_texts)
{
    cr_assert_str_eq(gs_strerror(GS_OK), "success");
    cr_assert_str_eq(gs_strerror(GS_ENOMEM), "out of memory");
    cr_assert_str_eq(gs_strerror(GS_EINVAL), "invalid input");
    cr_assert_str_eq(gs_strerror(GS_EIO), "input/output error");
    cr_assert_str_eq(gs_strerror(GS_ERANGE), "value out of range");
    cr_assert_str_eq(gs_strerror(GS_ENOTSUP), "not supported yet");
    cr_assert_str_eq(gs_strerror(GS_ESQL), "trace database error");
    cr_assert_str_eq(gs_strerror(GS_EINTERRUPTED), "interrupted");
    cr_assert_str_eq(gs_strerror(GS_EINTERNAL), "internal error");
    cr_assert_str_eq(gs_strerror(GS_EBUSY), "in use by another process");
    cr_assert_str_eq(gs_strerror(-10), "unknown error");
    cr_assert_str_eq(gs_strerror(1), "unknown error");
    cr_assert_str_eq(gs_strerror(-2147483647 - 1), "unknown error");
}

Test(error, set_formats_and_returns_code)
{
    struct gs_error e;
    memset(&e, 0x55, sizeof e);
    int rc = gs_error_set(&e, GS_EINVAL, "scenario.yaml", 12, 7, "unknown key '%s' in %s[%d]",
                          "gpus", "nodePools", 0);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert_eq(e.code, GS_EINVAL);
    cr_assert_str_eq(e.file, "scenario.yaml");
    cr_assert_eq(e.line, 12);
    cr_assert_eq(e.col, 7);
    cr_assert_str_eq(e.msg, "unknown key 'gpus' in nodePools[0]");
}

Test(error, set_null_error_and_null_file)
{
    cr_assert_eq(gs_error_set(NULL, GS_ENOTSUP, "x", 1, 1, "ignored %d", 3), GS_ENOTSUP);
    struct gs_error e;
    cr_assert_eq(gs_error_set(&e, GS_EINVAL, NULL, 0, 0, "no file"), GS_EINVAL);
    cr_assert_str_eq(e.file, "");
    cr_assert_eq(e.line, 0);
    cr_assert_eq(e.col, 0);
    cr_assert_str_eq(e.msg, "no file");
}

Test(error, set_truncates_long_message_and_file)
{
    struct gs_error e;
    char longfile[2000];
    memset(longfile, 'f', sizeof longfile - 1);
    longfile[sizeof longfile - 1] = '\0';
    char longmsg[3000];
    memset(longmsg, 'm', sizeof longmsg - 1);
    longmsg[sizeof longmsg - 1] = '\0';
    gs_error_set(&e, GS_EINVAL, longfile, 3, 4, "%s", longmsg);
    cr_assert_eq(strlen(e.file), sizeof e.file - 1);
    cr_assert_eq(strlen(e.msg), sizeof e.msg - 1);
    cr_assert_eq(e.msg[0], 'm');
    cr_assert_eq(e.msg[sizeof e.msg - 2], 'm');
    cr_assert_eq(e.line, 3);
}

Test(error, truncation_never_splits_utf8)
{
    struct gs_error e;
    /* 1022 ASCII bytes then a 3-byte character: only 1023 bytes fit, so the whole
     * character must go rather than leave one or two of its bytes. */
    char msg[1100];
    memset(msg, 'a', 1022);
    strcpy(msg + 1022, "\xE2\x82\xAC tail");
    gs_error_set(&e, GS_EINVAL, "f", 1, 1, "%s", msg);
    cr_assert_eq(strlen(e.msg), 1022);
    cr_assert_eq(e.msg[1021], 'a');

    /* A character that fits exactly is kept. */
    memset(msg, 'a', 1020);
    strcpy(msg + 1020, "\xE2\x82\xAC tail");
    gs_error_set(&e, GS_EINVAL, "f", 1, 1, "%s", msg);
    cr_assert_eq(strlen(e.msg), 1023);
    cr_assert_eq((unsigned char)e.msg[1022], 0xAC);
}

Test(error, negative_positions_clamp_to_unknown)
{
    struct gs_error e;
    gs_error_set(&e, GS_EINVAL, "f", -5, -1, "x");
    cr_assert_eq(e.line, 0);
    cr_assert_eq(e.col, 0);
}

Test(error, assert_aborts, .signal = SIGABRT)
{
    gs_assert_clock_us = 1500;
    GS_ASSERT(1 + 1 == 3);
}

Test(error, assert_passes_when_true)
{
    GS_ASSERT(1 + 1 == 2);
    cr_assert(1);
}

/* gs_error_quote: input quoted in a message keeps well-formed UTF-8 and escapes the rest
 * (the reliability pass found CSV, JSON, CEL and SQLite errors echoing raw bytes). */
Test(error, quote_escapes_control_characters_and_broken_utf8)
{
    char out[128];
    cr_expect(eq(str, (char *)gs_error_quote("plain text", (size_t)-1, (size_t)-1, out, sizeof out), "plain text"));
    /* well-formed UTF-8 stays: é (2 bytes), € (3), U+1F600 (4) */
    cr_expect(eq(str, (char *)gs_error_quote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", (size_t)-1, (size_t)-1, out,
                                             sizeof out),
                 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    /* control characters */
    cr_expect(eq(str, (char *)gs_error_quote("a\nb\tc\rd\x01" "e\x7f", (size_t)-1, (size_t)-1, out, sizeof out),
                 "a\\nb\\tc\\rd\\x01e\\x7f"));
    /* broken UTF-8: a stray continuation byte, a lone lead byte, an overlong '/', a surrogate,
     * a code point above U+10FFFF, 0xff */
    cr_expect(eq(str, (char *)gs_error_quote("\x80|\xc3x|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xff", (size_t)-1,
                                             (size_t)-1, out, sizeof out),
                 "\\x80|\\xc3x|\\xc0\\xaf|\\xed\\xa0\\x80|\\xf4\\x90\\x80\\x80|\\xff"));
    /* `len` bytes only (a field of a CSV line), stopping at a NUL */
    cr_expect(eq(str, (char *)gs_error_quote("64x\xff" "000,262144", 7, 40, out, sizeof out), "64x\\xff000"));
    cr_expect(eq(str, (char *)gs_error_quote("ab\0cd", 5, 5, out, sizeof out), "ab"));
    /* NULL text is empty */
    cr_expect(eq(str, (char *)gs_error_quote(NULL, 3, 3, out, sizeof out), ""));
}

Test(error, quote_cuts_at_whole_characters)
{
    char out[16];
    /* `max` 4 would split the é that starts at byte 3: it is left out whole */
    cr_expect(eq(str, (char *)gs_error_quote("caf\xc3\xa9s", (size_t)-1, 4, out, sizeof out), "caf"));
    cr_expect(eq(str, (char *)gs_error_quote("caf\xc3\xa9s", (size_t)-1, 5, out, sizeof out), "caf\xc3\xa9"));
    /* an escape that does not fit `out` is left out whole too */
    char small[6];
    cr_expect(eq(str, (char *)gs_error_quote("ab\x01" "c", (size_t)-1, (size_t)-1, small, sizeof small), "ab"));
    cr_expect(eq(str, (char *)gs_error_quote("abcdefgh", (size_t)-1, (size_t)-1, small, sizeof small), "abcde"));
    char one[1];
    cr_expect(eq(str, (char *)gs_error_quote("abc", (size_t)-1, (size_t)-1, one, sizeof one), ""));
}
