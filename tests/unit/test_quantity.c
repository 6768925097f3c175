/* Unit tests for models/quantity.c: resource.Quantity and Go durations.
 * Expected values come from apimachinery's pkg/api/resource/quantity_test.go tables
 * (TestQuantityParse, TestQuantityString, TestQuantityParseEmit, TestQuantityRoundUp,
 * TestScaledValue, TestQuantityCmp) and Go's time package behaviour. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "models/quantity.h"

static struct gs_quantity P(const char *s)
{
    struct gs_quantity q;
    int rc = gs_quantity_parse(s, &q);
    cr_assert_eq(rc, 0, "parse(\"%s\") = %d", s, rc);
    return q;
}

static const char *S(const struct gs_quantity *q)
{
    static char buf[8][256];
    static int k;
    char *b = buf[k++ % 8];
    gs_quantity_string(q, b, 256);
    return b;
}

/* value × 10^scale as an int64Amount, for exact comparisons */
static struct gs_quantity amount(int64_t value, int32_t scale)
{
    struct gs_quantity q;
    memset(&q, 0, sizeof q);
    q.is_int64 = true;
    q.value = value;
    q.scale = scale;
    return q;
}

/* ---------------------------------------------------------------------------------------- */
/* Parsing                                                                                   */
/* ---------------------------------------------------------------------------------------- */

struct parse_case {
    const char *in;
    int64_t value;
    int32_t scale;
    enum gs_qformat format;
};

#define DSI GS_QF_DECIMAL_SI
#define BSI GS_QF_BINARY_SI
#define DEX GS_QF_DECIMAL_EXPONENT

