/* The scheduling attempts of a run at --trace-level full (sim/cluster/attempts.c, the tables of
 * docs/trace-schema.md "Scheduling attempts"): per-node verdicts with the plugin and the exact
 * reason FailedScheduling counts, per-plugin scores summing to the winner's total, node sets
 * written as deltas, identical retries folded, and nothing of it below full. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"
#include "trace_query.h"

static char trace_path[256];
static char partial_path[272];

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-attempts-%d.db", (int)getpid());
    snprintf(partial_path, sizeof partial_path, "%s.partial", trace_path);
}

static void teardown(void)
{
    unlink(trace_path);
    unlink(partial_path);
}

TestSuite(trace_attempts, .init = setup, .fini = teardown);

static void run_file(const char *path, enum gs_trace_level level)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert(eq(int, gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err), 0), "%s:%d: %s", err.file, err.line,
              err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = level};
    struct gs_run_result r;
    char ebuf[256];
    cr_assert(eq(int, gs_run(&sc, &o, &r, ebuf, sizeof ebuf), 0), "%s", ebuf);
    cr_assert(eq(int, r.checks_failed, 0));
    gs_scenario_free(&sc);
}

static void run_text(const char *yaml, enum gs_trace_level level)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert(eq(int, gs_scenario_load_string("test.yaml", yaml, &sc, &err), 0), "%d: %s", err.line, err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = level};
    struct gs_run_result r;
    char ebuf[256];
    cr_assert(eq(int, gs_run(&sc, &o, &r, ebuf, sizeof ebuf), 0), "%s", ebuf);
    gs_scenario_free(&sc);
}

static char *q(const char *sql)
{
    return gs_test_query(trace_path, sql);
}

/* toleration-off: the pod without the toleration is rejected on both H100 nodes by
 * TaintToleration with the text its FailedScheduling message counts, on both L4 nodes by
 * NodeAffinity; its retries are one row with the pod_event's count. The pod with the toleration
 * is bound; its winner's scores per plugin times weights sum to the attempt's score. */
Test(trace_attempts, toleration_off_verdicts_and_scores)
{
    run_file(GPUSIM_SOURCE_DIR "/scenarios/teaching/toleration-off.yaml", GS_TRACE_FULL);
    cr_expect(eq(str, q("SELECT value FROM run WHERE key = 'trace_level'"), "full"));
    /* Why no-toleration was rejected, node by node. */
    cr_expect(eq(str,
                 q("SELECT n.name, v.plugin, v.code, v.reason FROM attempt a JOIN pod p ON p.id = a.pod_id"
                   " JOIN attempt_verdict v ON v.attempt_id = a.id JOIN node n ON n.id = v.node_id"
                   " WHERE p.name = 'no-toleration' ORDER BY n.name"),
                 "h100-0|TaintToleration|UnschedulableAndUnresolvable|node(s) had untolerated taint {nvidia.com/gpu: "
                 "present};"
                 "h100-1|TaintToleration|UnschedulableAndUnresolvable|node(s) had untolerated taint {nvidia.com/gpu: "
                 "present};"
                 "l4-0|NodeAffinity|UnschedulableAndUnresolvable|node(s) didn't match Pod's node affinity/selector;"
                 "l4-1|NodeAffinity|UnschedulableAndUnresolvable|node(s) didn't match Pod's node affinity/selector"));
    /* The attempt carries the FailedScheduling text, and folds the retries as pod_event does. */
    cr_expect(eq(str,
                 q("SELECT a.node_id, a.feasible, a.evaluated, a.count, a.last_us, a.message = e.message,"
                   " a.count = e.count, a.last_us = e.last_us FROM attempt a JOIN pod p ON p.id = a.pod_id"
                   " JOIN pod_event e ON e.pod_id = p.id AND e.reason = 'FailedScheduling'"
                   " WHERE p.name = 'no-toleration'"),
                 "NULL|0|4|2|330000000|1|1|1"));
    /* Every reason of the verdicts, counted over the nodes, is in the message as "<n> <reason>". */
    cr_expect(eq(str,
                 q("SELECT count(*), sum(instr(a.message, c.n || ' ' || c.reason) > 0) FROM attempt a JOIN"
                   " (SELECT v.attempt_id, r.reason, count(*) AS n FROM attempt_verdict v"
                   "  JOIN verdict vv ON vv.plugin = v.plugin AND vv.code = v.code AND vv.reason = v.reason"
                   "  JOIN verdict_reason r ON r.verdict_id = vv.id GROUP BY v.attempt_id, r.reason) c"
                   " ON c.attempt_id = a.id WHERE a.node_id IS NULL"),
                 "2|2"));
    /* The bound pod: both H100 nodes feasible (Success), scored by TaintToleration (weight 3) and
     * NodeResourcesFit (weight 1); the winner's sum is the attempt's score and it is the node
     * the pod was bound to. */
    cr_expect(eq(str,
                 q("SELECT n.name, v.code FROM attempt a JOIN pod p ON p.id = a.pod_id JOIN attempt_verdict v"
                   " ON v.attempt_id = a.id JOIN node n ON n.id = v.node_id WHERE p.name = 'with-toleration'"
                   " AND v.code = 'Success' ORDER BY n.name"),
                 "h100-0|Success;h100-1|Success"));
    cr_expect(eq(str,
                 q("SELECT s.plugin, s.score, s.weight FROM attempt a JOIN pod p ON p.id = a.pod_id"
                   " JOIN attempt_score s ON s.attempt_id = a.id AND s.node_id = a.node_id"
                   " WHERE p.name = 'with-toleration' ORDER BY s.plugin"),
                 "NodeResourcesFit|99|1;TaintToleration|100|3"));
    cr_expect(eq(str,
                 q("SELECT a.score, (SELECT sum(score * weight) FROM attempt_score s WHERE s.attempt_id = a.id AND"
                   " s.node_id = a.node_id), a.node_id = p.node_id, a.message IS NULL FROM attempt a JOIN pod p"
                   " ON p.id = a.pod_id WHERE p.name = 'with-toleration'"),
                 "399|399|1|1"));
}

