/* Helpers shared by the libFuzzer targets of tests/fuzz (see tests/fuzz/README.md).
 *
 * Each target's LLVMFuzzerTestOneInput must free everything it allocates (LeakSanitizer is
 * on) and write nothing outside the private temporary directory fuzz_tmpdir() makes. An input
 * the target refuses to run returns 0 early (libFuzzer then just moves on). */
#ifndef GPUSIM_FUZZ_UTIL_H
#define GPUSIM_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"

/* `size` bytes of `data` as a NUL-terminated heap string (gs_free it); an embedded NUL ends
 * the string early, as it would for a file read by the loaders. NULL when out of memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = gs_malloc(size + 1);
    if (!s)
        return NULL;
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* True when `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF). */
static inline bool fuzz_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        int n;
        uint32_t cp;
        if (c < 0x80) {
            p++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3, cp = c & 0x07;
        } else {
            return false;
        }
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        p += n + 1;
    }
    return true;
}

/* The oracle every target applies to the messages it gets back: an error or warning that
 * quotes input must escape what is not printable UTF-8 (a raw control character or a byte of
 * broken UTF-8 would garble the terminal or the trace). Aborts, so libFuzzer keeps the input. */
static inline void fuzz_check_message(const char *what, const char *msg)
{
    bool ok = fuzz_utf8_valid(msg);
    for (const unsigned char *p = (const unsigned char *)msg; ok && *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
            ok = false;
    if (!ok) {
        fprintf(stderr, "fuzz: %s is not printable UTF-8: \"", what);
        for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
            fprintf(stderr, *p >= 0x20 && *p < 0x7f ? "%c" : "\\x%02x", *p);
        fprintf(stderr, "\"\n");
        abort();
    }
}

/* The target's private temporary directory ($TMPDIR or /tmp, "gpusim-fuzz-XXXXXX"), made on
 * first use and removed with its files when the process exits. */
static char fuzz_dir_path[256];

static inline void fuzz_tmpdir_remove(void)
{
    char cmd[300];
    if (fuzz_dir_path[0] && strstr(fuzz_dir_path, "gpusim-fuzz-")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_path);
        if (system(cmd) != 0)
            fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir_path);
    }
}

static inline const char *fuzz_tmpdir(void)
{
    if (!fuzz_dir_path[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/gpusim-fuzz-XXXXXX", t && t[0] ? t : "/tmp");
        if (!mkdtemp(fuzz_dir_path)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_tmpdir_remove);
    }
    return fuzz_dir_path;
}

/* Write `size` bytes to <fuzz_tmpdir()>/<name>, replacing the file; the path goes to `path`
 * (size n). Aborts when the file cannot be written (not the input's fault). */
static inline void fuzz_write(const char *name, const void *data, size_t size, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", fuzz_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

#endif
