/* gpusim: semantic versions as DRA version attributes and CEL's semver() use them.
 * Parsing follows github.com/blang/semver/v4 Parse (strict semver 2.0.0: MAJOR.MINOR.PATCH,
 * no leading zeros, optional -prerelease and +build); comparison follows semver.org §11
 * (blang Version.Compare), which k8s.io/apiserver pkg/cel/library/semverlib.go uses. */
#include <string.h>

#include "models/dra/cel.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A numeric part: digits, no leading zero unless "0". Returns chars read or 0. */
static size_t num_part(const char *s, int64_t *out)
{
    size_t n = 0;
    int64_t v = 0;
    while (is_digit(s[n])) {
        if (v > (INT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (s[n] - '0');
        n++;
    }
    if (n == 0 || (n > 1 && s[0] == '0'))
        return 0;
    *out = v;
    return n;
}

static bool ident_char(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

/* Dot-separated identifiers up to '+' or the end; numeric ones without leading zeros when
 * `pre` (build metadata may have them). Returns chars read, 0 when malformed. */
static size_t idents(const char *s, bool pre)
{
    size_t i = 0;
    for (;;) {
        size_t st = i;
        bool numeric = true;
        while (ident_char(s[i])) {
            if (!is_digit(s[i]))
                numeric = false;
            i++;
        }
        if (i == st)
            return 0;
        if (pre && numeric && i - st > 1 && s[st] == '0')
            return 0;
        if (s[i] != '.')
            return i;
        i++;
    }
}

int gs_semver_parse(const char *s, struct gs_semver *v, size_t *pre_len)
{
    if (!s || !v)
        return GS_EINVAL;
    memset(v, 0, sizeof *v);
    if (pre_len)
        *pre_len = 0;
    size_t i = 0, n;
    int64_t parts[3];
    for (int k = 0; k < 3; k++) {
        n = num_part(s + i, &parts[k]);
        if (!n)
            return GS_EINVAL;
        i += n;
        if (k < 2) {
            if (s[i] != '.')
                return GS_EINVAL;
            i++;
        }
    }
    v->major = parts[0];
    v->minor = parts[1];
    v->patch = parts[2];
    if (s[i] == '-') {
        n = idents(s + i + 1, true);
        if (!n)
            return GS_EINVAL;
        v->pre = s + i + 1;
        if (pre_len)
            *pre_len = n;
        i += 1 + n;
    }
    if (s[i] == '+') {
        n = idents(s + i + 1, false);
        if (!n)
            return GS_EINVAL;
        i += 1 + n;
    }
    return s[i] == '\0' ? 0 : GS_EINVAL;
}

/* Length of the prerelease text (it ends at '+', NUL or anything not an identifier). */
static size_t pre_len(const char *p)
{
    size_t n = 0;
    while (p && (ident_char(p[n]) || p[n] == '.'))
        n++;
    return n;
}

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

int gs_semver_cmp(const struct gs_semver *a, const struct gs_semver *b)
{
    int c;
    if ((c = cmp_i64(a->major, b->major)) || (c = cmp_i64(a->minor, b->minor)) ||
        (c = cmp_i64(a->patch, b->patch)))
        return c;
    size_t la = pre_len(a->pre), lb = pre_len(b->pre);
    if (la == 0 || lb == 0)
        return (la == 0) - (lb == 0); /* a release is greater than any prerelease */
    size_t i = 0, j = 0;
    while (i < la && j < lb) {
        size_t ei = i, ej = j;
        bool na = true, nb = true;
        while (ei < la && a->pre[ei] != '.') {
            if (!is_digit(a->pre[ei]))
                na = false;
            ei++;
        }
        while (ej < lb && b->pre[ej] != '.') {
            if (!is_digit(b->pre[ej]))
                nb = false;
            ej++;
        }
        if (na && nb) {
            /* No leading zeros, so the longer number is larger. */
            if ((c = cmp_i64((int64_t)(ei - i), (int64_t)(ej - j))))
                return c;
            if ((c = strncmp(a->pre + i, b->pre + j, ei - i)))
                return c > 0 ? 1 : -1;
        } else if (na != nb) {
            return na ? -1 : 1; /* numeric identifiers have lower precedence */
        } else {
            size_t m = (ei - i) < (ej - j) ? (ei - i) : (ej - j);
            if ((c = strncmp(a->pre + i, b->pre + j, m)))
                return c > 0 ? 1 : -1;
            if ((c = cmp_i64((int64_t)(ei - i), (int64_t)(ej - j))))
                return c;
        }
        i = ei + (ei < la);
        j = ej + (ej < lb);
    }
    return cmp_i64((int64_t)la - (int64_t)i, (int64_t)lb - (int64_t)j) ? ((i < la) ? 1 : -1) : 0;
}