/* Sixteen 1-GPU nodes, twenty 1-GPU pods of one workload: each bind changes one node, so the
 * attempts after the first keep the first full node set as their base and write only the
 * nodes that changed, until more than 1/8 of the nodes differ (a new full set). Whatever way
 * a set is written, attempt_verdict gives every node once, the Success rows are the attempt's
 * feasible nodes, and all rows its evaluated nodes. The four pods left over fail with every
 * node Insufficient nvidia.com/gpu, and their retries fold. */
static const char sixteen[] = "apiVersion: gpusim/v1alpha1\n"
                              "kind: Scenario\n"
                              "metadata: {name: sixteen}\n"
                              "spec:\n"
                              "  horizon: 2m\n"
                              "  cluster:\n"
                              "    nodePools:\n"
                              "    - {name: g, count: 16, gpu: {product: NVIDIA-L4, count: 1},"
                              " capacity: {cpu: '8', memory: 32Gi}}\n"
                              "  workloads:\n"
                              "  - name: w\n"
                              "    replicas: 20\n"
                              "    arrival: {at: 0s}\n"
                              "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n";

Test(trace_attempts, node_sets_as_deltas)
{
    run_text(sixteen, GS_TRACE_FULL);
    cr_expect(eq(str, q("SELECT count(*), sum(node_id IS NOT NULL), sum(node_id IS NULL) FROM attempt"), "20|16|4"));
    /* Full sets for the 1st, 4th, 7th, 10th, 13th and 16th pod, deltas of one or two nodes for
     * the other bound pods, and one delta (one node) shared by the four pods that fail. */
    cr_expect(eq(str, q("SELECT count(*), sum(base_id IS NULL), sum(base_id IS NOT NULL) FROM node_set"), "17|6|11"));
    cr_expect(eq(str,
                 q("SELECT max(c) FROM (SELECT count(*) AS c FROM node_set_verdict d JOIN node_set s ON s.id = d.set_id"
                   " WHERE s.base_id IS NOT NULL GROUP BY d.set_id)"),
                 "2"));
    /* Every attempt: each node once; Success rows = feasible; rows = evaluated = 16. */
    cr_expect(eq(str,
                 q("SELECT count(*) FROM attempt a WHERE a.evaluated = 16 AND"
                   " (SELECT count(*) FROM attempt_verdict v WHERE v.attempt_id = a.id) = 16 AND"
                   " (SELECT count(DISTINCT node_id) FROM attempt_verdict v WHERE v.attempt_id = a.id) = 16 AND"
                   " (SELECT count(*) FROM attempt_verdict v WHERE v.attempt_id = a.id AND v.code = 'Success')"
                   " = a.feasible"),
                 "20"));
    /* The k-th bound pod saw 17 - k feasible nodes; the rest were NodeResourcesFit rejections. */
    cr_expect(eq(str,
                 q("SELECT group_concat(feasible, ',') FROM (SELECT feasible FROM attempt WHERE node_id IS NOT NULL"
                   " ORDER BY id)"),
                 "16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1"));
    cr_expect(eq(str,
                 q("SELECT DISTINCT v.plugin, v.code, v.reason FROM attempt_verdict v WHERE v.code != 'Success'"),
                 "NodeResourcesFit|Unschedulable|Insufficient nvidia.com/gpu"));
    /* The failing pods: one attempt row each, folded as their FailedScheduling rows are. */
    cr_expect(eq(str,
                 q("SELECT count(*), sum(a.count = e.count AND a.last_us = e.last_us AND a.message = e.message) FROM"
                   " attempt a JOIN pod_event e ON e.pod_id = a.pod_id AND e.reason = 'FailedScheduling'"
                   " WHERE a.node_id IS NULL"),
                 "4|4"));
    cr_expect(eq(str, q("SELECT count(DISTINCT node_set_id) FROM attempt WHERE node_id IS NULL"), "1"));
}

