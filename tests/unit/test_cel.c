/* Unit tests for models/dra/cel_*.c: the CEL subset of DRA selectors.
 * Expected semantics from kubernetes dynamic-resource-allocation/cel/compile.go and
 * compile_test.go (missing domain = empty map, "no such key"), cel-go (error-absorbing
 * logic, heterogeneous equality) and the apiserver quantity/semver libraries. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/dra/cel.h"

/* An NVIDIA-like device: attributes in the driver's domain, memory 16Gi. */
static struct gs_device_attribute attrs[8];
static struct gs_device_capacity caps[2];
static struct gs_cel_device dev;

static void setup(void)
{
    memset(attrs, 0, sizeof attrs);
    attrs[0] = (struct gs_device_attribute){.name = "type", .kind = GS_ATTR_STRING, .s = "gpu"};
    attrs[1] = (struct gs_device_attribute){.name = "productName", .kind = GS_ATTR_STRING, .s = "Tesla T4"};
    attrs[2] = (struct gs_device_attribute){.name = "index", .kind = GS_ATTR_INT, .i = 3};
    attrs[3] = (struct gs_device_attribute){.name = "gpu.nvidia.com/healthy", .kind = GS_ATTR_BOOL, .b = true};
    attrs[4] = (struct gs_device_attribute){.name = "driverVersion", .kind = GS_ATTR_VERSION, .s = "580.159.4"};
    cr_assert_eq(gs_semver_parse(attrs[4].s, &attrs[4].v, NULL), 0);
    attrs[5] = (struct gs_device_attribute){.name = "resource.kubernetes.io/pcieRoot", .kind = GS_ATTR_STRING,
                                            .s = "pci0000:00"};
    caps[0].name = "memory";
    cr_assert_eq(gs_quantity_parse("16Gi", &caps[0].value), 0);
    caps[1].name = "example.com/slots";
    cr_assert_eq(gs_quantity_parse("4", &caps[1].value), 0);
    dev = (struct gs_cel_device){.driver = "gpu.nvidia.com", .attrs = attrs, .nattrs = 6, .caps = caps, .ncaps = 2};
}

TestSuite(cel, .init = setup);

/* Compile + evaluate; returns 1/0 for a match, -1 for a runtime error (text in err_out). */
static char err_out[512];
static int run(const char *expr)
{
    struct gs_cel_program *p = NULL;
    struct gs_error e = {0};
    int rc = gs_cel_compile(expr, &p, &e);
    cr_assert_eq(rc, 0, "compile(%s): %s", expr, e.msg);
    bool m = false;
    rc = gs_cel_eval(p, &dev, &m, err_out, sizeof err_out);
    gs_cel_free(p);
    return rc ? -1 : (int)m;
}

#define T(expr) cr_expect_eq(run(expr), 1, "%s should match (%s)", expr, err_out)
#define F(expr) cr_expect_eq(run(expr), 0, "%s should not match (%s)", expr, err_out)
#define RTERR(expr, msg)                                                                   \
    do {                                                                                   \
        cr_expect_eq(run(expr), -1, "%s should fail at runtime", expr);                    \
        cr_expect_str_eq(err_out, msg, "%s", expr);                                        \
    } while (0)

/* Compile error with message and column. */
static void bad(const char *expr, int col, const char *msg)
{
    struct gs_cel_program *p = (struct gs_cel_program *)1;
    struct gs_error e = {0};
    int rc = gs_cel_compile(expr, &p, &e);
    cr_expect_eq(rc, GS_EINVAL, "%s compiled", expr);
    cr_expect_null(p);
    cr_expect_eq(e.col, col, "%s: column %d, want %d (%s)", expr, e.col, col, e.msg);
    cr_expect_str_eq(e.msg, msg, "%s", expr);
}