/* apimachinery TestQuantityParse table (value as value × 10^scale, and the Format) */
static const struct parse_case parse_table[] = {
    {"0", 0, 0, DSI}, {"0n", 0, 0, DSI}, {"0u", 0, 0, DSI}, {"0m", 0, 0, DSI}, {"0Ki", 0, 0, BSI},
    {"0k", 0, 0, DSI}, {"0Mi", 0, 0, BSI}, {"0M", 0, 0, DSI}, {"0Gi", 0, 0, BSI}, {"0G", 0, 0, DSI},
    {"0Ti", 0, 0, BSI}, {"0T", 0, 0, DSI},
    {"1", 1, 0, DSI},
    {"1Ki", 1024, 0, BSI}, {"8Ki", 8 * 1024, 0, BSI}, {"7Mi", 7 * 1024 * 1024, 0, BSI},
    {"6Gi", 6LL * 1024 * 1024 * 1024, 0, BSI}, {"5Ti", 5LL * 1024 * 1024 * 1024 * 1024, 0, BSI},
    {"4Pi", 4LL * 1024 * 1024 * 1024 * 1024 * 1024, 0, BSI},
    {"3Ei", 3LL * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0, BSI},
    {"10Ti", 10LL * 1024 * 1024 * 1024 * 1024, 0, BSI}, {"100Ti", 100LL * 1024 * 1024 * 1024 * 1024, 0, BSI},
    {"5n", 5, -9, DSI}, {"4u", 4, -6, DSI}, {"3m", 3, -3, DSI}, {"9", 9, 0, DSI}, {"8k", 8, 3, DSI},
    {"50k", 5, 4, DSI}, {"7M", 7, 6, DSI}, {"6G", 6, 9, DSI}, {"5T", 5, 12, DSI}, {"40T", 4, 13, DSI},
    {"300T", 3, 14, DSI}, {"2P", 2, 15, DSI}, {"1E", 1, 18, DSI},
    {"1E-3", 1, -3, DEX}, {"1e3", 1, 3, DEX}, {"1E6", 1, 6, DEX}, {"1e9", 1, 9, DEX}, {"1E12", 1, 12, DEX},
    {"1e15", 1, 15, DEX}, {"1E18", 1, 18, DEX}, {"1e14", 1, 14, DEX}, {"1e13", 1, 13, DEX},
    {"100.035k", 100035, 0, DSI},
    {"0.001", 1, -3, DSI}, {"0.0005k", 5, -1, DSI}, {"0.005", 5, -3, DSI}, {"0.05", 5, -2, DSI},
    {"0.5", 5, -1, DSI}, {"0.00050k", 5, -1, DSI}, {"0.00500", 5, -3, DSI}, {"0.05000", 5, -2, DSI},
    {"0.50000", 5, -1, DSI}, {"0.5e0", 5, -1, DEX}, {"0.5e-1", 5, -2, DEX}, {"0.5e-2", 5, -3, DEX},
    {"10.035M", 10035, 3, DSI},
    {"1.2e3", 12, 2, DEX}, {"1.3E+6", 13, 5, DEX}, {"1.40e9", 14, 8, DEX}, {"1.53E12", 153, 10, DEX},
    {"1.6e15", 16, 14, DEX}, {"1.7E18", 17, 17, DEX},
    {"9.01", 901, -2, DSI}, {"8.1k", 81, 2, DSI}, {"7.123456M", 7123456, 0, DSI},
    {"6.987654321G", 6987654321, 0, DSI}, {"5.444T", 5444, 9, DSI}, {"40.1T", 401, 11, DSI},
    {"300.2T", 3002, 11, DSI}, {"2.5P", 25, 14, DSI}, {"1.01E", 101, 16, DSI},
    /* things that saturate or round */
    {"3.001n", 4, -9, DSI}, {"1.1E-9", 2, -9, DEX}, {"0.0000000001", 1, -9, DSI},
    {"0.0000000005", 1, -9, DSI}, {"0.00000000050", 1, -9, DSI}, {"0.5e-9", 1, -9, DEX},
    {"0.9n", 1, -9, DSI}, {"0.00000012345", 124, -9, DSI}, {"0.00000012354", 124, -9, DSI},
    {"9Ei", INT64_MAX, 0, BSI}, {"9223372036854775807Ki", INT64_MAX, 0, BSI}, {"12E", 12, 18, DSI},
    /* fractional binary */
    {"100.035Ki", 10243584, -2, BSI}, {"0.5Mi", 524288, 0, BSI}, {"0.05Gi", 536870912, -1, BSI},
    {"0.025Ti", 274877906944, -1, BSI},
    /* things written by trolls */
    {"0.000000000001Ki", 2, -9, DSI}, {".001", 1, -3, DSI}, {".0001k", 100, -3, DSI}, {"1.", 1, 0, DSI},
    {"1.G", 1, 9, DSI},
};

Test(quantity, parse_upstream_table)
{
    for (size_t i = 0; i < sizeof parse_table / sizeof parse_table[0]; i++) {
        const struct parse_case *c = &parse_table[i];
        struct gs_quantity q = P(c->in), want = amount(c->value, c->scale);
        cr_expect_eq(gs_quantity_cmp(&q, &want), 0, "%s: got %s", c->in, S(&q));
        cr_expect_eq(q.format, c->format, "%s: format %d", c->in, q.format);

        /* the negative of everything, with the same format */
        char buf[64];
        snprintf(buf, sizeof buf, "-%s", c->in);
        struct gs_quantity n = P(buf), nwant = amount(c->value == INT64_MIN ? 0 : -c->value, c->scale);
        cr_expect_eq(gs_quantity_cmp(&n, &nwant), 0, "%s: got %s", buf, S(&n));
        cr_expect_eq(n.format, c->format, "%s: format %d", buf, n.format);

        /* an explicit plus changes nothing */
        snprintf(buf, sizeof buf, "+%s", c->in);
        struct gs_quantity p = P(buf);
        cr_expect_eq(gs_quantity_cmp(&p, &want), 0, "%s: got %s", buf, S(&p));
        cr_expect_eq(p.format, c->format, "%s", buf);
    }
}

