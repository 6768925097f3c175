/* Loading in near-linear time and reading with size limits: the string map (base/strmap.h),
 * the size-limited reader (base/readfile.h), the bulk label merge (gs_labels_set_all), and the
 * loader's behaviour where hashes replaced scans (duplicate keys and names, the errors they give
 * and where, node and pool lookups, the order of events, the pools of an imported cluster) and
 * where files are refused as too large. Speed itself is measured by tools/bench/bench_load.c. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/readfile.h"
#include "base/strmap.h"
#include "models/catalog.h"
#include "models/world.h"
#include "sim/scenario.h"
#include "sim/scenario/json.h"
#include "sim/scenario/yaml.h"

static char dir[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gpusim-test-load-%d", (int)getpid());
    cr_assert(eq(int, mkdir(dir, 0700), 0));
}

static void teardown(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect(eq(int, system(cmd), 0));
}

TestSuite(load, .init = setup, .fini = teardown);

/* <dir>/<name> holding `text` (`n` bytes); returns the path (static storage, 8 slots). */
static const char *put_n(const char *name, const char *text, size_t n)
{
    static char paths[8][256];
    static int k;
    char *p = paths[k++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    cr_assert(ne(ptr, f, NULL));
    cr_assert(eq(sz, fwrite(text, 1, n, f), n));
    cr_assert(eq(int, fclose(f), 0));
    return p;
}

static const char *put(const char *name, const char *text)
{
    return put_n(name, text, strlen(text));
}

/* A growing string (heap, through the seam). */
struct buf {
    char *s;
    size_t n, cap;
};

static void add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    cr_assert(ge(int, w, 0));
    if (b->n + (size_t)w + 1 > b->cap) {
        b->cap = (b->n + (size_t)w + 1) * 2;
        b->s = gs_realloc(b->s, b->cap);
        cr_assert(ne(ptr, b->s, NULL));
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)w + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)w;
}

#define HEAD "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"

/* ------------------------------------------------------------------ base/strmap.h */

Test(load, strmap_adds_finds_and_keeps_the_first)
{
    struct gs_strmap m = {0};
    cr_expect(eq(int, gs_strmap_get(&m, "x"), -1)); /* empty: no table yet */
    char keys[5000][16];
    for (int i = 0; i < 5000; i++) {
        snprintf(keys[i], sizeof keys[i], "key-%d", i * 7919 % 5000);
        cr_assert(eq(int, gs_strmap_add(&m, keys[i], i, NULL), 0));
    }
    cr_expect(eq(int, m.n, 5000));
    cr_expect(le(int, m.n * 2, m.cap)); /* at most half full */
    int existing = -1;
    cr_expect(eq(int, gs_strmap_add(&m, "key-0", 77, &existing), 1));
    cr_expect(eq(int, existing, 0)); /* key-0 was added first, at i = 0 */
    cr_expect(eq(int, gs_strmap_get(&m, "key-0"), 0));
    int wrong = 0;
    for (int i = 0; i < 5000; i++)
        wrong += gs_strmap_get(&m, keys[i]) != i;
    cr_expect(eq(int, wrong, 0));
    cr_expect(eq(int, gs_strmap_get(&m, "key-5000"), -1));
    /* A prefix of a longer text: "key-12" inside "key-123". */
    cr_expect(eq(int, gs_strmap_getn(&m, "key-123", 6), gs_strmap_get(&m, "key-12")));
    cr_expect(ne(int, gs_strmap_getn(&m, "key-123", 6), -1));
    gs_strmap_free(&m);
    cr_expect(eq(int, m.cap, 0));
    cr_expect(eq(int, gs_strmap_get(&m, "key-0"), -1));
}

/* ------------------------------------------------------------------ base/readfile.h */