Test(cel, literals_and_driver)
{
    T("true");
    F("false");
    T("device.driver == 'gpu.nvidia.com'");
    T("device.driver == \"gpu.nvidia.com\"");
    T("r'a\\b' == 'a\\\\b'");
    T("'it\\'s' == \"it's\"");
    T("1 == 1 && 0x10 == 16 && -3 < 0");
    T("1.5 > 1 && 2 > 1.5 && 2.0e0 == 2.0");
    T("1 <= 1.0"); /* cross-type numeric ordering */
}

Test(cel, every_comparison_operator)
{
    T("device.attributes['gpu.nvidia.com'].index == 3");
    T("device.attributes['gpu.nvidia.com'].index != 4");
    T("device.attributes['gpu.nvidia.com'].index < 4");
    T("device.attributes['gpu.nvidia.com'].index <= 3");
    T("device.attributes['gpu.nvidia.com'].index > 2");
    T("device.attributes['gpu.nvidia.com'].index >= 3");
    F("device.attributes['gpu.nvidia.com'].index > 3");
    T("'a' < 'b' && 'ab' > 'a' && false < true");
}

Test(cel, logic_and_precedence)
{
    T("true || false && false");   /* && binds tighter than || */
    F("(true || false) && false");
    T("!false");
    T("!!true");
    F("!(1 == 1)");
    T("!false == true");           /* ! binds tighter than == */
    T("1 < 2 == true");            /* relations are left-associative */
    T("true ? 1 == 1 : false");
    F("false ? true : 1 == 2");
}

Test(cel, attribute_lookups)
{
    T("device.attributes['gpu.nvidia.com'].productName == 'Tesla T4'");
    T("device.attributes[\"gpu.nvidia.com\"][\"productName\"] == 'Tesla T4'");
    T("device.attributes['gpu.nvidia.com'].type == 'gpu'");
    T("device.attributes['gpu.nvidia.com'].healthy");            /* qualified name, bool */
    T("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'");
    F("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'");
    F("device.attributes['gpu.nvidia.com'].index == '3'");       /* different types: false */
}

Test(cel, missing_attribute_is_an_error)
{
    RTERR("device.attributes['gpu.nvidia.com'].model == 'T4'", "no such key: model");
    /* An unknown domain is an empty map: the error names the id. */
    RTERR("device.attributes['other.com'].productName == 'x'", "no such key: productName");
    RTERR("device.capacity['gpu.nvidia.com'].cores.compareTo(quantity('1')) > 0", "no such key: cores");
    /* && and || absorb the error when the other side decides. */
    F("device.attributes['gpu.nvidia.com'].model == 'T4' && false");
    F("false && device.attributes['gpu.nvidia.com'].model == 'T4'");
    T("device.attributes['gpu.nvidia.com'].model == 'T4' || true");
    RTERR("device.attributes['gpu.nvidia.com'].model == 'T4' && true", "no such key: model");
    /* has() and `in` test presence without an error. */
    F("has(device.attributes['gpu.nvidia.com'].model)");
    T("has(device.attributes['gpu.nvidia.com'].productName)");
    T("'type' in device.attributes['gpu.nvidia.com']");
    F("'model' in device.attributes['gpu.nvidia.com']");
    T("'gpu.nvidia.com' in device.attributes");
    F("'other.com' in device.capacity");
    T("has(device.capacity['example.com'].slots)");
}

Test(cel, type_errors_at_runtime)
{
    RTERR("device.attributes['gpu.nvidia.com'].productName < 3", "no such overload");
    RTERR("device.attributes['gpu.nvidia.com'].productName && true", "no such overload");
    RTERR("device.attributes['gpu.nvidia.com'].index.startsWith('3')", "no such overload");
    RTERR("device.attributes['gpu.nvidia.com'].productName", "CEL result of type string could not be converted to bool");
}