Test(quantity, parse_representation)
{
    /* int64Amount {value, scale} exactly as upstream builds it */
    struct gs_quantity q = P("500m");
    cr_assert(q.is_int64);
    cr_assert_eq(q.value, 500);
    cr_assert_eq(q.scale, -3);
    cr_assert(q.canonical_input);

    q = P("1.5");
    cr_assert(q.is_int64 && q.value == 15 && q.scale == -1 && !q.canonical_input);

    q = P("0.5");
    cr_assert(q.is_int64 && q.value == 5 && q.scale == -1 && !q.canonical_input);
    cr_assert_eq(q.format, GS_QF_DECIMAL_SI);

    q = P("16Gi");
    cr_assert(q.is_int64 && q.value == 17179869184LL && q.scale == 0);
    cr_assert_eq(q.format, GS_QF_BINARY_SI);
    cr_assert(!q.canonical_input); /* 16 & 7 == 0 */

    q = P("1e3");
    cr_assert(q.is_int64 && q.value == 1 && q.scale == 3 && q.canonical_input);
    cr_assert_eq(q.format, GS_QF_DECIMAL_EXPONENT);

    q = P("100M");
    cr_assert(q.is_int64 && q.value == 100 && q.scale == 6 && q.canonical_input);

    q = P("1Ti");
    cr_assert(q.is_int64 && q.value == 1099511627776LL && q.canonical_input);

    q = P("-1");
    cr_assert(q.is_int64 && q.value == -1 && q.scale == 0 && q.canonical_input);

    q = P(".5");
    cr_assert(q.is_int64 && q.value == 5 && q.scale == -1);

    q = P("1.");
    cr_assert(q.is_int64 && q.value == 1 && q.scale == 0 && q.canonical_input);

    /* 1000 ends in "000": not canonical input */
    q = P("1000");
    cr_assert(q.is_int64 && q.value == 1000 && !q.canonical_input);
}

Test(quantity, parse_strange_but_accepted)
{
    /* parseQuantityString returns "0" when only a sign or a point is left */
    const char *zeros[] = {"+", "-", ".", "-.", "00", "-0", "e3", "0.0Ki"};
    for (size_t i = 0; i < sizeof zeros / sizeof zeros[0]; i++) {
        struct gs_quantity q = P(zeros[i]);
        cr_expect_eq(gs_quantity_sign(&q), 0, "%s", zeros[i]);
        cr_expect_str_eq(S(&q), "0", "%s", zeros[i]);
    }
    struct gs_quantity q = P("e3");
    cr_assert_eq(q.format, GS_QF_DECIMAL_EXPONENT);
}

Test(quantity, parse_rejects_like_upstream)
{
    const char *format_wrong[] = {"", "abc", "1.5.5", "5 Gi", "1iB", "aoeu", "1.1.M", "1+1.0M",
                                  "1GB", "1e1.5", "Non-Numeric", "1,5", "0.1am"};
    for (size_t i = 0; i < sizeof format_wrong / sizeof format_wrong[0]; i++) {
        struct gs_quantity q;
        cr_expect_eq(gs_quantity_parse(format_wrong[i], &q), GS_EINVAL, "%s", format_wrong[i]);
        const char *msg = gs_quantity_parse_error(format_wrong[i]);
        cr_expect(msg && strcmp(msg, "quantities must match the regular expression "
                                     "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'") == 0,
                  "%s: %s", format_wrong[i], msg ? msg : "(null)");
    }
    const char *suffix_wrong[] = {"0.1mi", ".5i", "1i", "-3.01i", "-3.01e-", "1K", "1e",
                                  "1kk", "1Mi5", "1ki", "1ek", "1e99999999999999999999"};
    for (size_t i = 0; i < sizeof suffix_wrong / sizeof suffix_wrong[0]; i++) {
        struct gs_quantity q;
        cr_expect_eq(gs_quantity_parse(suffix_wrong[i], &q), GS_EINVAL, "%s", suffix_wrong[i]);
        cr_expect_str_eq(gs_quantity_parse_error(suffix_wrong[i]), "unable to parse quantity's suffix",
                         "%s", suffix_wrong[i]);
    }
    /* the inf.Dec path needs a digit: "e-20" has none */
    cr_expect_str_eq(gs_quantity_parse_error("e-20"), "unable to parse numeric part of quantity");
    cr_expect_null(gs_quantity_parse_error("1Gi"));
    struct gs_quantity q;
    cr_expect_eq(gs_quantity_parse(NULL, &q), GS_EINVAL);
}

