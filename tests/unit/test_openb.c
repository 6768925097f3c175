/* Reading the openb trace (openb.h): hand-written CSV, malformed rows, and the real files
 * in ../shared/data/openb (skipped when absent). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "models/openb.h"

static const char *data_dir(void) { return GPUSIM_SOURCE_DIR "/../shared/data/openb"; }

static bool have_data(void)
{
    struct stat st;
    return stat(data_dir(), &st) == 0 && S_ISDIR(st.st_mode);
}

Test(openb, nodes_from_text)
{
    struct gs_openb_models m = {0};
    struct gs_openb_cluster c;
    struct gs_error e = {0};
    const char *t = "sn,cpu_milli,memory_mib,gpu,model\r\n"
                    "n0,64000,262144,2,P100\r\n"
                    "n1,96000,786432,8,G2\n"
                    "\n"
                    "n2,32000,65536,0,\n";
    cr_assert_eq(gs_openb_parse_nodes("t.csv", t, &m, &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.n, 3);
    cr_expect_str_eq(c.nodes[1].name, "n1");
    cr_expect_eq(c.nodes[1].gpu, 8);
    cr_expect_str_eq(m.name[c.nodes[1].model], "G2");
    cr_expect_eq(c.nodes[2].model, -1);
    cr_expect_eq(c.total_gpus, 10);
    cr_expect_eq(c.total_cpu_milli, 192000);
    cr_expect_eq(c.total_memory_mib, 262144 + 786432 + 65536);
    gs_openb_cluster_free(&c);
}

Test(openb, pods_full_schema)
{
    struct gs_openb_models m = {0};
    struct gs_openb_workload w;
    struct gs_error e = {0};
    const char *t = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                    "deletion_time,scheduled_time\n"
                    "p0,12000,16384,1,1000,,LS,Running,0,12537496,0\n"
                    "p1,6000,12288,1,460,V100M16|V100M32|V100M32,BE,Pending,5,10,\n"
                    "p2,4000,0,0,0,,Burstable,Succeeded,7,9,8\n"
                    "p3,8000,100,8,1000,V100M16|V100M32,Guaranteed,Failed,9,9,9\n";
    cr_assert_eq(gs_openb_parse_pods("p.csv", t, &m, &w, &e), 0, "%s", e.msg);
    cr_expect_eq(w.n, 4);
    cr_expect(w.has_spec && w.has_times);
    cr_expect_eq(w.pods[1].gpu_milli, 460);
    cr_expect_eq(w.pods[1].scheduled_s, -1, "empty scheduled_time");
    cr_expect_eq(w.pods[0].deletion_s, 12537496);
    cr_expect_eq(w.pods[1].phase, GS_OPENB_PHASE_PENDING);
    cr_expect_eq(w.pods[2].qos, GS_OPENB_QOS_BURSTABLE);
    int v16 = gs_openb_model_id(&m, "V100M16", 7, false), v32 = gs_openb_model_id(&m, "V100M32", 7, false);
    cr_assert(v16 >= 0 && v32 >= 0);
    cr_expect_eq(w.pods[1].spec_mask, (1u << v16) | (1u << v32));
    cr_expect_eq(w.pods[3].spec_mask, w.pods[1].spec_mask);
    cr_expect_neq(w.pods[1].spec, w.pods[3].spec, "raw texts differ: distinct keys");
    cr_expect_str_eq(w.specs[w.pods[1].spec], "V100M16|V100M32|V100M32");
    cr_expect_eq(w.pods[0].spec_mask, 0u);
    cr_expect_eq(w.pods[0].spec, 0);
    cr_expect_eq(w.total_gpu_milli, 1000 + 460 + 8000);
    cr_expect(gs_openb_model_allowed(w.pods[1].spec_mask, v32));
    cr_expect(!gs_openb_model_allowed(w.pods[1].spec_mask, -1));
    cr_expect(gs_openb_model_allowed(0, -1));
    int t4 = gs_openb_model_id(&m, "T4", 2, true);
    cr_expect(!gs_openb_model_allowed(w.pods[1].spec_mask, t4));
    gs_openb_workload_free(&w);
}

Test(openb, pods_reduced_schema)
{
    struct gs_openb_models m = {0};
    struct gs_openb_workload w;
    const char *t = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,12000,16384,2,1000\n";
    cr_assert_eq(gs_openb_parse_pods("mg.csv", t, &m, &w, NULL), 0);
    cr_expect(!w.has_spec && !w.has_times);
    cr_expect_eq(w.pods[0].creation_s, -1);
    cr_expect_eq(w.pods[0].num_gpu, 2);
    gs_openb_workload_free(&w);
}

struct bad {
    const char *text;
    int line;
    const char *needle;
};

Test(openb, malformed_pod_rows_name_file_line_and_expectation)
{
    static const char hdr[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n";
    const struct bad cases[] = {
        {"p0,1000,10,1,500\np1,1000,10,1\n", 3, "expected 5"},
        {"p0,10a0,10,1,500\n", 2, "cpu_milli"},
        {"p0,-5,10,1,500\n", 2, "expected an integer"},
        {"p0,1000,10,2,500\n", 2, "num_gpu 2 with gpu_milli 500"},
        {"p0,1000,10,1,1001\n", 2, "gpu_milli"},
        {"p0,1000,10,0,300\n", 2, "num_gpu 0 with gpu_milli 300"},
        {"p0,1000,,1,500\n", 2, "empty memory_mib"},
        {"\"p0\",1000,10,1,500\n", 2, "quoted"},
        {",1000,10,1,500\n", 2, "pod name"},
        {"p0,99999999999999999999,10,1,500\n", 2, "out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s%s", hdr, cases[i].text);
        struct gs_openb_models m = {0};
        struct gs_openb_workload w;
        struct gs_error e = {0};
        cr_expect_eq(gs_openb_parse_pods("bad.csv", buf, &m, &w, &e), GS_EINVAL, "case %zu", i);
        cr_expect_str_eq(e.file, "bad.csv");
        cr_expect_eq(e.line, cases[i].line, "case %zu: line %d (%s)", i, e.line, e.msg);
        cr_expect(strstr(e.msg, cases[i].needle), "case %zu: '%s' lacks '%s'", i, e.msg, cases[i].needle);
        cr_expect_null(w.pods);
    }
}

Test(openb, malformed_headers_and_nodes)
{
    struct gs_openb_models m = {0};
    struct gs_openb_workload w;
    struct gs_openb_cluster c;
    struct gs_error e = {0};
    cr_expect_eq(gs_openb_parse_pods("x.csv", "", &m, &w, &e), GS_EINVAL);
    cr_expect(strstr(e.msg, "empty file"));
    cr_expect_eq(gs_openb_parse_pods("x.csv", "name,cpu_milli,num_gpu,gpu_milli\n", &m, &w, &e), GS_EINVAL);
    cr_expect(strstr(e.msg, "memory_mib"), "%s", e.msg);
    cr_expect_eq(e.line, 1);
    cr_expect_eq(gs_openb_parse_pods("x.csv", "name,name,cpu_milli,memory_mib,num_gpu,gpu_milli\n", &m, &w, &e),
                 GS_EINVAL);
    cr_expect(strstr(e.msg, "duplicate"));
    cr_expect_eq(gs_openb_parse_nodes("n.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,4,\n", &m, &c, &e),
                 GS_EINVAL);
    cr_expect(strstr(e.msg, "empty model"), "%s", e.msg);
    cr_expect_eq(e.line, 2);
    cr_expect_eq(gs_openb_parse_nodes("n.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,17,G2\n", &m, &c, &e),
                 GS_EINVAL);
    cr_expect(strstr(e.msg, "gpu"), "%s", e.msg);
    cr_expect_eq(gs_openb_read_pods("/nonexistent/x.csv", &m, &w, &e), GS_EIO);
    cr_expect_str_eq(e.file, "/nonexistent/x.csv");
    /* A 33rd distinct model does not fit the registry. */
    char buf[4096] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n";
    for (int i = 0; i < 33; i++) {
        char row[64];
        snprintf(row, sizeof row, "p%d,1,1,1,500,M%d\n", i, i);
        strcat(buf, row);
    }
    struct gs_openb_models m2 = {0};
    cr_expect_eq(gs_openb_parse_pods("many.csv", buf, &m2, &w, &e), GS_EINVAL);
    cr_expect_eq(e.line, 34);
}