Test(cel, in_list)
{
    T("device.attributes['gpu.nvidia.com'].productName in ['Tesla T4', 'NVIDIA L4']");
    F("device.attributes['gpu.nvidia.com'].productName in ['NVIDIA L4']");
    T("device.attributes['gpu.nvidia.com'].index in [1, 2, 3,]");
    F("3 in []");
    T("'b' in ['a', 'b']");
}

Test(cel, string_functions)
{
    T("device.attributes['gpu.nvidia.com'].productName.startsWith('Tesla')");
    T("device.attributes['gpu.nvidia.com'].productName.endsWith('T4')");
    T("device.attributes['gpu.nvidia.com'].productName.contains('la T')");
    F("device.attributes['gpu.nvidia.com'].productName.contains('H100')");
    T("'abc'.startsWith('') && 'abc'.endsWith('abc')");
    F("'ab'.endsWith('abc')");
}

Test(cel, quantities)
{
    T("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('8Gi')) >= 0");
    F("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('24Gi')) >= 0");
    T("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('16Gi')) == 0");
    T("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('17179869184')) == 0");
    T("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) == -1");
    T("device.capacity['gpu.nvidia.com'].memory == quantity('16384Mi')");
    T("device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('16.1Gi'))");
    T("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('15Gi'))");
    T("device.capacity['gpu.nvidia.com'].memory.sign() == 1");
    T("device.capacity['example.com'].slots == quantity('4')");
}

Test(cel, semver)
{
    T("device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('550.0.0'))");
    T("device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('580.159.4')) == 0");
    T("device.attributes['gpu.nvidia.com'].driverVersion.major() == 580");
    T("semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))");
    T("semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))");
    T("semver('1.0.0-2').isLessThan(semver('1.0.0-beta'))");
    T("semver('1.0.0+build.5') == semver('1.0.0')");
    struct gs_semver v;
    cr_expect_eq(gs_semver_parse("01.2.3", &v, NULL), GS_EINVAL);
    cr_expect_eq(gs_semver_parse("1.2", &v, NULL), GS_EINVAL);
}

Test(cel, malformed_expressions_have_positions)
{
    bad("device.driver == ", 18, "CEL: syntax error: unexpected end of expression at column 18");
    bad("(device.driver == 'x'", 22, "CEL: syntax error: expected ')', found end of expression at column 22");
    bad("device.driver = 'x'", 15, "CEL: syntax error: unexpected '=' (did you mean '=='?) at column 15");
    bad("device.driver == 'x", 18, "CEL: syntax error: unterminated string at column 18");
    bad("device.driver == 'x' &&", 24, "CEL: syntax error: unexpected end of expression at column 24");
    bad("device.driver == 'x' )", 22, "CEL: syntax error: unexpected ')' at column 22");
    bad("device.driver # 1", 15, "CEL: syntax error: unexpected character '#' at column 15");
    bad("'\\q' == 'q'", 2, "CEL: unsupported escape sequence '\\q' at column 2");
    bad("", 1, "CEL: syntax error: unexpected end of expression at column 1");
    /* Columns count characters, not bytes. */
    bad("'é' == x", 8, "CEL: undeclared reference to 'x' at column 8");
}

Test(cel, unsupported_features_are_refused)
{
    bad("device.driver.matches('^gpu')", 15, "CEL: unsupported function \"matches\" at column 15");
    bad("size(device.driver) > 0", 1, "CEL: unsupported function \"size\" at column 1");
    bad("device.attributes['d'].x + 1 > 2", 26, "CEL: unsupported operator '+' at column 26");
    bad("{'a': 1}['a'] == 1", 1, "CEL: unsupported expression: map and message literals at column 1");
    bad("x == 1", 1, "CEL: undeclared reference to 'x' at column 1");
    bad("device.name == 'gpu-0'", 8, "CEL: undefined field 'name' at column 8");
    bad("1u == 1u", 1, "CEL: unsupported literal: unsigned integers at column 1");
    bad("device.attributes['d'].x == null", 29, "CEL: unsupported literal: null at column 29");
    bad("quantity(device.driver) == quantity('1')", 10, "CEL: quantity() takes a string literal in gpusim at column 10");
    bad("quantity('1x') == quantity('1')", 10,
        "CEL: invalid quantity \"1x\": quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' at column 10");
}