/* Twenty feasible nodes: attempt_score keeps the sixteen with the highest totals, the chosen
 * node among them, each with every Score plugin that scored; the attempt still says 20 were
 * feasible and every node's verdict is there. */
Test(trace_attempts, scores_of_the_best_sixteen)
{
    run_text("apiVersion: gpusim/v1alpha1\n"
             "kind: Scenario\n"
             "metadata: {name: twenty}\n"
             "spec:\n"
             "  horizon: 1m\n"
             "  cluster:\n"
             "    nodePools:\n"
             "    - {name: g, count: 20, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: '8', memory: 32Gi}}\n"
             "  workloads:\n"
             "  - name: w\n"
             "    arrival: {at: 0s}\n"
             "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n",
             GS_TRACE_FULL);
    cr_expect(eq(str, q("SELECT feasible, evaluated, score IS NOT NULL FROM attempt"), "20|20|1"));
    cr_expect(eq(str, q("SELECT count(*) FROM attempt_verdict WHERE code = 'Success'"), "20"));
    cr_expect(eq(str,
                 q("SELECT count(DISTINCT s.node_id), count(*) / count(DISTINCT s.node_id),"
                   " sum(s.node_id = a.node_id) > 0 FROM attempt_score s JOIN attempt a ON a.id = s.attempt_id"),
                 "16|2|1"));
    /* The kept nodes' totals are at least any other's: here all equal (twenty empty nodes). */
    cr_expect(eq(str,
                 q("SELECT count(DISTINCT t) FROM (SELECT sum(score * weight) AS t FROM attempt_score GROUP BY node_id)"),
                 "1"));
}

/* Below full the attempt tables do not exist: a trace at events is what it was before them. */
Test(trace_attempts, none_below_full)
{
    run_text(sixteen, GS_TRACE_EVENTS);
    cr_expect(eq(str,
                 q("SELECT count(*) FROM sqlite_schema WHERE name IN ('attempt', 'verdict', 'verdict_reason',"
                   " 'node_set', 'node_set_verdict', 'attempt_score', 'attempt_verdict')"),
                 "0"));
    cr_expect(eq(str, q("SELECT count(*) FROM pod_event WHERE reason = 'Scheduled'"), "16"));
}
