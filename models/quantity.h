/* gpusim: Kubernetes resource.Quantity and Go duration parsing, exactly as upstream.
 *
 * Follows kubernetes/apimachinery pkg/api/resource/quantity.go (ParseQuantity,
 * parseQuantityString, Quantity.Value, Quantity.MilliValue, ScaledValue, RoundUp, Cmp,
 * Quantity.String / CanonicalizeBytes), amount.go (int64Amount, infDecAmount), math.go,
 * scale_int.go and suffix.go as released with Kubernetes 1.34 (maxInt64Factors = 18), and
 * Go's time.ParseDuration / time.Duration.String (src/time/format.go, time.go).
 *
 * Every function here is pure: no allocation, no I/O, no global state.
 */
#ifndef GPUSIM_QUANTITY_H
#define GPUSIM_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gs_qformat { GS_QF_DECIMAL_SI, GS_QF_BINARY_SI, GS_QF_DECIMAL_EXPONENT };

/* Longest quantity text accepted, in bytes, including the NUL. Upstream has no limit; a longer
 * string is refused with GS_ERANGE (never silently truncated). */
#define GS_QUANTITY_TEXT_MAX 128
/* Significant decimal digits kept for a quantity that does not fit an int64Amount (upstream
 * inf.Dec, unbounded). A value needing more digits after parsing is refused with GS_ERANGE. */
#define GS_QUANTITY_DIGITS_MAX 96

/* A parsed quantity, a plain value (copy it freely; it owns no memory).
 *
 * When `is_int64` the value is exactly value × 10^scale: upstream's int64Amount {value, scale}
 * with d.Dec == nil. Otherwise upstream holds an inf.Dec (the number has more than 18
 * significant digits, is finer than a nanounit, or is a fractional or very large binary-SI
 * amount such as "1.5Gi" or "9Ei"); the exact value is then
 *   (negative ? -1 : 1) × dec_digits × 10^dec_exp
 * with dec_digits the significant digits (no leading or trailing zeros; "" for zero).
 * `value`/`scale` are 0 in that case, as upstream's i field is.
 *
 * `text` is the string that was parsed (after trimming, see gs_quantity_parse).
 * `canonical_input` is true when upstream caches that input as the Quantity's s field, so that
 * String() returns it verbatim ("1500m", "+1", "1." and "1.500" all do) and the Go dump
 * shows it (s:"1500m"). A zero-filled struct is the Go zero Quantity's value (0).
 */
struct gs_quantity {
    int64_t value;
    int32_t scale;
    bool is_int64;
    enum gs_qformat format;
    bool canonical_input;
    char text[GS_QUANTITY_TEXT_MAX];
    /* inf.Dec case only (is_int64 false): sign, significant digits and base-10 exponent. */
    bool negative;
    int64_t dec_exp;
    char dec_digits[GS_QUANTITY_DIGITS_MAX + 1];
};

/* Parse a quantity as the API server does when it decodes a manifest: Quantity.UnmarshalJSON
 * trims Unicode white space (strings.TrimSpace) and then calls resource.ParseQuantity, so
 * " 2Gi " is accepted here. The quantity text of an unquoted YAML number is its text ("0.5").
 * `q` is always written (zeroed on error). Returns 0; GS_EINVAL for every string upstream
 * rejects (NULL, "", "abc", "1.5.5", "5 Gi", "1iB", "1K", "1e", ...), see
 * gs_quantity_parse_error for upstream's message; GS_ERANGE when the text is longer than
 * GS_QUANTITY_TEXT_MAX - 1 bytes or needs more than GS_QUANTITY_DIGITS_MAX digits (upstream
 * would accept it). */
int gs_quantity_parse(const char *s, struct gs_quantity *q);

/* resource.ParseQuantity itself, without the white-space trimming of UnmarshalJSON
 * (" 1" and "1 " are rejected, as upstream's TestQuantityParse requires). Same returns. */
int gs_quantity_parse_strict(const char *s, struct gs_quantity *q);

/* Upstream's error text for a quantity string that gs_quantity_parse rejects, or NULL when it
 * is accepted. One of ErrFormatWrong "quantities must match the regular expression
 * '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", ErrSuffix "unable to parse quantity's
 * suffix", ErrNumeric "unable to parse numeric part of quantity", or (gpusim's own limit)
 * "quantity is too long or too precise for gpusim". Static storage. */
