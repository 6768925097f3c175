/* libFuzzer target: the quantity and duration parsers (models/quantity.h).
 *
 * The input is parsed as a resource.Quantity (trimmed and strict) and as a Go duration. An
 * accepted quantity goes through every accessor (Value, MilliValue, ScaledValue at a few
 * scales, Sign, RoundUp, String, the Go dump) and must read back: String() parses again to
 * a quantity that compares equal (Cmp 0). An accepted duration must format (Duration.String)
 * to text that parses back to the same microseconds. A refused quantity must have upstream's
 * error text. Seeds: tests/fuzz/corpus/quantity (the strings of tests/unit/test_quantity.c);
 * dictionary: tests/fuzz/quantity.dict. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "models/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quantity(const char *s, bool strict)
{
    struct gs_quantity q;
    int rc = strict ? gs_quantity_parse_strict(s, &q) : gs_quantity_parse(s, &q);
    if (rc != 0) {
        if (!strict && !gs_quantity_parse_error(s))
            abort();
        return;
    }
    if (!strict && gs_quantity_parse_error(s))
        abort();
    static const int32_t scales[] = {-9, -3, 0, 3, 6, 18, 30};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++)
        (void)gs_quantity_scaled(&q, scales[i]);
    int64_t v = gs_quantity_value(&q), m = gs_quantity_milli(&q);
    int sign = gs_quantity_sign(&q);
    /* Rounding is away from zero, so the sign survives (but for upstream's quirk on a negative
     * inf.Dec amount, which may round towards zero, see gs_quantity_value). */
    if ((sign > 0 && (v <= 0 || m <= 0)) || (sign < 0 && q.is_int64 && (v >= 0 || m >= 0)) ||
        (sign == 0 && (v || m)))
        abort();
    char text[512], dump[1024];
    int n = gs_quantity_string(&q, text, sizeof text);
    if (n < 0 || (size_t)n >= sizeof text)
        abort();
    (void)gs_quantity_godump(&q, dump, sizeof dump);
    struct gs_quantity back;
    /* String() reads back, but where upstream's int32 scale arithmetic wraps (an exponent
     * near ±2^31: "1e-2147483648" is 10^2147483648) it prints an exponent that does not fit
     * the parser's int32, as upstream does. */
    int64_t top = q.is_int64 ? q.scale : q.dec_exp + (int64_t)strlen(q.dec_digits);
    if (top > -2000000000 && top < 2000000000 && gs_quantity_parse_strict(text, &back) == 0 &&
        gs_quantity_cmp(&q, &back) != 0) {
        fprintf(stderr, "fuzz: quantity \"%s\" prints as \"%s\", which reads back different\n", s, text);
        abort();
    }
    if (gs_quantity_cmp(&q, &q) != 0)
        abort();
    struct gs_quantity r = q;
    (void)gs_quantity_round_up(&r, -3);
    if (gs_quantity_cmp(&r, &q) * sign < 0) /* away from zero: never smaller in magnitude */
        abort();
    (void)gs_quantity_string(&r, text, sizeof text);
}

static void duration(const char *s)
{
    int64_t us;
    if (gs_duration_parse(s, &us) != 0)
        return;
    char text[64];
    int n = gs_duration_format(us, text, sizeof text);
    if (n <= 0 || (size_t)n >= sizeof text)
        abort();
    int64_t back;
    if (gs_duration_parse(text, &back) != 0 || back != us) {
        fprintf(stderr, "fuzz: duration \"%s\" = %lld us prints as \"%s\", which reads back different\n", s,
                (long long)us, text);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    if (!s)
        return 0;
    quantity(s, false);
    quantity(s, true);
    duration(s);
    gs_free(s);
    return 0;
}