Test(load, read_file_within_and_over_the_limit)
{
    char *text;
    size_t len;
    struct gs_read_status st;
    const char *p = put("ten", "0123456789");
    cr_assert(eq(int, gs_read_file(p, 11, &text, &len, &st), 0));
    cr_expect(eq(sz, len, 10));
    cr_expect(eq(str, text, "0123456789"));
    gs_free(text);
    /* A file of `limit` bytes or more is refused from its size. */
    cr_expect(eq(int, gs_read_file(p, 10, &text, &len, &st), GS_EIO));
    cr_expect(eq(int, st.fail, GS_READ_TOO_LARGE));
    cr_expect(eq(u64, st.seen, 10));
    cr_expect(eq(int, st.stopped, false));
    cr_expect(eq(ptr, text, NULL));
    struct gs_error e = {0};
    cr_expect(eq(int, gs_read_too_large(&e, p, "a test file", 10, &st), GS_EIO));
    char want[512];
    snprintf(want, sizeof want, "file too large: '%s' has 10 bytes; a test file must be smaller than 10 bytes (10 bytes)",
             p);
    cr_expect(eq(str, e.msg, want));
    cr_expect(eq(int, gs_read_is_too_large(&e), true));
    /* NUL bytes are counted, not cut. */
    p = put_n("nul", "a\0b", 3);
    cr_assert(eq(int, gs_read_file(p, 100, &text, &len, &st), 0));
    cr_expect(eq(sz, len, 3));
    cr_expect(eq(int, text[2], 'b'));
    gs_free(text);
    cr_expect(eq(int, gs_read_file("/nonexistent/x", 100, &text, &len, &st), GS_EIO));
    cr_expect(eq(int, st.fail, GS_READ_OPEN));
    cr_expect(eq(int, st.sys_errno, ENOENT));
}

Test(load, read_file_stops_a_device_at_the_limit)
{
    char *text;
    size_t len;
    struct gs_read_status st;
    cr_assert(eq(int, gs_read_file("/dev/zero", 3 << 20, &text, &len, &st), GS_EIO));
    cr_expect(eq(int, st.fail, GS_READ_TOO_LARGE));
    cr_expect(eq(int, st.stopped, true));
    cr_expect(eq(int, st.regular, false));
    cr_expect(eq(u64, st.seen, 3 << 20));
    struct gs_error e = {0};
    gs_read_too_large(&e, "/dev/zero", "a workload manifest", 3 << 20, &st);
    cr_expect(eq(str, e.msg,
                 "file too large: '/dev/zero' gave 3145728 bytes and gpusim stopped reading it (it is not a regular "
                 "file); a workload manifest must be smaller than 3 MiB (3145728 bytes)"));
    cr_expect(eq(str, e.file, "/dev/zero"));
    cr_expect(eq(int, e.line, 0));
}

Test(load, read_file_fifo_without_writer_is_empty, .timeout = 10)
{
    char path[256], *text;
    size_t len;
    struct gs_read_status st;
    snprintf(path, sizeof path, "%s/fifo", dir);
    cr_assert(eq(int, mkfifo(path, 0600), 0));
    cr_assert(eq(int, gs_read_file(path, 1024, &text, &len, &st), 0));
    cr_expect(eq(sz, len, 0));
    cr_expect(eq(str, text, ""));
    gs_free(text);
}

Test(load, read_file_fifo_with_endless_writer_is_refused, .timeout = 20)
{
    char path[256], *text;
    size_t len;
    struct gs_read_status st;
    snprintf(path, sizeof path, "%s/fifo", dir);
    cr_assert(eq(int, mkfifo(path, 0600), 0));
    int ready[2];
    cr_assert(eq(int, pipe(ready), 0));
    pid_t pid = fork();
    cr_assert(ge(int, pid, 0));
    if (pid == 0) {
        /* The writer: opened before the reader (O_RDWR does not wait for one), then endless
         * lines; killed by the test. */
        FILE *f = fopen(path, "r+");
        if (!f || write(ready[1], "x", 1) != 1)
            _exit(3);
        for (;;)
            fputs("kind: Scenario\n", f);
    }
    char c;
    cr_assert(eq(int, (int)read(ready[0], &c, 1), 1));
    int rc = gs_read_file(path, 1 << 20, &text, &len, &st);
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    cr_assert(eq(int, rc, GS_EIO));
    cr_expect(eq(int, st.fail, GS_READ_TOO_LARGE));
    cr_expect(eq(int, st.stopped, true));
    cr_expect(eq(u64, st.seen, 1 << 20));
}

/* ------------------------------------------------------------------ limits through the loader */