const char *gs_quantity_parse_error(const char *s);

/* Quantity.Value(): ScaledValue(0), the value rounded to an integer away from zero ("0.5" -> 1,
 * "1.2" -> 2, "-1.5" -> -2). Upstream's result is undefined when it does not fit an int64; here
 * it saturates at INT64_MAX / INT64_MIN. For a negative inf.Dec amount the upstream rounding
 * quirk of scale_int.go (truncate, then add one when inexact) is reproduced. */
int64_t gs_quantity_value(const struct gs_quantity *q);

/* Quantity.MilliValue(): ScaledValue(Milli), value × 1000 rounded the same way ("0.0001" -> 1,
 * "1.5" -> 1500, "1" -> 1000). Saturates like gs_quantity_value. */
int64_t gs_quantity_milli(const struct gs_quantity *q);

/* Quantity.ScaledValue(scale): the value in units of 10^scale, rounded as above and saturated.
 * gs_quantity_value is scale 0, gs_quantity_milli is scale -3. */
int64_t gs_quantity_scaled(const struct gs_quantity *q, int32_t scale);

/* Quantity.Sign(): -1, 0 or 1. */
int gs_quantity_sign(const struct gs_quantity *q);

/* Quantity.RoundUp(scale): round the value away from zero to a multiple of 10^scale, in place,
 * clearing the cached string when the value's scale changes (as upstream). Returns true when no
 * precision was lost. The API server applies RoundUp(-3) to every ResourceList entry while
 * decoding (SetDefaults_ResourceList in pkg/apis/core/v1/defaults.go). */
bool gs_quantity_round_up(struct gs_quantity *q, int32_t scale);

/* Quantity.String(): the cached input when `canonical_input`, else the canonical form
 * (CanonicalizeBytes): "1.5" -> "1500m", "1024Mi" -> "1Gi", "1000" -> "1k", "0.5" -> "500m",
 * "1e3" -> "1e3", "1.5Gi" -> "1536Mi", "0" -> "0". A DecimalSI amount beyond the "E" suffix is
 * written in exponent form ("1000E" -> "1e21"), as upstream since PR #140459 (2026); Kubernetes
 * 1.34 wrote the bare mantissa ("1"), a bug. Writes at most `n` bytes including the NUL
 * (`buf` may be NULL when n is 0). Returns the length it wanted (like snprintf). */
int gs_quantity_string(const struct gs_quantity *q, char *buf, size_t n);

/* The Go "%#v" dump of the Quantity value, as apimachinery's field.Invalid renders a Quantity
 * passed by value (field/errors.go ErrorBody, before PR #132314), e.g. for "0.5":
 * resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}
 * For an inf.Dec amount upstream prints a heap address, which cannot be reproduced; gpusim
 * prints (*inf.Dec)(0xc000010000). Returns the length it wanted (like snprintf). */
int gs_quantity_godump(const struct gs_quantity *q, char *buf, size_t n);

/* Quantity.Cmp: exact comparison of the two values, <0, 0 or >0 (-1, 0, 1). */
int gs_quantity_cmp(const struct gs_quantity *a, const struct gs_quantity *b);

/* Go time.ParseDuration, truncated toward zero to whole microseconds: "90s", "1h30m",
 * "250ms", "1.5h", "0", "-5m", "1us", "1µs" (U+00B5 or U+03BC), "+2h". Units ns us µs μs ms s
 * m h; a sign applies to the whole string; "0" alone needs no unit. `*us` is written only on
 * success. Returns 0; GS_EINVAL for a malformed string (NULL, "", "1", "1x", ".", "1h 30m",
 * "-"); GS_ERANGE when the value overflows Go's int64 nanoseconds (beyond about 2562047h47m). */
int gs_duration_parse(const char *s, int64_t *us);

/* Format microseconds as Go's Duration.String() does for us × 1000 ns: "1h30m0s", "250ms",
 * "1.5s", "1µs", "0s", "-5m0s". The micro sign is U+00B5 in UTF-8. Works for every int64,
 * including INT64_MIN. Writes at most `n` bytes including the NUL (`buf` may be NULL when n is
 * 0). Returns the length it wanted (like snprintf). */
int gs_duration_format(int64_t us, char *buf, size_t n);

#endif
