/* gpusim: Kubernetes resource.Quantity and Go durations (see models/quantity.h).
 *
 * The parser follows apimachinery's ParseQuantity step by step (Kubernetes 1.34): the fast
 * scanner parseQuantityString, the suffix table, the int64Amount fast path with its
 * "canonical input" cache, and the inf.Dec fallback (round non-zero values up to a nanounit,
 * cap binary-SI amounts at 2^63-1). Where Go would use an unbounded inf.Dec we keep an exact
 * decimal (significant digits and a base-10 exponent), so every accessor is exact; arithmetic
 * never overflows: scales are widened to int64 and Go's int32 wrap-arounds are reproduced
 * explicitly where upstream has them.
 */
#include "models/quantity.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"

/* ---------------------------------------------------------------------------------------- */
/* Small helpers                                                                            */
/* ---------------------------------------------------------------------------------------- */

/* Go converts between int64 and int32 (and adds int32s) by wrapping; C would make the
 * out-of-range cases implementation-defined or undefined, so wrap by hand. */
static int32_t wrap32(int64_t v)
{
    uint32_t u = (uint32_t)((uint64_t)v & 0xFFFFFFFFu);
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* snprintf-like copy: writes at most n bytes including the NUL, returns the full length. */
static int out_str(char *buf, size_t n, const char *s, size_t len)
{
    if (buf && n > 0) {
        size_t k = len < n - 1 ? len : n - 1;
        memcpy(buf, s, k);
        buf[k] = '\0';
    }
    return len > (size_t)INT_MAX ? INT_MAX : (int)len;
}

/* ---------------------------------------------------------------------------------------- */
/* Exact decimal numbers: sign, significant digits, base-10 exponent                        */
/* ---------------------------------------------------------------------------------------- */

/* Room for the largest inf.Dec we keep plus carries and the zeros that canonical formatting
 * appends (at most two, to bring the exponent to a multiple of three). */
#define DN_CAP (GS_QUANTITY_DIGITS_MAX + 8)

/* value = (neg ? -1 : 1) × d[0..nd) × 10^exp; normalized: no leading or trailing zeros,
 * nd == 0 (and neg false, exp 0) for zero. */
struct dn {
    bool neg;
    int nd;
    int64_t exp;
    char d[DN_CAP];
};

static void dn_normalize(struct dn *x)
{
    int lead = 0;
    while (lead < x->nd && x->d[lead] == '0')
        lead++;
    if (lead > 0) {
        memmove(x->d, x->d + lead, (size_t)(x->nd - lead));
        x->nd -= lead;
    }
    while (x->nd > 0 && x->d[x->nd - 1] == '0') {
        x->nd--;
        x->exp++;
    }
    if (x->nd == 0) {
        x->neg = false;
        x->exp = 0;
    }
}

static void dn_from_i64(struct dn *x, int64_t v, int64_t exp)
{
    char tmp[24];
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int k = 0;
    do {
        tmp[k++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m > 0);
    x->neg = v < 0;
    x->nd = k;
    for (int i = 0; i < k; i++)
        x->d[i] = tmp[k - 1 - i];
    x->exp = exp;
    dn_normalize(x);
}

static void dn_from_quantity(struct dn *x, const struct gs_quantity *q)
{
    if (q->is_int64) {
        dn_from_i64(x, q->value, q->scale);
        return;
    }
    size_t nd = strnlen(q->dec_digits, GS_QUANTITY_DIGITS_MAX);
    memcpy(x->d, q->dec_digits, nd);
    x->nd = (int)nd;
    x->neg = q->negative;
    x->exp = q->dec_exp;
    /* Guard against hand-filled structs: keep only digits. */
    for (int i = 0; i < x->nd; i++)
        if (x->d[i] < '0' || x->d[i] > '9')
            x->d[i] = '0';
    dn_normalize(x);
}

static int dn_sign(const struct dn *x)
{
    return x->nd == 0 ? 0 : x->neg ? -1 : 1;
}

static int dn_cmp_abs(const struct dn *a, const struct dn *b)
{
    if (a->nd == 0 || b->nd == 0)
        return (a->nd != 0) - (b->nd != 0);
    /* Position of the leading digit decides unless equal. */
    int64_t ta = a->exp + a->nd, tb = b->exp + b->nd;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    int n = a->nd > b->nd ? a->nd : b->nd;
    for (int i = 0; i < n; i++) {
        char ca = i < a->nd ? a->d[i] : '0';
        char cb = i < b->nd ? b->d[i] : '0';
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    return 0;
}

static int dn_cmp(const struct dn *a, const struct dn *b)
{
    int sa = dn_sign(a), sb = dn_sign(b);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    int c = dn_cmp_abs(a, b);
    return sa < 0 ? -c : c;
}

/* Round |x| away from zero to a multiple of 10^e (inf.RoundUp). Returns true when exact. */
static bool dn_round_away(struct dn *x, int64_t e)
{
    if (x->nd == 0 || x->exp >= e)
        return true;
    int64_t drop = e - x->exp; /* digits below 10^e, all of them present since normalized */
    if (drop >= x->nd) {
        x->d[0] = '1';
        x->nd = 1;
        x->exp = e;
        return false;
    }
    x->nd -= (int)drop;
    x->exp = e;
    /* The dropped digits end in a non-zero digit (normalized), so add one unit. */
    int i = x->nd - 1;
    while (i >= 0 && x->d[i] == '9') {
        x->d[i] = '0';
        i--;
    }
    if (i >= 0) {
        x->d[i]++;
    } else {
        memmove(x->d + 1, x->d, (size_t)x->nd);
        x->d[0] = '1';
        x->nd++;
    }
    dn_normalize(x);
    return false;
}

/* trunc(|x| / 10^s) as a uint64. *inexact tells whether a non-zero remainder was dropped.
 * Returns false when the quotient exceeds 2^64 - 1. */
static bool dn_trunc_u64(const struct dn *x, int64_t s, uint64_t *out, bool *inexact)
{
    *out = 0;
    *inexact = false;
    if (x->nd == 0)
        return true;
    int64_t shift = x->exp - s; /* exponent of the last digit in units of 10^s */
    int64_t nint = x->nd + shift; /* digits of the integer part */
    if (nint <= 0) {
        *inexact = true;
        return true;
    }
    if (nint > 20)
        return false;
    uint64_t v = 0;
    for (int64_t i = 0; i < nint; i++) {
        int digit = i < x->nd ? x->d[i] - '0' : 0;
        if (v > (UINT64_MAX - (uint64_t)digit) / 10)
            return false;
        v = v * 10 + (uint64_t)digit;
    }
    *inexact = nint < x->nd;
    *out = v;
    return true;
}

/* Turn a magnitude and sign into an int64, saturating. */
static int64_t sat_i64(bool neg, uint64_t m, bool overflow)
{
    if (neg) {
        if (overflow || m >= (uint64_t)1 << 63)
            return INT64_MIN;
        return -(int64_t)m;
    }
    if (overflow || m > (uint64_t)INT64_MAX)
        return INT64_MAX;
    return (int64_t)m;
}

/* ---------------------------------------------------------------------------------------- */
/* ParseQuantity                                                                            */
/* ---------------------------------------------------------------------------------------- */

enum qerr { QE_OK = 0, QE_FORMAT, QE_SUFFIX, QE_NUMERIC, QE_RANGE };

static const char *const qerr_text[] = {
    [QE_OK] = NULL,
    [QE_FORMAT] = "quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    [QE_SUFFIX] = "unable to parse quantity's suffix",
    [QE_NUMERIC] = "unable to parse numeric part of quantity",
    [QE_RANGE] = "quantity is too long or too precise for gpusim",
};

/* A slice of the input. */
struct span {
    const char *p;
    size_t n;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* parseQuantityString: a fast scanner, kept statement for statement so that it accepts and
 * rejects exactly what upstream does (including "+", ".", "1." and "e3"). */
static enum qerr scan_quantity(const char *str, size_t end, bool *positive, struct span *value,
                               struct span *num, struct span *denom, struct span *suffix)
{
    static const char zero[] = "0";
    size_t pos = 0;
    *positive = true;
    *value = (struct span){str, 0};
    *num = (struct span){str, 0};
    *denom = (struct span){str, 0};
    *suffix = (struct span){str, 0};

    if (pos < end) {
        if (str[0] == '-') {
            *positive = false;
            pos++;
        } else if (str[0] == '+') {
            pos++;
        }
    }
    /* strip leading zeros */
    for (size_t i = pos;; i++) {
        if (i >= end) {
            *num = (struct span){zero, 1};
            *value = *num;
            return QE_OK;
        }
        if (str[i] == '0')
            pos++;
        else
            break;
    }
    /* extract the numerator */
    for (size_t i = pos;; i++) {
        if (i >= end) {
            *num = (struct span){str + pos, end - pos};
            *value = (struct span){str, end};
            return QE_OK;
        }
        if (!is_digit(str[i])) {
            *num = (struct span){str + pos, i - pos};
            pos = i;
            break;
        }
    }
    if (num->n == 0)
        *num = (struct span){zero, 1};
    /* handle a denominator */
    if (pos < end && str[pos] == '.') {
        pos++;
        for (size_t i = pos;; i++) {
            if (i >= end) {
                *denom = (struct span){str + pos, end - pos};
                *value = (struct span){str, end};
                return QE_OK;
            }
            if (!is_digit(str[i])) {
                *denom = (struct span){str + pos, i - pos};
                pos = i;
                break;
            }
        }
    }
    *value = (struct span){str, pos};

    /* grab the elements of the suffix */
    size_t suffix_start = pos;
    for (size_t i = pos;; i++) {
        if (i >= end) {
            *suffix = (struct span){str + suffix_start, end - suffix_start};
            return QE_OK;
        }
        if (!strchr("eEinumkKMGTP", str[i]) || str[i] == '\0') {
            pos = i;
            break;
        }
    }
    if (pos < end && (str[pos] == '-' || str[pos] == '+'))
        pos++;
    for (size_t i = pos;; i++) {
        if (i >= end) {
            *suffix = (struct span){str + suffix_start, end - suffix_start};
            return QE_OK;
        }
        if (!is_digit(str[i]))
            break;
    }
    /* a non-decimal in the exponent position */
    return QE_FORMAT;
}

/* strconv.ParseInt(s, 10, 64): optional sign, at least one digit, nothing else, in range. */
static bool parse_int64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    if (i >= n)
        return false;
    uint64_t v = 0;
    uint64_t lim = neg ? (uint64_t)1 << 63 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (!is_digit(s[i]))
            return false;
        uint64_t digit = (uint64_t)(s[i] - '0');
        if (v > (lim - digit) / 10)
            return false;
        v = v * 10 + digit;
    }
    *out = neg ? (v == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return true;
}

static bool span_eq(struct span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* quantitySuffixer.interpret: decimal-SI table, binary-SI table, then e/E exponents. The
 * parsed exponent is truncated to int32 as upstream's int32(parsed) does. */
static bool interpret_suffix(struct span s, int *base, int32_t *exponent, enum gs_qformat *fmt)
{
    static const struct {
        const char *s;
        int base;
        int32_t exp;
        enum gs_qformat fmt;
    } table[] = {
        {"", 10, 0, GS_QF_DECIMAL_SI},   {"n", 10, -9, GS_QF_DECIMAL_SI}, {"u", 10, -6, GS_QF_DECIMAL_SI},
        {"m", 10, -3, GS_QF_DECIMAL_SI}, {"k", 10, 3, GS_QF_DECIMAL_SI},  {"M", 10, 6, GS_QF_DECIMAL_SI},
        {"G", 10, 9, GS_QF_DECIMAL_SI},  {"T", 10, 12, GS_QF_DECIMAL_SI}, {"P", 10, 15, GS_QF_DECIMAL_SI},
        {"E", 10, 18, GS_QF_DECIMAL_SI}, {"Ki", 2, 10, GS_QF_BINARY_SI},  {"Mi", 2, 20, GS_QF_BINARY_SI},
        {"Gi", 2, 30, GS_QF_BINARY_SI},  {"Ti", 2, 40, GS_QF_BINARY_SI},  {"Pi", 2, 50, GS_QF_BINARY_SI},
        {"Ei", 2, 60, GS_QF_BINARY_SI},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (span_eq(s, table[i].s)) {
            *base = table[i].base;
            *exponent = table[i].exp;
            *fmt = table[i].fmt;
            return true;
        }
    }
    if (s.n > 1 && (s.p[0] == 'e' || s.p[0] == 'E')) {
        int64_t parsed;
        if (!parse_int64(s.p + 1, s.n - 1, &parsed))
            return false;
        *base = 10;
        *exponent = wrap32(parsed);
        *fmt = GS_QF_DECIMAL_EXPONENT;
        return true;
    }
    return false;
}

/* int64Multiply: a*b or false on overflow (a, b >= 0 here). */
static bool mul_i64(int64_t a, int64_t b, int64_t *out)
{
    if (a == 0 || b == 0) {
        *out = 0;
        return true;
    }
    if (a > INT64_MAX / b)
        return false;
    *out = a * b;
    return true;
}

/* Multiply the decimal digit string x (magnitude only) by 2, `times` times. */
static bool dn_mul_pow2(struct dn *x, int times)
{
    for (int t = 0; t < times; t++) {
        int carry = 0;
        for (int i = x->nd - 1; i >= 0; i--) {
            int v = (x->d[i] - '0') * 2 + carry;
            x->d[i] = (char)('0' + v % 10);
            carry = v / 10;
        }
        if (carry) {
            if (x->nd + 1 > DN_CAP)
                return false;
            memmove(x->d + 1, x->d, (size_t)x->nd);
            x->d[0] = (char)('0' + carry);
            x->nd++;
        }
    }
    return true;
}

/* The inf.Dec half of ParseQuantity, on our exact decimal. */
static enum qerr parse_dec(struct span value, int base, int32_t exponent, enum gs_qformat format,
                           struct gs_quantity *q)
{
    struct dn x = {0};
    size_t i = 0;
    bool neg = false, seen_digit = false, seen_point = false;
    int64_t frac = 0;
    if (i < value.n && (value.p[i] == '+' || value.p[i] == '-')) {
        neg = value.p[i] == '-';
        i++;
    }
    for (; i < value.n; i++) {
        char c = value.p[i];
        if (c == '.' && !seen_point) {
            seen_point = true;
            continue;
        }
        if (!is_digit(c))
            return QE_NUMERIC; /* cannot happen: the scanner only lets these through */
        seen_digit = true;
        if (seen_point)
            frac++;
        if (c == '0' && x.nd == 0)
            continue; /* leading zero */
        if (x.nd >= DN_CAP - 2)
            return QE_RANGE;
        x.d[x.nd++] = c;
    }
    if (!seen_digit)
        return QE_NUMERIC; /* inf.Dec.SetString: "no digits read" */

    /* inf.Dec scale = digits after the point; the suffix then changes it. */
    int32_t inf_scale = wrap32(frac);
    if (base == 10) {
        /* amount.SetScale(amount.Scale() + Scale(exponent).infScale()), all in int32 */
        inf_scale = wrap32((int64_t)inf_scale + (int64_t)wrap32(-(int64_t)exponent));
    } else if (!dn_mul_pow2(&x, exponent)) {
        return QE_RANGE;
    }
    x.exp = -(int64_t)inf_scale;
    x.neg = false; /* upstream works on the magnitude from here on */
    dn_normalize(&x);

    if (x.nd > 0)
        dn_round_away(&x, -9); /* round non-zero values up to a nanounit */

    if (format == GS_QF_BINARY_SI) {
        struct dn max;
        dn_from_i64(&max, INT64_MAX, 0);
        if (dn_cmp(&x, &max) > 0)
            x = max;
        struct dn one;
        dn_from_i64(&one, 1, 0);
        if (x.nd > 0 && dn_cmp(&x, &one) < 0)
            format = GS_QF_DECIMAL_SI; /* avoids rounding and confusion */
    }
    if (x.nd > GS_QUANTITY_DIGITS_MAX)
        return QE_RANGE;

    q->is_int64 = false;
    q->value = 0;
    q->scale = 0;
    q->format = format;
    q->canonical_input = false;
    q->negative = neg && x.nd > 0;
    q->dec_exp = x.exp;
    memcpy(q->dec_digits, x.d, (size_t)x.nd);
    q->dec_digits[x.nd] = '\0';
    return QE_OK;
}

static enum qerr parse_quantity(const char *str, size_t len, struct gs_quantity *q)
{
    if (len == 0)
        return QE_FORMAT;
    if (len >= GS_QUANTITY_TEXT_MAX)
        return QE_RANGE;
    memcpy(q->text, str, len);
    q->text[len] = '\0';
    if (memchr(str, '\0', len))
        return QE_FORMAT; /* an embedded NUL is not in the grammar */
    if (len == 1 && str[0] == '0') {
        q->is_int64 = true;
        q->format = GS_QF_DECIMAL_SI;
        q->canonical_input = true;
        return QE_OK;
    }

    bool positive;
    struct span value, num, denom, suf;
    enum qerr e = scan_quantity(str, len, &positive, &value, &num, &denom, &suf);
    if (e)
        return e;

    int base;
    int32_t exponent;
    enum gs_qformat format;
    if (!interpret_suffix(suf, &base, &exponent, &format))
        return QE_SUFFIX;

    /* Kubernetes 1.34: maxInt64Factors = 18 (raised to 19 upstream in 2026, issue #135487). */
    const int64_t max_int64_factors = 18;
    int64_t precision = 0;
    int32_t scale = 0;
    int64_t mantissa = 1;
    switch (format) {
    case GS_QF_DECIMAL_EXPONENT:
    case GS_QF_DECIMAL_SI:
        scale = exponent;
        precision = max_int64_factors - (int64_t)(num.n + denom.n);
        break;
    case GS_QF_BINARY_SI:
        scale = 0;
        if (exponent >= 0 && denom.n == 0) {
            mantissa = (int64_t)1 << exponent; /* exponent is 10..60 */
            /* 1Mi (2^20) has ~6 digits of decimal precision: exponent*3/10 - 1 */
            precision = 15 - (int64_t)num.n - (int64_t)exponent * 3 / 10 - 1;
        } else {
            precision = -1;
        }
        break;
    }

    if (precision >= 0) {
        scale = wrap32((int64_t)scale - (int64_t)denom.n);
        if (scale >= -9) {
            char shifted[40];
            size_t sn = num.n + denom.n; /* at most 18 digits here */
            memcpy(shifted, num.p, num.n);
            memcpy(shifted + num.n, denom.p, denom.n);
            int64_t v;
            if (!parse_int64(shifted, sn, &v))
                return QE_NUMERIC;
            int64_t result;
            if (mul_i64(v, mantissa, &result)) {
                if (!positive)
                    result = -result;
                q->is_int64 = true;
                q->value = result;
                q->scale = scale;
                q->format = format;
                /* if the number is in canonical form, upstream reuses the input string */
                if (format == GS_QF_BINARY_SI) {
                    q->canonical_input = exponent % 10 == 0 && (v & 0x07) != 0;
                } else {
                    bool ends000 = sn >= 3 && memcmp(shifted + sn - 3, "000", 3) == 0;
                    q->canonical_input = scale % 3 == 0 && !ends000 && shifted[0] != '0';
                }
                return QE_OK;
            }
        }
    }
    return parse_dec(value, base, exponent, format, q);
}

/* Go's unicode.IsSpace for the code point starting at s (length returned in *len, 0 when
 * it is not a space). */
static size_t space_len_at(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned c = s[0];
    if (c == ' ' || (c >= '\t' && c <= '\r'))
        return 1;
    if (n >= 2 && c == 0xC2 && (s[1] == 0x85 || s[1] == 0xA0))
        return 2;
    if (n >= 3 && c == 0xE1 && s[1] == 0x9A && s[2] == 0x80)
        return 3; /* U+1680 */
    if (n >= 3 && c == 0xE2 && s[1] == 0x80 && ((s[2] >= 0x80 && s[2] <= 0x8A) || s[2] == 0xA8 ||
                                                 s[2] == 0xA9 || s[2] == 0xAF))
        return 3; /* U+2000..U+200A, U+2028, U+2029, U+202F */
    if (n >= 3 && c == 0xE2 && s[1] == 0x81 && s[2] == 0x9F)
        return 3; /* U+205F */
    if (n >= 3 && c == 0xE3 && s[1] == 0x80 && s[2] == 0x80)
        return 3; /* U+3000 */
    return 0;
}

/* strings.TrimSpace */
static void trim_space(const char **s, size_t *n)
{
    const unsigned char *p = (const unsigned char *)*s;
    size_t len = *n, k;
    while ((k = space_len_at(p, len)) > 0) {
        p += k;
        len -= k;
    }
    for (;;) {
        bool cut = false;
        for (size_t back = 1; back <= 3 && back <= len; back++) {
            if (space_len_at(p + len - back, back) == back) {
                len -= back;
                cut = true;
                break;
            }
        }
        if (!cut)
            break;
    }
    *s = (const char *)p;
    *n = len;
}

static int qerr_code(enum qerr e)
{
    return e == QE_OK ? 0 : e == QE_RANGE ? GS_ERANGE : GS_EINVAL;
}

static enum qerr parse_any(const char *s, struct gs_quantity *q, bool trim)
{
    memset(q, 0, sizeof *q);
    if (!s)
        return QE_FORMAT;
    size_t n = strlen(s);
    if (trim)
        trim_space(&s, &n);
    enum qerr e = parse_quantity(s, n, q);
    if (e) {
        memset(q, 0, sizeof *q);
        q->is_int64 = true;
    }
    return e;
}

int gs_quantity_parse(const char *s, struct gs_quantity *q)
{
    return qerr_code(parse_any(s, q, true));
}

int gs_quantity_parse_strict(const char *s, struct gs_quantity *q)
{
    return qerr_code(parse_any(s, q, false));
}

const char *gs_quantity_parse_error(const char *s)
{
    struct gs_quantity q;
    return qerr_text[parse_any(s, &q, true)];
}

/* ---------------------------------------------------------------------------------------- */
/* Accessors                                                                                */
/* ---------------------------------------------------------------------------------------- */

int gs_quantity_sign(const struct gs_quantity *q)
{
    struct dn x;
    dn_from_quantity(&x, q);
    return dn_sign(&x);
}

int gs_quantity_cmp(const struct gs_quantity *a, const struct gs_quantity *b)
{
    struct dn x, y;
    dn_from_quantity(&x, a);
    dn_from_quantity(&y, b);
    return dn_cmp(&x, &y);
}

/* Is this the BinarySI inf.Dec that ParseQuantity capped at maxAllowed (2^63-1, scale 0)?
 * Every other non-zero inf.Dec from ParseQuantity has inf scale 9. */
static bool is_capped(const struct gs_quantity *q, const struct dn *x)
{
    if (q->is_int64 || q->format != GS_QF_BINARY_SI)
        return false;
    struct dn max;
    dn_from_i64(&max, INT64_MAX, 0);
    return dn_cmp_abs(x, &max) == 0;
}

int64_t gs_quantity_scaled(const struct gs_quantity *q, int32_t scale)
{
    struct dn x;
    dn_from_quantity(&x, q);
    if (x.nd == 0)
        return 0;
    uint64_t m;
    bool inexact;
    bool ok = dn_trunc_u64(&x, scale, &m, &inexact);

    if (q->is_int64 || !x.neg) {
        /* int64Amount.AsScaledInt64: negativeScaleInt64 rounds away from zero,
         * positiveScaleInt64 saturates on overflow. For a non-negative inf.Dec,
         * scaledValue's "result + 1 when a remainder is left" is the same ceiling. */
        if (ok && inexact) {
            if (m == UINT64_MAX)
                ok = false;
            else
                m++;
        }
        return sat_i64(x.neg, m, !ok);
    }

    /* Negative inf.Dec: scaledValue(unscaled, scale, newScale) of scale_int.go. */
    int64_t dec_scale = is_capped(q, &x) ? 0 : 9; /* upstream's inf scale */
    int64_t dif = dec_scale + (int64_t)scale; /* scale - newScale, newScale = -scale */
    if (dif <= 0)
        return sat_i64(true, m, !ok); /* exact (Int64() × 10^-dif), saturated */
    /* fast path when |unscaled| < MaxInt64 and dif < 19: truncate, then + 1 when inexact;
     * otherwise big.Int DivMod (Euclidean) + 1 when inexact, i.e. plain truncation. */
    uint64_t unscaled;
    bool uin;
    bool fits = dn_trunc_u64(&x, -dec_scale, &unscaled, &uin) && unscaled < (uint64_t)INT64_MAX;
    int64_t r = sat_i64(true, m, !ok);
    if (fits && dif < 19 && inexact && r < INT64_MAX)
        r += 1;
    return r;
}

int64_t gs_quantity_value(const struct gs_quantity *q)
{
    return gs_quantity_scaled(q, 0);
}

int64_t gs_quantity_milli(const struct gs_quantity *q)
{
    return gs_quantity_scaled(q, -3);
}

bool gs_quantity_round_up(struct gs_quantity *q, int32_t scale)
{
    if (q->is_int64) {
        /* avoid clearing the string value if we have already calculated it */
        if (q->scale >= scale)
            return true;
        q->canonical_input = false;
        struct dn x;
        dn_from_i64(&x, q->value, q->scale);
        bool exact = dn_round_away(&x, scale);
        /* negativeScaleInt64 result at the new scale: fits an int64 (it only shrinks, +1) */
        uint64_t m;
        bool inexact;
        dn_trunc_u64(&x, scale, &m, &inexact);
        q->value = sat_i64(x.neg, m, false);
        q->scale = scale;
        return exact;
    }
    q->canonical_input = false;
    struct dn x;
    dn_from_quantity(&x, q);
    bool exact = dn_round_away(&x, scale);
    q->negative = x.neg;
    q->dec_exp = x.exp;
    int nd = x.nd > GS_QUANTITY_DIGITS_MAX ? GS_QUANTITY_DIGITS_MAX : x.nd;
    memcpy(q->dec_digits, x.d, (size_t)nd);
    q->dec_digits[nd] = '\0';
    return exact;
}

/* ---------------------------------------------------------------------------------------- */
/* String (CanonicalizeBytes)                                                               */
/* ---------------------------------------------------------------------------------------- */

/* Append the base-10 canonical form (AsCanonicalBytes + suffix) of x in format fmt. */
static size_t canon10(const struct dn *xin, enum gs_qformat fmt, char *out)
{
    struct dn x = *xin;
    size_t k = 0;
    /* make sure the exponent is a multiple of 3 (always moving it down) */
    while (x.exp % 3 != 0) {
        x.d[x.nd++] = '0';
        x.exp--;
    }
    if (x.neg)
        out[k++] = '-';
    memcpy(out + k, x.d, (size_t)x.nd);
    k += (size_t)x.nd;
    if (fmt == GS_QF_DECIMAL_SI) {
        static const char *const si[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
        if (x.exp >= -9 && x.exp <= 18) {
            const char *s = si[(x.exp + 9) / 3];
            size_t sl = strlen(s);
            memcpy(out + k, s, sl);
            return k + sl;
        }
        /* no SI suffix: fall back to the exponent form (upstream PR #140459) */
    }
    if (x.exp != 0)
        k += (size_t)sprintf(out + k, "e%" PRId64, x.exp);
    return k;
}

static size_t canonical(const struct gs_quantity *q, char *out)
{
    struct dn x;
    dn_from_quantity(&x, q);
    if (x.nd == 0) {
        out[0] = '0';
        return 1;
    }
    enum gs_qformat fmt = q->format;
    if (fmt == GS_QF_BINARY_SI) {
        struct dn lim;
        dn_from_i64(&lim, 1024, 0);
        uint64_t m;
        bool inexact;
        if (dn_cmp_abs(&x, &lim) < 0) {
            fmt = GS_QF_DECIMAL_SI; /* -1024 < q < 1024 */
        } else if (!dn_trunc_u64(&x, 0, &m, &inexact) || inexact || m > (uint64_t)INT64_MAX) {
            fmt = GS_QF_DECIMAL_SI; /* don't lose precision */
        } else {
            int times = 0;
            while (m >= 1024 && m % 1024 == 0) {
                m /= 1024;
                times++;
            }
            static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
            return (size_t)sprintf(out, "%s%" PRIu64 "%s", x.neg ? "-" : "", m, times <= 6 ? bin[times] : "");
        }
    }
    return canon10(&x, fmt, out);
}

/* Big enough for any canonical form: sign, digits + 2 zeros, "e" and an int64. */
#define CANON_CAP (DN_CAP + 32)

int gs_quantity_string(const struct gs_quantity *q, char *buf, size_t n)
{
    if (q->canonical_input)
        return out_str(buf, n, q->text, strnlen(q->text, sizeof q->text));
    char tmp[CANON_CAP];
    size_t len = canonical(q, tmp);
    return out_str(buf, n, tmp, len);
}

static const char *format_name(enum gs_qformat f)
{
    switch (f) {
    case GS_QF_BINARY_SI:
        return "BinarySI";
    case GS_QF_DECIMAL_EXPONENT:
        return "DecimalExponent";
    case GS_QF_DECIMAL_SI:
    default:
        return "DecimalSI";
    }
}

int gs_quantity_godump(const struct gs_quantity *q, char *buf, size_t n)
{
    /* The cached string only ever holds characters of the quantity grammar, so Go's %#v
     * quoting of it is plain double quotes. */
    const char *s = q->canonical_input ? q->text : "";
    char tmp[GS_QUANTITY_TEXT_MAX + 256];
    int len;
    if (q->is_int64)
        len = snprintf(tmp, sizeof tmp,
                       "resource.Quantity{i:resource.int64Amount{value:%" PRId64 ", scale:%" PRId32
                       "}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"%s\", Format:\"%s\"}",
                       q->value, q->scale, s, format_name(q->format));
    else
        len = snprintf(tmp, sizeof tmp,
                       "resource.Quantity{i:resource.int64Amount{value:0, scale:0}, "
                       "d:resource.infDecAmount{Dec:(*inf.Dec)(0xc000010000)}, s:\"%s\", Format:\"%s\"}",
                       s, format_name(q->format));
    if (len < 0)
        len = 0;
    return out_str(buf, n, tmp, (size_t)len);
}

/* ---------------------------------------------------------------------------------------- */
/* Go durations                                                                             */
/* ---------------------------------------------------------------------------------------- */

#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)
#define NS_PER_S UINT64_C(1000000000)
#define NS_PER_M (UINT64_C(60) * NS_PER_S)
#define NS_PER_H (UINT64_C(3600) * NS_PER_S)

/* unitMap of time/format.go */
static uint64_t duration_unit(const char *u, size_t n)
{
    static const struct {
        const char *name;
        uint64_t ns;
    } units[] = {
        {"ns", 1},
        {"us", NS_PER_US},
        {"\xC2\xB5s", NS_PER_US}, /* U+00B5 micro sign */
        {"\xCE\xBCs", NS_PER_US}, /* U+03BC Greek small letter mu */
        {"ms", NS_PER_MS},
        {"s", NS_PER_S},
        {"m", NS_PER_M},
        {"h", NS_PER_H},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0)
            return units[i].ns;
    return 0;
}

int gs_duration_parse(const char *str, int64_t *us)
{
    if (!str)
        return GS_EINVAL;
    const char *s = str;
    const uint64_t lim = (uint64_t)1 << 63;
    uint64_t d = 0;
    bool neg = false;

    if (*s == '-' || *s == '+') {
        neg = *s == '-';
        s++;
    }
    if (strcmp(s, "0") == 0) {
        *us = 0;
        return 0;
    }
    if (*s == '\0')
        return GS_EINVAL;
    while (*s) {
        uint64_t v = 0, f = 0;
        double scale = 1;
        /* The next character must be [0-9.] */
        if (!(*s == '.' || is_digit(*s)))
            return GS_EINVAL;
        /* leadingInt */
        const char *start = s;
        for (; is_digit(*s); s++) {
            if (v > lim / 10)
                return GS_ERANGE;
            v = v * 10 + (uint64_t)(*s - '0');
            if (v > lim)
                return GS_ERANGE;
        }
        bool pre = s != start;
        bool post = false;
        if (*s == '.') {
            s++;
            /* leadingFraction: digits past int64 precision are skipped */
            const char *fs = s;
            bool overflow = false;
            for (; is_digit(*s); s++) {
                if (overflow)
                    continue;
                if (f > (lim - 1) / 10) {
                    overflow = true;
                    continue;
                }
                uint64_t y = f * 10 + (uint64_t)(*s - '0');
                if (y > lim) {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10;
            }
            post = s != fs;
        }
        if (!pre && !post)
            return GS_EINVAL; /* no digits, e.g. ".s" */
        /* Consume the unit: everything up to the next [0-9.] */
        const char *u = s;
        while (*s && *s != '.' && !is_digit(*s))
            s++;
        if (s == u)
            return GS_EINVAL; /* missing unit */
        uint64_t unit = duration_unit(u, (size_t)(s - u));
        if (unit == 0)
            return GS_EINVAL; /* unknown unit */
        if (v > lim / unit)
            return GS_ERANGE;
        v *= unit;
        if (f > 0) {
            /* float64 is needed to be nanosecond accurate for fractions of hours; the
             * product is below `unit`, so the conversion is in range */
            v += (uint64_t)((double)f * ((double)unit / scale));
            if (v > lim)
                return GS_ERANGE;
        }
        d += v;
        if (d > lim)
            return GS_ERANGE;
    }
    if (neg) {
        /* -Duration(d): d <= 2^63; truncate toward zero to microseconds */
        *us = -(int64_t)(d / NS_PER_US);
        return 0;
    }
    if (d > lim - 1)
        return GS_ERANGE;
    *us = (int64_t)(d / NS_PER_US);
    return 0;
}

/* fmtFrac: the fraction of v/10^prec without trailing zeros (and no point when zero),
 * written backwards ending at buf[w]. Returns the new w; *v becomes the integer part. */
static int fmt_frac(char *buf, int w, uint64_t *v, int prec)
{
    bool print = false;
    for (int i = 0; i < prec; i++) {
        int digit = (int)(*v % 10);
        print = print || digit != 0;
        if (print)
            buf[--w] = (char)('0' + digit);
        *v /= 10;
    }
    if (print)
        buf[--w] = '.';
    return w;
}

static int fmt_int(char *buf, int w, uint64_t v)
{
    if (v == 0) {
        buf[--w] = '0';
        return w;
    }
    while (v > 0) {
        buf[--w] = (char)('0' + (int)(v % 10));
        v /= 10;
    }
    return w;
}

int gs_duration_format(int64_t us, char *out, size_t n)
{
    /* Duration.format on us × 1000 ns, done in microseconds so no value overflows: the
     * nanosecond digits are always zero and fmtFrac drops trailing zeros anyway. */
    char buf[40];
    int w = (int)sizeof buf;
    bool neg = us < 0;
    uint64_t u = neg ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;

    if (u < UINT64_C(1000000)) {
        /* smaller than a second: use smaller units, like 1.2ms */
        buf[--w] = 's';
        if (u == 0) {
            buf[--w] = '0';
            return out_str(out, n, buf + w, sizeof buf - (size_t)w);
        }
        if (u < 1000) {
            buf[--w] = '\xB5'; /* U+00B5 micro sign, UTF-8 C2 B5 */
            buf[--w] = '\xC2';
            w = fmt_int(buf, w, u);
        } else {
            buf[--w] = 'm';
            w = fmt_frac(buf, w, &u, 3);
            w = fmt_int(buf, w, u);
        }
    } else {
        buf[--w] = 's';
        w = fmt_frac(buf, w, &u, 6);
        /* u is now integer seconds */
        w = fmt_int(buf, w, u % 60);
        u /= 60;
        if (u > 0) {
            buf[--w] = 'm';
            w = fmt_int(buf, w, u % 60);
            u /= 60;
            if (u > 0) {
                buf[--w] = 'h';
                w = fmt_int(buf, w, u);
            }
        }
    }
    if (neg)
        buf[--w] = '-';
    return out_str(out, n, buf + w, sizeof buf - (size_t)w);
}