Test(load, too_large_inputs_named_in_the_scenario)
{
    struct gs_scenario sc;
    struct gs_error e = {0};
    const char *s = put("m.yaml", HEAD "  cluster:\n    nodePools: [{name: p, count: 1, capacity: {cpu: \"1\", memory: "
                                       "1Gi}}]\n  workloads:\n  - manifest: /dev/zero\n");
    cr_assert(eq(int, gs_scenario_load(s, NULL, 0, -1, -1, &sc, &e), GS_EINVAL));
    cr_expect(eq(str, e.file, (char *)s));
    cr_expect(eq(int, e.line, 8));
    cr_expect(eq(int, e.col, 15));
    cr_expect(eq(str, e.msg,
                 "cannot read the manifest '/dev/zero' of spec.workloads[0]: file too large: '/dev/zero' gave 3145728 "
                 "bytes and gpusim stopped reading it (it is not a regular file); a workload manifest must be smaller "
                 "than 3 MiB (3145728 bytes)"));
    /* A regular file over the limit is refused from its size: an openb node list of 64 MiB. */
    char big[256];
    snprintf(big, sizeof big, "%s/nodes.csv", dir);
    FILE *f = fopen(big, "w");
    cr_assert(ne(ptr, f, NULL));
    cr_assert(eq(int, ftruncate(fileno(f), 64 << 20), 0));
    fclose(f);
    s = put("o.yaml", HEAD "  cluster:\n    source: {format: openb, nodes: nodes.csv}\n");
    cr_assert(eq(int, gs_scenario_load(s, NULL, 0, -1, -1, &sc, &e), GS_EINVAL));
    char want[1024];
    snprintf(want, sizeof want,
             "cannot read the openb node list 'nodes.csv' of spec.cluster.source: file too large: '%s' has 67108864 "
             "bytes; an openb node list must be smaller than 64 MiB (67108864 bytes)",
             big);
    cr_expect(eq(str, e.msg, want));
    s = put("k.yaml", HEAD "  cluster:\n    source: {format: kubectl, nodes: /dev/null}\n");
    cr_assert(eq(int, gs_scenario_load(s, NULL, 0, -1, -1, &sc, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "empty file: expected a JSON document"));
}

/* ------------------------------------------------------------------ duplicate keys */

/* A mapping of `n` keys k0..k{n-1} (one a line, from line 2) with key `dup` written again last. */
static int load_keys(int n, int dup, struct gs_error *e)
{
    struct buf b = {0};
    add(&b, "m:\n");
    for (int i = 0; i < n; i++)
        add(&b, "  k%d: %d\n", i, i);
    add(&b, "  k%d: again\n", dup);
    struct gs_arena a = {0};
    struct gs_ynode *root;
    int rc = gs_yaml_load_string("d.yaml", b.s, &a, &root, e);
    gs_arena_free(&a);
    gs_free(b.s);
    return rc;
}

Test(load, duplicate_keys_at_the_second_with_the_first_position)
{
    struct gs_error e = {0};
    /* A small mapping (scanned) and large ones (hashed): the same message, at the second key. */
    int sizes[] = {3, 8, 9, 40000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i], dup = n / 2;
        cr_assert(eq(int, load_keys(n, dup, &e), GS_EINVAL), "n = %d", n);
        char want[128];
        snprintf(want, sizeof want, "duplicate key 'k%d' (already set at line %d column 3)", dup, dup + 2);
        cr_expect(eq(str, e.msg, want));
        cr_expect(eq(int, e.line, n + 2), "n = %d", n);
        cr_expect(eq(int, e.col, 3));
    }
    cr_expect(eq(int, load_keys(40000, 0, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "duplicate key 'k0' (already set at line 2 column 3)"));
    /* An anchor redefined: later aliases take the later one (through the anchor index). */
    struct gs_arena a = {0};
    struct gs_ynode *root;
    cr_assert(eq(int, gs_yaml_load_string("a.yaml", "x: &a 1\ny: &a 2\nz: *a\n", &a, &root, &e), 0));
    cr_expect(eq(str, (char *)gs_y_get(root, "z")->text, "2"));
    gs_arena_free(&a);
}

Test(load, json_duplicate_keys_and_escapes)
{
    struct gs_arena a = {0};
    struct gs_error e = {0};
    struct gs_ynode *root;
    struct buf b = {0};
    add(&b, "{");
    for (int i = 0; i < 1000; i++)
        add(&b, "\"k%d\": %d, ", i, i);
    add(&b, "\"k500\": 0}");
    cr_expect(eq(int, gs_json_load_string("d.json", b.s, &a, &root, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "invalid JSON: duplicate object key near '\"k500\"'"));
    cr_expect(eq(int, e.line, 1));
    /* jansson's column: where it stopped reading, the second key's closing quote */
    cr_expect(eq(int, e.col, (int)(strstr(b.s, "\"k500\": 0") - b.s) + 6));
    gs_free(b.s);
    cr_assert(eq(int, gs_json_load_string("u.json", "{\"a\\u00e9\": \"\\ud83d\\ude00\\n\", \"n\": -0.5e+3}", &a, &root, &e),
                 0));
    cr_expect(eq(str, (char *)root->pairs[0].key->text, "a\xc3\xa9"));
    cr_expect(eq(str, (char *)root->pairs[0].value->text, "\xf0\x9f\x98\x80\n"));
    cr_expect(eq(str, (char *)root->pairs[1].value->text, "-0.5e+3"));
    cr_expect(eq(int, root->pairs[1].value->plain, true));
    cr_expect(eq(int, gs_json_load_string("o.json", "[9223372036854775808]", &a, &root, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "invalid JSON: too big integer near '9223372036854775808'"));
    cr_expect(eq(int, gs_json_load_string("s.json", "[\"\\ud83d\"]", &a, &root, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "invalid JSON: invalid Unicode '\\uD83D' near '\"\\ud83d\"'"));
    cr_expect(eq(int, gs_json_load_string("b.json", "[\"\xc3\"]", &a, &root, &e), GS_EINVAL));
    cr_expect(eq(int, e.col, 2));
    gs_arena_free(&a);
}

/* ------------------------------------------------------------------ labels */

Test(load, labels_set_all_is_set_one_by_one)
{
    struct gs_arena a = {0};
    struct gs_labels one = {0}, all = {0};
    struct gs_kv kv[3000];
    char keys[3000][24];
    for (int i = 0; i < 3000; i++) {
        snprintf(keys[i], sizeof keys[i], "example.com/k%d", i * 7919 % 1000); /* every key three times */
        kv[i] = (struct gs_kv){.key = keys[i], .value = i % 7 == 0 ? NULL : keys[(i + 1) % 3000]};
    }
    /* Both start with labels of their own, some replaced below. */
    for (int i = 0; i < 20; i++) {
        char k[24];
        snprintf(k, sizeof k, "example.com/k%d", i * 97);
        cr_assert(eq(int, gs_labels_set(&one, &a, k, "old"), 0));
        cr_assert(eq(int, gs_labels_set(&all, &a, k, "old"), 0));
    }
    for (int i = 0; i < 3000; i++)
        cr_assert(eq(int, gs_labels_set(&one, &a, kv[i].key, kv[i].value), 0));
    cr_assert(eq(int, gs_labels_set_all(&all, &a, kv, 3000), 0));
    cr_assert(eq(int, all.n, one.n));
    cr_expect(eq(int, all.n, 1009)); /* k0..k999, and 9 of the 20 own labels (k1067 .. k1843) */
    int differ = 0;
    for (int i = 0; i < all.n; i++)
        differ += strcmp(all.kv[i].key, one.kv[i].key) != 0 || strcmp(all.kv[i].value, one.kv[i].value) != 0;
    cr_expect(eq(int, differ, 0));
    gs_arena_free(&a);
}

/* ------------------------------------------------------------------ names */

static int load_text(const char *text, struct gs_error *e)
{
    struct gs_scenario sc;
    memset(e, 0, sizeof *e);
    int rc = gs_scenario_load_string("s.yaml", text, &sc, e);
    if (!rc)
        gs_scenario_free(&sc);
    return rc;
}

Test(load, duplicate_names_found_through_hashes)
{
    struct gs_error e;
    struct buf b = {0};
    /* Pools: the second of a name, beyond the first few, with the first's position. */
    add(&b, HEAD "  cluster:\n    nodePools:\n");
    for (int i = 0; i < 50; i++)
        add(&b, "    - {name: p%d, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}\n", i);
    add(&b, "    - {name: p17, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}\n");
    cr_expect(eq(int, load_text(b.s, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "duplicate node pool name 'p17' (first at line 24 column 14)"));
    cr_expect(eq(int, e.line, 57));
    b.n = 0;
    /* Workloads: a second name, and a name like another's pods (in either order). */
    add(&b, HEAD "  cluster:\n    nodePools: [{name: p, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}]\n"
                 "  workloads:\n");
    for (int i = 0; i < 30; i++)
        add(&b, "  - {name: w%d, template: {spec: {containers: [{name: c}]}}}\n", i);
    size_t body = b.n;
    add(&b, "  - {name: w3, template: {spec: {containers: [{name: c}]}}}\n");
    cr_expect(eq(int, load_text(b.s, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "duplicate workload name 'w3' in spec.workloads[30] (also at line 11)"));
    b.n = body;
    add(&b, "  - {name: w12-7, template: {spec: {containers: [{name: c}]}}}\n");
    cr_expect(eq(int, load_text(b.s, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg,
                 "workload name 'w12-7' in spec.workloads[30] clashes with the pods of workload 'w12' (line 20), which "
                 "are named w12-<index>"));
    b.n = body;
    add(&b, "  - {name: w12-x7, template: {spec: {containers: [{name: c}]}}}\n");
    cr_expect(eq(int, load_text(b.s, &e), 0), "%s", e.msg);
    b.n = 0;
    /* PriorityClasses. */
    add(&b, HEAD "  objects:\n");
    for (int i = 0; i < 20; i++)
        add(&b, "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: c%d}, value: %d}\n", i, i);
    add(&b, "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: c9}, value: 1}\n");
    add(&b, "  cluster:\n    nodePools: [{name: p, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}]\n");
    cr_expect(eq(int, load_text(b.s, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "duplicate PriorityClass \"c9\" (first at line 15 column 78)"));
    gs_free(b.s);
}

Test(load, node_and_class_lookups)
{
    struct gs_scenario sc;
    struct gs_error e = {0};
    const char *text = HEAD
        "  objects:\n"
        "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 5, globalDefault: true}\n"
        "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 50}\n"
        "  cluster:\n    nodePools:\n"
        "    - {name: a-1, count: 3, gpu: {product: NVIDIA-L4, count: 2}, capacity: {cpu: \"8\", memory: 8Gi}}\n"
        "    - {name: a, count: 20, capacity: {cpu: \"8\", memory: 8Gi}}\n"
        "  workloads:\n"
        "  - {name: x, template: {spec: {nodeName: a-1-2, containers: [{name: c}]}}}\n"
        "  - {name: y, priorityClassName: high, template: {spec: {nodeName: a-12, containers: [{name: c}]}}}\n"
        "  events:\n"
        "  - {at: 30s, cordon: {node: a-19}}\n"
        "  - {at: 10s, xid: {node: a-1-0, gpu: 1, code: 79}}\n"
        "  - {at: 20s, addNodes: {pool: a-1, count: 1}}\n"
        "  - {at: 10s, uncordon: {node: a-3}}\n"
        "  - {at: 0s, cordon: {node: a-0}}\n";
    cr_assert(eq(int, gs_scenario_load_string("s.yaml", text, &sc, &e), 0), "%s", e.msg);
    /* The classes: by name, and the globalDefault for a pod without one. */
    cr_expect(eq(str, (char *)sc.world.workloads[0].tmpl.priority_class, "low"));
    cr_expect(eq(i32, sc.world.workloads[0].tmpl.priority, 5));
    cr_expect(eq(i32, sc.world.workloads[1].tmpl.priority, 50));
    /* Events sorted by time, equal times in file order; the pool of an addNodes. */
    cr_assert(eq(int, sc.nevents, 5));
    int want_kind[] = {GS_SEV_CORDON, GS_SEV_XID, GS_SEV_UNCORDON, GS_SEV_ADD_NODES, GS_SEV_CORDON};
    long long want_at[] = {0, 10, 10, 20, 30};
    for (int i = 0; i < 5; i++) {
        cr_expect(eq(int, sc.events[i].kind, want_kind[i]), "event %d", i);
        cr_expect(eq(i64, sc.events[i].at, GS_SEC(want_at[i])), "event %d", i);
    }
    cr_expect(eq(int, sc.events[3].pool, 0));
    gs_scenario_free(&sc);
    /* A node that fits no pool: the index follows the same rules as the scan (%d indexes). */
    const char *bad[] = {"a-01", "a-", "b-1", "a-1234567890"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char t[1024];
        snprintf(t, sizeof t,
                 HEAD "  cluster:\n    nodePools: [{name: a, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}]\n"
                      "  events:\n  - {at: 0s, cordon: {node: %s}}\n",
                 bad[i]);
        cr_expect(eq(int, load_text(t, &e), GS_EINVAL), "%s", bad[i]);
        char want[256];
        snprintf(want, sizeof want,
                 "spec.events[0].cordon.node: node '%s' cannot belong to any node pool: nodes are named "
                 "<pool>-<index> (pools: a)",
                 bad[i]);
        cr_expect(eq(str, e.msg, want));
    }
}

Test(load, imported_pools_named_and_pods_qualified)
{
    /* Nodes of one instance type and three GPU counts: pools t, t-2, t-3; the pool name t-2 of
     * the scenario's own makes the second one t-3 and the third t-4. */
    struct buf b = {0};
    add(&b, "{\"items\": [");
    for (int i = 0; i < 6; i++)
        add(&b, "%s{\"metadata\": {\"name\": \"n%d\", \"labels\": {\"node.kubernetes.io/instance-type\": \"t\", "
                "\"nvidia.com/gpu.product\": \"NVIDIA-L4\"}}, \"status\": {\"capacity\": {\"cpu\": \"8\", \"memory\": "
                "\"8Gi\", \"nvidia.com/gpu\": \"%d\"}}}",
            i ? ", " : "", i, 1 + i % 3);
    add(&b, "]}");
    put("nodes.json", b.s);
    put("pods.json", "{\"items\": ["
                     "{\"metadata\": {\"name\": \"p\", \"namespace\": \"a\"}, \"spec\": {\"nodeName\": \"n1\", "
                     "\"containers\": [{\"name\": \"c\"}]}, \"status\": {\"phase\": \"Running\"}},"
                     "{\"metadata\": {\"name\": \"p\", \"namespace\": \"b\"}, \"spec\": {\"containers\": [{\"name\": "
                     "\"c\"}]}, \"status\": {\"phase\": \"Pending\"}},"
                     "{\"metadata\": {\"name\": \"q\"}, \"spec\": {\"nodeName\": \"t-2-0\", \"containers\": [{\"name\": "
                     "\"c\"}]}, \"status\": {\"phase\": \"Running\"}}]}");
    const char *s = put("s.yaml", HEAD "  cluster:\n    nodePools: [{name: t-2, count: 1, capacity: {cpu: \"1\", memory: "
                                       "1Gi}}]\n    source: {format: kubectl, nodes: nodes.json, pods: pods.json}\n");
    struct gs_scenario sc;
    struct gs_error e = {0};
    cr_assert(eq(int, gs_scenario_load(s, NULL, 0, -1, -1, &sc, &e), 0), "%s", e.msg);
    cr_assert(eq(int, sc.world.npools, 4));
    const char *names[] = {"t-2", "t", "t-3", "t-4"};
    int counts[] = {1, 2, 2, 2};
    for (int i = 0; i < 4; i++) {
        cr_expect(eq(str, (char *)sc.world.pools[i].name, (char *)names[i]));
        cr_expect(eq(int, sc.world.pools[i].count, counts[i]));
    }
    cr_expect(eq(str, (char *)sc.world.pools[2].nodes[1].name, "n4"));
    cr_assert(eq(int, sc.world.nworkloads, 2));
    cr_expect(eq(str, (char *)sc.world.workloads[0].list[0].name, "a/p"));
    cr_expect(eq(str, (char *)sc.world.workloads[0].list[1].name, "q"));
    cr_expect(eq(str, (char *)sc.world.workloads[1].list[0].name, "b/p"));
    gs_scenario_free(&sc);
    /* A pod listed twice in one namespace. */
    put("pods.json", "{\"items\": ["
                     "{\"metadata\": {\"name\": \"p\", \"namespace\": \"b\"}, \"spec\": {\"containers\": [{\"name\": "
                     "\"c\"}]}, \"status\": {\"phase\": \"Pending\"}},"
                     "{\"metadata\": {\"name\": \"p\", \"namespace\": \"a\"}, \"spec\": {\"containers\": [{\"name\": "
                     "\"c\"}]}, \"status\": {\"phase\": \"Pending\"}},"
                     "{\"metadata\": {\"name\": \"p\", \"namespace\": \"b\"}, \"spec\": {\"containers\": [{\"name\": "
                     "\"c\"}]}, \"status\": {\"phase\": \"Pending\"}}]}");
    cr_expect(eq(int, gs_scenario_load(s, NULL, 0, -1, -1, &sc, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "pod b/p is in the pod list twice"));
    gs_free(b.s);
}

Test(load, duplicates_in_long_lists)
{
    struct gs_error e;
    struct buf b = {0};
    /* Containers: the 30th repeats the 12th (found through the map beyond GS_SCN_NAMES_SCAN). */
    add(&b, HEAD "  cluster:\n    nodePools: [{name: p, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}]\n"
                 "  workloads:\n  - name: w\n    template:\n      spec:\n        containers:\n");
    for (int i = 0; i < 30; i++)
        add(&b, "        - {name: c%d}\n", i);
    add(&b, "        - {name: c12}\n");
    cr_expect(eq(int, load_text(b.s, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg,
                 "duplicate container name 'c12' at spec.workloads[0].template.spec.containers[30].name (also at line "
                 "24)"));
    cr_expect(eq(int, e.line, 42));
    b.n = 0;
    /* Taints: unique by key and effect; the same key with another effect is another taint. */
    add(&b, HEAD "  cluster:\n    nodePools:\n    - name: p\n      count: 1\n      capacity: {cpu: \"1\", memory: 1Gi}\n"
                 "      taints:\n");
    for (int i = 0; i < 20; i++)
        add(&b, "      - {key: example.com/t%d, effect: NoSchedule}\n", i);
    size_t body = b.n;
    add(&b, "      - {key: example.com/t7, effect: NoExecute}\n");
    cr_expect(eq(int, load_text(b.s, &e), 0), "%s", e.msg);
    b.n = body;
    add(&b, "      - {key: example.com/t7, effect: NoSchedule}\n");
    cr_expect(eq(int, load_text(b.s, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg,
                 "duplicate taint at spec.cluster.nodePools[0].taints[20]: taints must be unique by key and effect "
                 "(example.com/t7:NoSchedule)"));
    b.n = 0;
    /* spec.catalog: products and timing profiles by name; a base named late in the list. */
    add(&b, HEAD "  catalog:\n    gpus:\n");
    for (int i = 0; i < 20; i++)
        add(&b, "    - {product: P-%d, nvmlName: P %d, memoryMiB: 1024, computeCapability: \"8.0\", family: ampere, "
                "migCapable: false, typicalPerNode: 1, architecture: Ampere, brand: Nvidia}\n",
            i, i);
    add(&b, "    timingProfiles:\n");
    for (int i = 0; i < 20; i++)
        add(&b, "      t%d: {driverCompile: %ds}\n", i, i + 1);
    add(&b, "      u: {base: t19, toolkit: 7s}\n");
    add(&b, "  operator: {timings: u}\n");
    add(&b, "  cluster:\n    nodePools: [{name: p, count: 1, gpu: {product: P-17, count: 1}, capacity: {cpu: \"1\", "
            "memory: 1Gi}}]\n");
    struct gs_scenario sc;
    e = (struct gs_error){0};
    cr_assert(eq(int, gs_scenario_load_string("s.yaml", b.s, &sc, &e), 0), "%s", e.msg);
    cr_expect(eq(str, (char *)sc.op.timings->name, "u"));
    cr_expect(eq(i64, sc.op.timings->step[GS_STEP_DRIVER_COMPILE].fixed, GS_SEC(20))); /* from t19 */
    cr_expect(eq(i64, sc.op.timings->step[GS_STEP_TOOLKIT].fixed, GS_SEC(7)));
    gs_scenario_free(&sc);
    char *dup = strstr(b.s, "    timingProfiles:");
    size_t at = (size_t)(dup - b.s);
    char *copy = gs_malloc(b.n + 256);
    cr_assert(ne(ptr, copy, NULL));
    snprintf(copy, b.n + 256, "%.*s    - {product: P-3, nvmlName: P 3, memoryMiB: 1024, computeCapability: \"8.0\", "
                              "family: ampere, migCapable: false, typicalPerNode: 1, architecture: Ampere, brand: "
                              "Nvidia}\n%s",
             (int)at, b.s, dup);
    cr_expect(eq(int, load_text(copy, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "duplicate product 'P-3' in spec.catalog.gpus (first at line 10 column 17)"));
    gs_free(copy);
    gs_free(b.s);
}
