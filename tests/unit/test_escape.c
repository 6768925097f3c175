/* Input quoted in an error message is escaped (gs_error_quote, base/error.h), in every parser
 * where the reliability pass or the fuzz targets (tests/fuzz) found raw bytes echoed: the openb
 * CSV readers, jansson's syntax errors under the kubectl snapshot reader, CEL compile and run
 * time errors, and SQLite's messages about a damaged trace. Each case is the fixed behaviour
 * of a fuzz finding whose input is kept in tests/fuzz/corpus/. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "models/dra/cel.h"
#include "models/openb.h"
#include "reports/report.h"
#include "sim/scenario/json.h"

/* CSV: a field with 0xff (not UTF-8) or a control character; a 40-byte cut never splits a
 * character. */
Test(escape, openb_fields)
{
    struct gs_openb_models m = {0};
    struct gs_openb_cluster c;
    struct gs_openb_workload w;
    struct gs_error e = {0};
    cr_expect(eq(int,
                 gs_openb_parse_nodes("n.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,64x\xff" "000,1,2,P100\n", &m, &c,
                                      &e),
                 GS_EINVAL));
    cr_expect(eq(str, e.msg, "bad cpu_milli '64x\\xff000': expected an integer from 0 to 1099511627776"));
    cr_expect(eq(int, e.line, 2));
    cr_expect(eq(int, e.col, 6));
    memset(&e, 0, sizeof e);
    cr_expect(eq(int,
                 gs_openb_parse_pods("p.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,qos\np0,1,1,0,0,L\x1bS\n", &m,
                                     &w, &e),
                 GS_EINVAL));
    cr_expect(eq(str, e.msg, "qos 'L\\x1bS': expected LS, BE, Burstable, Guaranteed or empty"));
    memset(&e, 0, sizeof e);
    cr_expect(eq(int,
                 gs_openb_parse_pods("p.csv",
                                     "name,cpu_milli,memory_mib,num_gpu,gpu_milli,qos\n"
                                     "p0,1,1,0,0,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9\n",
                                     &m, &w, &e),
                 GS_EINVAL));
    cr_expect(eq(str, e.msg, "qos 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa': expected LS, BE, Burstable, Guaranteed or empty"));
}

/* jansson quotes the text near a syntax error (corpus/snapshot/crash-json-error-control-character). */
Test(escape, json_syntax_error)
{
    struct gs_arena a = {0};
    struct gs_error e = {0};
    struct gs_ynode *root;
    cr_expect(eq(int, gs_json_load_string("n.json", "{\"a\": 1\f}", &a, &root, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "invalid JSON: '}' expected near '\\x0c'"));
    cr_expect(eq(int, e.line, 1));
    gs_arena_free(&a);
}

/* CEL (corpus/cel/crash-*): an unexpected control character, a quoted token, an escape, a
 * literal passed to quantity(), and a key at run time. */
Test(escape, cel_messages)
{
    struct gs_cel_program *p = NULL;
    struct gs_error e = {0};
    cr_expect(eq(int, gs_cel_compile("\x01", &p, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "CEL: syntax error: unexpected character '\\x01' at column 1"));
    memset(&e, 0, sizeof e);
    cr_expect(eq(int, gs_cel_compile("1 'a\x07" "b'", &p, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "CEL: syntax error: unexpected ''a\\x07b'' at column 3"));
    memset(&e, 0, sizeof e);
    cr_expect(eq(int, gs_cel_compile("'\\\x02'", &p, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "CEL: unsupported escape sequence '\\\\x02' at column 2"));
    memset(&e, 0, sizeof e);
    cr_expect(eq(int, gs_cel_compile("quantity('4\\nGi').sign() == 1", &p, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg,
                 "CEL: invalid quantity \"4\\nGi\": quantities must match the regular expression "
                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' at column 10"));
    cr_expect(eq(ptr, p, NULL));

    cr_assert(eq(int, gs_cel_compile("device.attributes['gpu.nvidia.com']['a\\nb'] == 1", &p, &e), 0), "%s", e.msg);
    struct gs_cel_device dev = {.driver = "gpu.nvidia.com"};
    bool match = true;
    char msg[64];
    cr_expect(eq(int, gs_cel_eval(p, &dev, &match, msg, sizeof msg), GS_EINVAL));
    cr_expect(eq(str, msg, "no such key: a\\nb"));
    gs_cel_free(p);
}

/* SQLite names bytes of a damaged schema (corpus/trace/crash-sqlite-error-raw-bytes.trace). */
Test(escape, damaged_trace)
{
    const char *t = GPUSIM_SOURCE_DIR "/tests/fuzz/corpus/trace/crash-sqlite-error-raw-bytes.trace";
    char want[1024];
    snprintf(want, sizeof want, "trace '%s': malformed database schema (pod) - unrecognized token: \"\\x04\"", t);
    FILE *devnull = fopen("/dev/null", "w");
    cr_assert(not(eq(ptr, devnull, NULL)));
    char err[1024] = "";
    cr_expect(eq(int, gs_report_summary(t, devnull, err, sizeof err), GS_ESQL));
    cr_expect(eq(str, err, want));
    err[0] = '\0';
    cr_expect(eq(int, gs_report_describe(t, "gpu-0", -1, devnull, err, sizeof err), GS_ESQL));
    cr_expect(eq(str, err, want));
    fclose(devnull);
}