Test(cel, static_type_errors)
{
    bad("device.driver == 1", 15, "CEL: found no matching overload for '_==_' applied to '(string, int)' at column 15");
    bad("device.capacity['d'].memory < quantity('1')", 29,
        "CEL: found no matching overload for '_<_' applied to '(kubernetes.Quantity, kubernetes.Quantity)' at column 29");
    bad("device.driver", 1, "CEL: must evaluate to bool or the unknown type, not string at column 1");
    bad("device.driver.compareTo(quantity('1')) == 0", 15,
        "CEL: found no matching overload for 'compareTo' applied to 'string.(kubernetes.Quantity)' at column 15");
    bad("1 in ['a']", 3, "CEL: found no matching overload for '@in' applied to '(int, list(string))' at column 3");
    bad("!1", 1, "CEL: found no matching overload for '!_' applied to '(int)' at column 1");
}

Test(cel, compile_once_evaluate_many)
{
    struct gs_cel_program *p;
    struct gs_error e = {0};
    const char *x = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('8Gi')) >= 0";
    cr_assert_eq(gs_cel_compile(x, &p, &e), 0, "%s", e.msg);
    cr_expect_str_eq(gs_cel_expression(p), x);
    for (int i = 0; i < 1000; i++) {
        bool m = false;
        cr_assert_eq(gs_cel_eval(p, &dev, &m, NULL, 0), 0);
        cr_assert(m);
    }
    gs_cel_free(p);
    gs_cel_free(NULL);
}

Test(cel, limits_and_odd_forms)
{
    char deep[256];
    int n = 0;
    for (int i = 0; i < 70; i++)
        deep[n++] = '(';
    n += snprintf(deep + n, sizeof deep - (size_t)n, "true");
    for (int i = 0; i < 70; i++)
        deep[n++] = ')';
    deep[n] = '\0';
    bad(deep, 65, "CEL: expression nested too deeply at column 65");
    bad("true ? 1 : 'a'", 6, "CEL: found no matching overload for '_?_:_' applied to '(bool, int, string)' at column 6");
    bad("device.attributes['d'].x.y == 1", 26,
        "CEL: field selection on a value of type 'dyn' is not supported at column 26");
}

/* Kubernetes caps a selector at 10 Ki bytes; a long but legal expression compiles quickly. */
Test(cel, length_limit)
{
    size_t n = GS_CEL_MAX_LENGTH + 1;
    char *e = malloc(n + 1);
    cr_assert(e);
    memset(e, ' ', n);
    memcpy(e, "true", 4);
    e[n] = '\0';
    struct gs_cel_program *p = NULL;
    struct gs_error err = {0};
    cr_assert_eq(gs_cel_compile(e, &p, &err), GS_EINVAL);
    cr_assert_null(p);
    cr_assert(strstr(err.msg, "must have at most 10240 bytes"), "%s", err.msg);
    /* 1279 terms of "true && " (8 bytes each) plus "true": just under the limit. */
    size_t k = 0;
    for (int i = 0; i < 1279; i++, k += 8)
        memcpy(e + k, "true && ", 8);
    memcpy(e + k, "true", 5);
    cr_assert_leq(strlen(e), (size_t)GS_CEL_MAX_LENGTH);
    cr_assert_eq(gs_cel_compile(e, &p, &err), 0, "%s", err.msg);
    gs_cel_free(p);
    /* A column far into the expression is still counted in characters. */
    memcpy(e + k, "tru$", 5);
    cr_assert_eq(gs_cel_compile(e, &p, &err), GS_EINVAL);
    cr_assert_eq(err.col, (int)k + 4, "col %d", err.col);
    free(e);
}