Test(openb, the_real_files)
{
    if (!have_data())
        cr_skip_test("openb data not found at %s (../shared/data/openb next to the source tree)", data_dir());
    struct gs_openb_models m = {0};
    struct gs_openb_cluster c;
    struct gs_openb_workload w;
    struct gs_error e = {0};
    char path[1024];
    snprintf(path, sizeof path, "%s/openb_node_list_gpu_node.csv", data_dir());
    cr_assert_eq(gs_openb_read_nodes(path, &m, &c, &e), 0, "%s:%d: %s", e.file, e.line, e.msg);
    cr_expect_eq(c.n, 1213);
    cr_expect_eq(c.total_gpus, 6212);
    cr_expect_eq(c.total_cpu_milli, 107018000);
    cr_expect_eq(c.total_memory_mib, 503828480);
    snprintf(path, sizeof path, "%s/openb_pod_list_default.csv", data_dir());
    cr_assert_eq(gs_openb_read_pods(path, &m, &w, &e), 0, "%s:%d: %s", e.file, e.line, e.msg);
    cr_expect_eq(w.n, 8152);
    cr_expect_eq(w.total_gpu_milli, 6086800);
    int pending = 0, sched_empty = 0;
    for (int i = 0; i < w.n; i++) {
        pending += w.pods[i].phase == GS_OPENB_PHASE_PENDING;
        sched_empty += w.pods[i].scheduled_s < 0;
        cr_assert(w.pods[i].deletion_s >= w.pods[i].creation_s);
    }
    cr_expect_eq(pending, 897);
    cr_expect_eq(sched_empty, 897);
    cr_expect_eq(w.pods[w.n - 1].creation_s, 12901761);
    gs_openb_workload_free(&w);
    snprintf(path, sizeof path, "%s/openb_pod_list_multigpu50.csv", data_dir());
    cr_assert_eq(gs_openb_read_pods(path, &m, &w, &e), 0, "%s", e.msg);
    cr_expect_eq(w.n, 9061);
    cr_expect_eq(w.total_gpu_milli, 11358800);
    gs_openb_workload_free(&w);
    snprintf(path, sizeof path, "%s/openb_pod_list_gpuspec33.csv", data_dir());
    cr_assert_eq(gs_openb_read_pods(path, &m, &w, &e), 0, "%s", e.msg);
    int with_spec = 0;
    for (int i = 0; i < w.n; i++)
        with_spec += w.pods[i].spec_mask != 0;
    cr_expect_eq(with_spec, 2388);
    gs_openb_workload_free(&w);
    gs_openb_cluster_free(&c);
}
