/* libFuzzer target: CEL compile and evaluate (models/dra/cel.h). The input is compiled as a
 * device selector; a program that compiles is evaluated against three devices (an NVIDIA GPU
 * with attributes of every type and two capacities, a device of another driver, a device
 * with nothing) and freed. A compile error on UTF-8 input (the only kind the loaders pass
 * on) and every runtime error must be printable. Seeds: tests/fuzz/corpus/cel (the
 * expressions of tests/unit/test_cel.c, scenarios/ and docs/); dictionary: tests/fuzz/cel.dict. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "models/dra/cel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct gs_device_attribute attrs[7];
static struct gs_device_capacity caps[2];
static struct gs_cel_device devs[3];

static void devices_init(void)
{
    attrs[0] = (struct gs_device_attribute){.name = "type", .kind = GS_ATTR_STRING, .s = "gpu"};
    attrs[1] = (struct gs_device_attribute){.name = "productName", .kind = GS_ATTR_STRING, .s = "NVIDIA A100-SXM4-40GB"};
    attrs[2] = (struct gs_device_attribute){.name = "index", .kind = GS_ATTR_INT, .i = 3};
    attrs[3] = (struct gs_device_attribute){.name = "gpu.nvidia.com/healthy", .kind = GS_ATTR_BOOL, .b = true};
    attrs[4] = (struct gs_device_attribute){.name = "driverVersion", .kind = GS_ATTR_VERSION, .s = "580.95.5"};
    attrs[5] = (struct gs_device_attribute){.name = "cudaDriverVersion", .kind = GS_ATTR_VERSION, .s = "12.9.0-rc.1"};
    attrs[6] = (struct gs_device_attribute){.name = "resource.kubernetes.io/pcieRoot", .kind = GS_ATTR_STRING,
                                            .s = "pci0000:00"};
    size_t pre = 0;
    if (gs_semver_parse(attrs[4].s, &attrs[4].v, NULL) || gs_semver_parse(attrs[5].s, &attrs[5].v, &pre))
        abort();
    /* v.pre points into s and is not NUL-terminated at the prerelease's end: copy it. */
    static char pre_text[16];
    memcpy(pre_text, attrs[5].v.pre, pre < sizeof pre_text - 1 ? pre : sizeof pre_text - 1);
    attrs[5].v.pre = pre_text;
    caps[0].name = "memory";
    caps[1].name = "example.com/slots";
    if (gs_quantity_parse("40Gi", &caps[0].value) || gs_quantity_parse("4", &caps[1].value))
        abort();
    devs[0] = (struct gs_cel_device){.driver = "gpu.nvidia.com", .attrs = attrs, .nattrs = 7, .caps = caps, .ncaps = 2};
    devs[1] = (struct gs_cel_device){.driver = "example.com", .attrs = attrs, .nattrs = 2, .caps = caps + 1, .ncaps = 1};
    devs[2] = (struct gs_cel_device){.driver = "", .attrs = NULL, .nattrs = 0, .caps = NULL, .ncaps = 0};
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool inited;
    if (!inited) {
        devices_init();
        inited = true;
    }
    char *expr = fuzz_cstr(data, size);
    if (!expr)
        return 0;
    struct gs_cel_program *p = NULL;
    struct gs_error err = {0};
    if (gs_cel_compile(expr, &p, &err) == 0) {
        if (!p || strcmp(gs_cel_expression(p), expr) != 0)
            abort();
        for (int i = 0; i < 3; i++) {
            bool m;
            char msg[256];
            if (gs_cel_eval(p, &devs[i], &m, msg, sizeof msg) != 0)
                fuzz_check_message("a CEL runtime error", msg);
        }
        gs_cel_free(p);
    } else {
        if (p)
            abort();
        if (fuzz_utf8_valid(expr))
            fuzz_check_message("a CEL compile error", err.msg);
    }
    gs_free(expr);
    return 0;
}