Test(quantity, whitespace)
{
    struct gs_quantity q;
    /* ParseQuantity itself forbids it ... */
    cr_expect_eq(gs_quantity_parse_strict(" 1", &q), GS_EINVAL);
    cr_expect_eq(gs_quantity_parse_strict("1 ", &q), GS_EINVAL);
    cr_expect_eq(gs_quantity_parse_strict("1", &q), 0);
    /* ... but UnmarshalJSON trims, which is what the API server runs */
    cr_expect_eq(gs_quantity_parse(" 1", &q), 0);
    cr_expect_str_eq(S(&q), "1");
    cr_expect_eq(gs_quantity_parse("\t2Gi\n", &q), 0);
    cr_expect_str_eq(S(&q), "2Gi");
    cr_expect_eq(gs_quantity_parse("\xC2\xA0" "3\xE2\x80\x83", &q), 0); /* NBSP, EM SPACE */
    cr_expect_eq(gs_quantity_value(&q), 3);
    cr_expect_eq(gs_quantity_parse("   ", &q), GS_EINVAL);
    cr_expect_eq(gs_quantity_parse("5 Gi", &q), GS_EINVAL); /* inner space stays an error */
}

Test(quantity, too_long_is_range_error)
{
    char big[300];
    memset(big, '1', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    struct gs_quantity q;
    cr_expect_eq(gs_quantity_parse(big, &q), GS_ERANGE);
    cr_expect_eq(q.is_int64, true);
    cr_expect_eq(gs_quantity_sign(&q), 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Values                                                                                    */
/* ---------------------------------------------------------------------------------------- */

Test(quantity, value_and_milli_round_up)
{
    struct {
        const char *in;
        int64_t value, milli;
    } t[] = {
        {"500m", 1, 500},
        {"1.5", 2, 1500},
        {"16Gi", 17179869184LL, 17179869184000LL},
        {"1e3", 1000, 1000000},
        {"100M", 100000000, 100000000000LL},
        {"0.5", 1, 500},
        {"1Ti", 1099511627776LL, 1099511627776000LL},
        {"2", 2, 2000},
        {"-1", -1, -1000},
        {"+1", 1, 1000},
        {".5", 1, 500},
        {"1.", 1, 1000},
        {"0.0001", 1, 1},
        {"-0.5", -1, -500},
        {"-1.5", -2, -1500},
        {"1n", 1, 1},
        {"1500m", 2, 1500},
        {"0", 0, 0},
        {"9.01", 10, 9010},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct gs_quantity q = P(t[i].in);
        cr_expect_eq(gs_quantity_value(&q), t[i].value, "%s value %" PRId64, t[i].in, gs_quantity_value(&q));
        cr_expect_eq(gs_quantity_milli(&q), t[i].milli, "%s milli %" PRId64, t[i].in, gs_quantity_milli(&q));
    }
}

Test(quantity, scaled_value_upstream_table)
{
    /* TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to) */
    struct {
        int32_t from, to;
        int64_t want;
    } t[] = {
        {-9, -9, 1}, {-9, -6, 1}, {-9, -3, 1}, {-9, 0, 1}, {-6, -9, 1000}, {-6, -6, 1},
        {-6, -3, 1}, {-6, 0, 1}, {-3, -9, 1000000}, {-3, -6, 1000}, {-3, -3, 1}, {-3, 0, 1},
        {0, -9, 1000000000}, {0, -6, 1000000}, {0, -3, 1000}, {0, 0, 1}, {2, -2, 10000},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct gs_quantity q = amount(1, t[i].from);
        cr_expect_eq(gs_quantity_scaled(&q, t[i].to), t[i].want, "%d -> %d", t[i].from, t[i].to);
    }
}

Test(quantity, overflow_saturates)
{
    struct gs_quantity q = P("9999999999999999999"); /* 19 digits: inf.Dec in 1.34 */
    cr_assert(!q.is_int64);
    cr_expect_eq(gs_quantity_value(&q), INT64_MAX);
    cr_expect_eq(gs_quantity_milli(&q), INT64_MAX);
    cr_expect_str_eq(S(&q), "9999999999999999999");

    q = P("-9999999999999999999");
    cr_expect_eq(gs_quantity_value(&q), INT64_MIN);
    cr_expect_str_eq(S(&q), "-9999999999999999999");

    q = P("1e100"); /* an int64Amount {1, 100} */
    cr_assert(q.is_int64 && q.value == 1 && q.scale == 100);
    cr_expect_eq(gs_quantity_value(&q), INT64_MAX);
    cr_expect_str_eq(S(&q), "10e99");

    q = P("123456789012345678901234567890m");
    cr_assert(!q.is_int64);
    cr_expect_eq(gs_quantity_value(&q), INT64_MAX);
    cr_expect_str_eq(S(&q), "123456789012345678901234567890m");

    q = P("1E"); /* 10^18 fits, its milli value does not */
    cr_expect_eq(gs_quantity_value(&q), 1000000000000000000LL);
    cr_expect_eq(gs_quantity_milli(&q), INT64_MAX);

    q = P("9223372036854775807"); /* MaxInt64 itself is an inf.Dec in 1.34 (issue #135487) */
    cr_assert(!q.is_int64);
    cr_expect_eq(gs_quantity_value(&q), INT64_MAX);
    q = P("999999999999999999"); /* 18 digits stay int64 */
    cr_assert(q.is_int64);

    q = P("9Ei"); /* binary SI is capped at 2^63-1 */
    cr_expect_eq(gs_quantity_value(&q), INT64_MAX);
    cr_expect_str_eq(S(&q), "9223372036854775807");
    cr_expect_eq(q.format, GS_QF_BINARY_SI);

    q = P("1e2147483647");
    cr_expect_eq(gs_quantity_value(&q), INT64_MAX);
    q = P("-1e2147483647");
    cr_expect_eq(gs_quantity_value(&q), INT64_MIN);
    q = P("1e-2147483648"); /* Go's int32 arithmetic wraps this to 10^(2^31) */
    cr_expect_eq(gs_quantity_sign(&q), 1);
    cr_expect_eq(gs_quantity_value(&q), INT64_MAX);
}

Test(quantity, negative_inf_dec_rounding_quirk)
{
    /* scale_int.go's fast path truncates and then adds one when inexact, so a tiny negative
     * inf.Dec value rounds to +1 (upstream behaviour, kept). */
    struct gs_quantity q = P("-0.0000000015");
    cr_assert(!q.is_int64);
    cr_expect_str_eq(S(&q), "-2n");
    cr_expect_eq(gs_quantity_value(&q), 1);
    cr_expect_eq(gs_quantity_milli(&q), 1);
}

Test(quantity, compare)
{
    struct {
        const char *a, *b;
        int want;
    } t[] = {
        {"0", "0", 0}, {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1},
        {"1", "1000m", 0}, {"1Gi", "1024Mi", 0}, {"1k", "1000", 0}, {"1e3", "1k", 0},
        {"1.5", "2", -1}, {"-1", "0", -1}, {"9999999999999999999", "1E", 1},
        {"1e100", "9999999999999999999", 1}, {"1n", "0", 1}, {"0.5Ki", "512", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct gs_quantity a = P(t[i].a), b = P(t[i].b);
        cr_expect_eq(gs_quantity_cmp(&a, &b), t[i].want, "%s vs %s", t[i].a, t[i].b);
        cr_expect_eq(gs_quantity_cmp(&b, &a), -t[i].want, "%s vs %s", t[i].b, t[i].a);
    }
}

Test(quantity, round_up_upstream_table)
{
    /* TestQuantityRoundUp */
    struct {
        const char *in;
        int32_t scale;
        int64_t value;
        int32_t vscale;
        bool exact;
    } t[] = {
        {"9.01", -3, 901, -2, true},   {"9.01", -2, 901, -2, true},   {"9.01", -1, 91, -1, false},
        {"9.01", 0, 10, 0, false},     {"9.01", 1, 10, 0, false},     {"9.01", 2, 100, 0, false},
        {"-9.01", -3, -901, -2, true}, {"-9.01", -2, -901, -2, true}, {"-9.01", -1, -91, -1, false},
        {"-9.01", 0, -10, 0, false},   {"-9.01", 1, -10, 0, false},   {"-9.01", 2, -100, 0, false},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct gs_quantity q = P(t[i].in), want = amount(t[i].value, t[i].vscale);
        cr_expect_eq(gs_quantity_round_up(&q, t[i].scale), t[i].exact, "%s %d", t[i].in, t[i].scale);
        cr_expect_eq(gs_quantity_cmp(&q, &want), 0, "%s %d: %s", t[i].in, t[i].scale, S(&q));
    }
    /* the milli rounding of SetDefaults_ResourceList */
    struct gs_quantity q = P("0.0001");
    cr_expect(!gs_quantity_round_up(&q, -3));
    cr_expect(q.is_int64 && q.value == 1 && q.scale == -3);
    q = P("500m");
    cr_expect(gs_quantity_round_up(&q, -3));
    cr_expect(q.canonical_input); /* unchanged scale keeps the cached string */
    q = P("1500u");
    cr_expect(!gs_quantity_round_up(&q, -3));
    cr_expect_str_eq(S(&q), "2m");
    q = P("1.5n"); /* inf.Dec */
    cr_expect(!gs_quantity_round_up(&q, -3));
    cr_expect_str_eq(S(&q), "1m");
}

/* ---------------------------------------------------------------------------------------- */
/* String and the Go dump                                                                    */
/* ---------------------------------------------------------------------------------------- */

Test(quantity, canonical_strings)
{
    struct {
        const char *in, *out;
    } t[] = {
        {"1.5", "1500m"},     {"1024Mi", "1Gi"},    {"1000", "1k"},        {"0.5", "500m"},
        {"1e3", "1e3"},       {"2", "2"},           {"3", "3"},            {"500m", "500m"},
        {"16Gi", "16Gi"},     {"100M", "100M"},     {"1Ti", "1Ti"},        {"-1", "-1"},
        {"+1", "+1"},         {".5", "500m"},       {"1.", "1."},          {"0", "0"},
        {"1.5Gi", "1536Mi"},  {"0.5Ki", "512"},     {"1Ei", "1Ei"},        {"8Ki", "8Ki"},
        {"1000M", "1G"},      {".001Ki", "1024m"},  {".000001Ki", "1024u"}, {".000000001Ki", "1024n"},
        {".000000000001Ki", "2n"}, {"1.500", "1.500"}, {"01Ki", "01Ki"},   {"12E", "12E"},
        {"1000E", "1e21"},    {"5000E", "5e21"},    {"1E", "1E"},          {"1.5n", "2n"},
        /* TestQuantityString alternates: canonical form of non-canonical input */
        {"307200Ki", "300Mi"}, {"1025024Mi", "1001Gi"}, {"1024Gi", "1Ti"}, {"0.001T", "1G"},
        {"1000u", "1m"},      {"1.08", "1080m"},    {"1080000000n", "1080m"}, {".001e12", "1e9"},
        {"0.001e0", "1e-3"},  {"1000e-12", "1e-9"}, {"00", "0"},           {"1000000E", "1e24"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct gs_quantity q = P(t[i].in);
        cr_expect_str_eq(S(&q), t[i].out, "%s", t[i].in);
    }
    /* canonical forms are cached verbatim on parse (TestQuantityString) */
    const char *canon[] = {"1Gi", "300Mi", "6Ki", "1001Gi", "1Ti", "5", "500m", "1G", "1m", "80m",
                           "1080m", "300M", "1T", "1E", "1234567M", "1234567m", "3k", "1025", "0",
                           "1e9", "1e-3", "1e-9", "80e-3", "300e6", "1e12", "1e3", "3e3", "1n",
                           "80n", "1080n", "1u", "80u", "1080u"};
    for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
        struct gs_quantity q = P(canon[i]);
        cr_expect(q.canonical_input, "%s", canon[i]);
        cr_expect_str_eq(S(&q), canon[i]);
    }
    /* negatives print with a sign (TestQuantityParseEmit) */
    struct gs_quantity q = P("-1024Mi");
    cr_expect_str_eq(S(&q), "-1Gi");
    q = P("-.000000000001Ki");
    cr_expect_str_eq(S(&q), "-2n");
}

Test(quantity, string_truncates_like_snprintf)
{
    struct gs_quantity q = P("1500m");
    char b[4];
    cr_expect_eq(gs_quantity_string(&q, b, sizeof b), 5);
    cr_expect_str_eq(b, "150");
    cr_expect_eq(gs_quantity_string(&q, NULL, 0), 5);
}

Test(quantity, go_dump)
{
    char d[512];
    struct gs_quantity q = P("0.5");
    gs_quantity_godump(&q, d, sizeof d);
    cr_expect_str_eq(d, "resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}");
    q = P("1500m");
    gs_quantity_godump(&q, d, sizeof d);
    cr_expect_str_eq(d, "resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1500m\", Format:\"DecimalSI\"}");
    q = P("0");
    gs_quantity_godump(&q, d, sizeof d);
    cr_expect_str_eq(d, "resource.Quantity{i:resource.int64Amount{value:0, scale:0}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"0\", Format:\"DecimalSI\"}");
    q = P("1Ki");
    gs_quantity_godump(&q, d, sizeof d);
    cr_expect_str_eq(d, "resource.Quantity{i:resource.int64Amount{value:1024, scale:0}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1Ki\", Format:\"BinarySI\"}");
    q = P("1.5e3");
    gs_quantity_godump(&q, d, sizeof d);
    cr_expect_str_eq(d, "resource.Quantity{i:resource.int64Amount{value:15, scale:2}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalExponent\"}");
    q = P("1.5Gi"); /* an inf.Dec: the pointer is a placeholder */
    gs_quantity_godump(&q, d, sizeof d);
    cr_expect_str_eq(d, "resource.Quantity{i:resource.int64Amount{value:0, scale:0}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(0xc000010000)}, s:\"\", Format:\"BinarySI\"}");
    cr_expect_eq(gs_quantity_godump(&q, NULL, 0), (int)strlen(d));
}

/* ---------------------------------------------------------------------------------------- */
/* Durations                                                                                 */
/* ---------------------------------------------------------------------------------------- */

static int64_t D(const char *s)
{
    int64_t us = -777;
    int rc = gs_duration_parse(s, &us);
    cr_assert_eq(rc, 0, "duration \"%s\": %d", s, rc);
    return us;
}

static const char *F(int64_t us)
{
    static char buf[4][64];
    static int k;
    char *b = buf[k++ % 4];
    gs_duration_format(us, b, 64);
    return b;
}

Test(duration, parse)
{
    cr_expect_eq(D("90s"), 90000000);
    cr_expect_eq(D("1h30m"), 5400000000LL);
    cr_expect_eq(D("250ms"), 250000);
    cr_expect_eq(D("0s"), 0);
    cr_expect_eq(D("0"), 0);
    cr_expect_eq(D("-0"), 0);
    cr_expect_eq(D("+0"), 0);
    cr_expect_eq(D("1.5h"), 5400000000LL);
    cr_expect_eq(D("-5m"), -300000000);
    cr_expect_eq(D("1us"), 1);
    cr_expect_eq(D("1\xC2\xB5s"), 1); /* U+00B5 micro sign */
    cr_expect_eq(D("1\xCE\xBCs"), 1); /* U+03BC mu */
    cr_expect_eq(D("+2h"), 7200000000LL);
    cr_expect_eq(D("3h2m1.5s"), 10921500000LL);
    cr_expect_eq(D(".5s"), 500000);
    cr_expect_eq(D("1.s"), 1000000);
    cr_expect_eq(D("1500ns"), 1);  /* nanoseconds are truncated */
    cr_expect_eq(D("1999ns"), 1);
    cr_expect_eq(D("-1999ns"), -1); /* toward zero */
    cr_expect_eq(D("1.5ns"), 0);
    cr_expect_eq(D("1h1h"), 7200000000LL);
    cr_expect_eq(D("1.0000000000000000000001h"), 3600000000LL); /* excess fraction digits skipped */
    cr_expect_eq(D("2562047h47m16.854775807s"), 9223372036854775LL);
    cr_expect_eq(D("-2562047h47m16.854775808s"), -9223372036854775LL);
}

Test(duration, parse_errors)
{
    const char *bad[] = {"", "1", "1x", ".", ".s", "-.s", "1h 30m", "-", "+", "00", "h", "1.5",
                         "1hh", "1 h", "s", "1e3s", "--1s", "1s-1s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t us = 42;
        cr_expect_eq(gs_duration_parse(bad[i], &us), GS_EINVAL, "%s", bad[i]);
        cr_expect_eq(us, 42, "%s: output untouched", bad[i]);
    }
    int64_t us;
    cr_expect_eq(gs_duration_parse(NULL, &us), GS_EINVAL);
    const char *overflow[] = {"2562047h47m16.854775808s", "9223372036854775808ns",
                              "100000000000000000000ns", "3000000h", "2562048h",
                              "9223372036854775807s"};
    for (size_t i = 0; i < sizeof overflow / sizeof overflow[0]; i++)
        cr_expect_eq(gs_duration_parse(overflow[i], &us), GS_ERANGE, "%s", overflow[i]);
}

Test(duration, format)
{
    cr_expect_str_eq(F(0), "0s");
    cr_expect_str_eq(F(1), "1\xC2\xB5s");
    cr_expect_str_eq(F(999), "999\xC2\xB5s");
    cr_expect_str_eq(F(1000), "1ms");
    cr_expect_str_eq(F(1500), "1.5ms");
    cr_expect_str_eq(F(250000), "250ms");
    cr_expect_str_eq(F(999999), "999.999ms");
    cr_expect_str_eq(F(1000000), "1s");
    cr_expect_str_eq(F(1500000), "1.5s");
    cr_expect_str_eq(F(90000000), "1m30s");
    cr_expect_str_eq(F(5400000000LL), "1h30m0s");
    cr_expect_str_eq(F(-300000000), "-5m0s");
    cr_expect_str_eq(F(3600000001LL), "1h0m0.000001s");
    cr_expect_str_eq(F(INT64_MAX), "2562047788h0m54.775807s");
    cr_expect_str_eq(F(INT64_MIN), "-2562047788h0m54.775808s");
    char b[3];
    cr_expect_eq(gs_duration_format(5400000000LL, b, sizeof b), 7);
    cr_expect_str_eq(b, "1h");
}

Test(duration, round_trip)
{
    const char *in[] = {"90s", "1h30m", "250ms", "0s", "1.5h", "-5m", "1us", "1µs", "36h",
                        "1h0m0.000001s", "2562047h47m16.854775s", "-2562047h47m16.854775s"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        int64_t a = D(in[i]);
        int64_t b = D(F(a));
        cr_expect_eq(a, b, "%s -> %s", in[i], F(a));
    }
    /* every formatted value parses back to itself */
    int64_t v[] = {0, 1, 7, 999, 1000, 1001, 123456, 1000000, 59999999, 60000000, 3599999999LL,
                   3600000000LL, 86400000000LL, -1, -1234567};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        cr_expect_eq(D(F(v[i])), v[i], "%" PRId64 " -> %s", v[i], F(v[i]));
}
