#!/usr/bin/env bash
# gpusim sweep (docs/sweep.md):
#  - a 2x2 sweep with 2 seeds of a tiny scenario gives 8 traces named as documented, each with
#    its --set values applied (node count, pod count, seed read back from the trace), and a
#    manifest listing them;
#  - re-running skips the complete traces (an interrupted sweep resumes), --force runs them again;
#  - --shard 1/3, 2/3, 3/3 (through GNU parallel when installed, else background processes)
#    give exactly the runs of the unsharded sweep: same names, identical `sqlite3 .dump`;
#    --shard auto/N reads JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN;
#  - values with commas inside braces, names of long values, collisions after sanitising;
#  - bad --vary and --shard give exit 2 and say why; an unknown path fails the run (exit 1)
#    with the loader's message in its log;
#  - SIGINT stops the children, leaves their .partial traces, exit 130.
# Usage: test-sweep.sh GPUSIM
source "$(dirname "$0")/sweep-fixture.sh"
vary=(--vary 'cluster.nodePools[0].count=1,2' --vary 'workloads[0].replicas=2, 3' --seeds 1-2)

# --- the 2 x 2 x 2 sweep ------------------------------------------------------------------
out=$("$bin" sweep tiny.yaml "${vary[@]}" --jobs 2 -o full 2>&1)
expect_eq "sweep exit status" "$?" 0
expect_eq "summary line" "$(echo "$out" | tail -1 | sed 's/ in [0-9.]* s wall//')" \
  "sweep: 8 runs: 8 done, 0 failed, 0 skipped; manifest full/sweep.json"
want_names="count=1_replicas=2_seed=1
count=1_replicas=2_seed=2
count=1_replicas=3_seed=1
count=1_replicas=3_seed=2
count=2_replicas=2_seed=1
count=2_replicas=2_seed=2
count=2_replicas=3_seed=1
count=2_replicas=3_seed=2"
expect_eq "trace names" "$(cd full && ls *.db | sed 's/\.db$//')" "$want_names"
expect_eq "log names" "$(cd full && ls *.log | sed 's/\.log$//')" "$want_names"
for f in full/*.db; do
  n=$(basename "$f" .db)
  count=$(echo "$n" | sed 's/.*count=\([0-9]*\).*/\1/')
  reps=$(echo "$n" | sed 's/.*replicas=\([0-9]*\).*/\1/')
  seed=$(echo "$n" | sed 's/.*seed=\([0-9]*\).*/\1/')
  expect_eq "$n: nodes" "$(q "$f" 'SELECT count(*) FROM node')" "$count"
  expect_eq "$n: pods (replicas x 3 arrivals)" "$(q "$f" 'SELECT count(*) FROM pod')" "$((reps * 3))"
  expect_eq "$n: seed" "$(q "$f" "SELECT value FROM run WHERE key = 'seed'")" "$seed"
  expect_eq "$n: status" "$(q "$f" "SELECT value FROM run WHERE key = 'status'")" "complete"
done
# The manifest: every run, in run order (first --vary slowest, seed fastest), with its overrides.
if command -v python3 >/dev/null; then
  got=$(python3 -c '
import json, sys
m = json.load(open("full/sweep.json"))
print(m["schema"], m["totalRuns"], m["counts"]["done"], m["shard"])
for r in m["runs"]:
    print(r["index"], r["name"], r["file"], r["seed"], r["status"], r["exitStatus"],
          json.dumps(r["overrides"], sort_keys=True))')
  expect_eq "manifest" "$got" "gpusim-sweep/1 8 8 {'k': 1, 'n': 1}
0 count=1_replicas=2_seed=1 count=1_replicas=2_seed=1.db 1 done 0 {\"cluster.nodePools[0].count\": \"1\", \"workloads[0].replicas\": \"2\"}
1 count=1_replicas=2_seed=2 count=1_replicas=2_seed=2.db 2 done 0 {\"cluster.nodePools[0].count\": \"1\", \"workloads[0].replicas\": \"2\"}
2 count=1_replicas=3_seed=1 count=1_replicas=3_seed=1.db 1 done 0 {\"cluster.nodePools[0].count\": \"1\", \"workloads[0].replicas\": \"3\"}
3 count=1_replicas=3_seed=2 count=1_replicas=3_seed=2.db 2 done 0 {\"cluster.nodePools[0].count\": \"1\", \"workloads[0].replicas\": \"3\"}
4 count=2_replicas=2_seed=1 count=2_replicas=2_seed=1.db 1 done 0 {\"cluster.nodePools[0].count\": \"2\", \"workloads[0].replicas\": \"2\"}
5 count=2_replicas=2_seed=2 count=2_replicas=2_seed=2.db 2 done 0 {\"cluster.nodePools[0].count\": \"2\", \"workloads[0].replicas\": \"2\"}
6 count=2_replicas=3_seed=1 count=2_replicas=3_seed=1.db 1 done 0 {\"cluster.nodePools[0].count\": \"2\", \"workloads[0].replicas\": \"3\"}
7 count=2_replicas=3_seed=2 count=2_replicas=3_seed=2.db 2 done 0 {\"cluster.nodePools[0].count\": \"2\", \"workloads[0].replicas\": \"3\"}"
fi
expect_eq "log starts with the run's command" "$(head -1 full/count=2_replicas=3_seed=1.log)" \
  "\$ gpusim run tiny.yaml --set 'cluster.nodePools[0].count=2' --set 'workloads[0].replicas=3' --seed 1 -o full/count=2_replicas=3_seed=1.db --quiet-progress"

# --- resume: complete traces are skipped, a missing one is run, --force runs all -----------
for f in full/*.db; do sqlite3 "$f" .dump >"$f.sql"; done
rm full/count=1_replicas=3_seed=2.db
out=$("$bin" sweep tiny.yaml "${vary[@]}" -o full 2>&1)
expect_eq "resume exit status" "$?" 0
expect_eq "resume summary" "$(echo "$out" | tail -1 | sed 's/ in [0-9.]* s wall//')" \
  "sweep: 8 runs: 1 done, 0 failed, 7 skipped; manifest full/sweep.json"
expect_eq "resume ran the missing run" "$(echo "$out" | grep -c '\] done  count=1_replicas=3_seed=2 ')" 1
for f in full/*.db; do
  sqlite3 "$f" .dump | cmp -s - "$f.sql" || bad "resumed $f differs from the first sweep's"
done
ok
out=$("$bin" sweep tiny.yaml "${vary[@]}" -o full --force 2>&1)
expect_eq "--force summary" "$(echo "$out" | tail -1 | sed 's/ in [0-9.]* s wall//')" \
  "sweep: 8 runs: 8 done, 0 failed, 0 skipped; manifest full/sweep.json"
rm -f full/*.sql
# A sweep may grow (more values, more seeds): the runs it had are skipped.
cp -r full grow
out=$("$bin" sweep tiny.yaml --vary 'cluster.nodePools[0].count=1,2,3' --vary 'workloads[0].replicas=2, 3' --seeds 1-2 -o grow 2>&1)
expect_eq "grown sweep" "$(echo "$out" | tail -1 | sed 's/ in [0-9.]* s wall//')" \
  "sweep: 12 runs: 4 done, 0 failed, 8 skipped; manifest grow/sweep.json"
# One directory, one sweep: other --vary paths, or a run the manifest lists with another
# horizon, are refused; a trace of another seed (no manifest to say so) is run again.
err=$("$bin" sweep tiny.yaml --vary 'workloads[0].replicas=2,3' -o full 2>&1)
expect_eq "other --vary paths: exit" "$?" 2
expect_eq "other --vary paths: message" "$err" \
  "gpusim sweep: full/sweep.json is the manifest of a sweep with other --vary paths or --set options: one directory holds one sweep (its values and seeds may grow); use another -o DIR, or --force"
err=$("$bin" sweep tiny.yaml "${vary[@]}" --horizon 20m -o full 2>&1)
expect_eq "another horizon: message" "$err" \
  "gpusim sweep: full/sweep.json lists run count=1_replicas=2_seed=1 with another --horizon than this sweep's: its trace is another run; use another -o DIR, or --force to run it again"
"$bin" sweep tiny.yaml --seeds 3 -o stale >/dev/null 2>&1
mv stale/seed=3.db stale/seed=4.db
rm stale/sweep.json
out=$("$bin" sweep tiny.yaml --seeds 4 -o stale 2>&1)
expect_eq "a trace of another seed is run again" "$(echo "$out" | sed -n 2p)" \
  "gpusim sweep: stale/seed=4.db is not the trace of run seed=4 (its seed is 3): running it again"
expect_eq "... and then is seed 4's" "$(q stale/seed=4.db "SELECT value FROM run WHERE key = 'seed'")" 4

# --- shards: 1/3..3/3 together are the unsharded sweep ----------------------------------------
if command -v parallel >/dev/null && parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
  how="GNU parallel"
  parallel --will-cite -q --halt now,fail=1 "$bin" sweep tiny.yaml "${vary[@]}" --jobs 1 -o shards --shard {}/3 \
    ::: 1 2 3 >shards.out 2>&1
  rc=$?
else
  how="background processes"
  rc=0
  for k in 1 2 3; do "$bin" sweep tiny.yaml "${vary[@]}" --jobs 1 -o shards --shard $k/3 >shards.$k 2>&1 & done
  for k in 1 2 3; do wait -n || rc=1; done
fi
expect_eq "3 shards ($how) exit status" "$rc" 0
expect_eq "shard names = unsharded names" "$(cd shards && ls *.db | sed 's/\.db$//')" "$want_names"
for f in full/*.db; do
  n=$(basename "$f")
  # the run table's `command` row names each run's own -o (full/... or shards/...): left out
  if ! cmp -s <(sqlite3 "$f" .dump | grep -v "^INSERT INTO run VALUES('command',") \
    <(sqlite3 "shards/$n" .dump | grep -v "^INSERT INTO run VALUES('command',"); then
    bad "shards/$n differs from full/$n"
  fi
done
ok
expect_eq "one manifest per shard" "$(cd shards && ls *.json | tr '\n' ' ')" \
  "sweep-1-of-3.json sweep-2-of-3.json sweep-3-of-3.json "
# merge reads every shard's manifest: 8 runs, each with its seed, exit status and overrides.
"$bin" merge shards -o shards.db >/dev/null 2>&1
expect_eq "merge of the shards" \
  "$(q shards.db "SELECT count(*), count(exit_status), count(DISTINCT seed), sum(overrides LIKE '%nodePools[0].count%') FROM runs")" "8|8|2|8"
# Shard K takes the runs i with i % 3 == K-1.
expect_eq "shard 2/3 runs" "$("$bin" sweep tiny.yaml "${vary[@]}" -o x --shard 2/3 --dry-run | cut -d' ' -f1,2 | tr '\n' ' ')" \
  "1 count=1_replicas=2_seed=2 4 count=2_replicas=2_seed=1 7 count=2_replicas=3_seed=2 "
expect_eq "auto/3 from JOB_COMPLETION_INDEX=1" \
  "$(JOB_COMPLETION_INDEX=1 "$bin" sweep tiny.yaml "${vary[@]}" -o x --shard auto/3 --dry-run | cut -d' ' -f1 | tr '\n' ' ')" "1 4 7 "
expect_eq "auto/3 from SLURM_ARRAY_TASK_ID=7, MIN=5" \
  "$(env -u JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=5 "$bin" sweep tiny.yaml "${vary[@]}" -o x --shard auto/3 --dry-run | cut -d' ' -f1 | tr '\n' ' ')" \
  "2 5 "
err=$(env -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID "$bin" sweep tiny.yaml "${vary[@]}" -o x --shard auto/3 2>&1)
expect_eq "auto without an index: exit" "$?" 2
expect_eq "auto without an index: message" "$err" \
  "gpusim sweep: --shard auto/3: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (a Slurm array) is set; give the shard as K/3"
err=$(JOB_COMPLETION_INDEX=3 "$bin" sweep tiny.yaml "${vary[@]}" -o x --shard auto/3 2>&1)
expect_eq "auto past N" "$err" "gpusim sweep: --shard auto/3: JOB_COMPLETION_INDEX gives shard 4, past the 3 shards"
err=$("$bin" sweep tiny.yaml "${vary[@]}" -o x --shard 4/3 2>&1)
expect_eq "--shard 4/3" "$err" "gpusim sweep: --shard '4/3': expected K/N with 1 <= K <= N, or auto/N"

# --- names of values: braces, long values, collisions -----------------------------------------
names=$("$bin" sweep tiny.yaml --vary 'workloads[0].duration={distribution: exponential, mean: 5m},2h' \
  --vary 'cluster.nodePools[0].count=1' -o x --dry-run | cut -d' ' -f2 | tr '\n' ' ')
expect_eq "a value in braces is one value" "$names" "duration=distribution_exponential_mean_5m_count=1 duration=2h_count=1 "
out=$("$bin" sweep tiny.yaml --vary 'workloads[0].duration={distribution: exponential, mean: 5m},2h' -o braces 2>&1)
expect_eq "braces sweep exit" "$?" 0
expect_eq "braces: the 2h pods hold the 4 GPUs to the end, 2 wait" \
  "$(q 'braces/duration=2h.db' "SELECT group_concat(phase || ' ' || n, ', ') FROM (SELECT phase, count(*) AS n FROM pod GROUP BY phase ORDER BY phase)")" "Pending 2, Running 4"
names=$("$bin" sweep tiny.yaml --vary 'metadata.name="8",8,a b' -o x --dry-run | cut -d' ' -f2 | tr '\n' ' ')
expect_eq "collisions after sanitising get -2" "$names" "name=8 name=8-2 name=a_b "
names=$("$bin" sweep tiny.yaml --vary 'cluster.nodePools[0].count=1' --vary 'cluster.nodePools[1].count=2' \
  --vary 'spec.horizon=1h' -o x --dry-run | cut -d' ' -f2)
expect_eq "labels: shortest distinguishing suffix" "$names" "nodePools_0.count=1_nodePools_1.count=2_horizon=1h"
names=$("$bin" sweep tiny.yaml --vary 'metadata.description=a very long description that goes on and on and on' \
  -o x --dry-run | cut -d' ' -f2)
expect_eq "long value: cut and hashed" "$names" "description=a_very_long_description_that_goe-167ca462"

# --- bad --vary and other usage errors ------------------------------------------------------------
usage_err() { # want-message args...
  local want=$1
  shift
  local got
  got=$("$bin" sweep tiny.yaml "$@" -o bad 2>&1)
  local rc=$?
  expect_eq "exit of sweep $*" "$rc" 2
  expect_eq "message of sweep $*" "$got" "$want"
}
usage_err "gpusim sweep: --vary 'cluster.nodePools[0].count': expected PATH=V1,V2,... (no '=')" --vary 'cluster.nodePools[0].count'
usage_err "gpusim sweep: --vary '=1,2': expected PATH=V1,V2,... (the path is empty)" --vary '=1,2'
usage_err "gpusim sweep: --vary 'x=': no values after '='" --vary 'x='
usage_err "gpusim sweep: --vary 'x=1,,2': value 2 of '1,,2' is empty" --vary 'x=1,,2'
usage_err "gpusim sweep: --vary 'x=1,': value 2 of '1,' is empty" --vary 'x=1,'
usage_err "gpusim sweep: --vary 'x={a: 1,2': unbalanced brackets in '{a: 1,2'" --vary 'x={a: 1,2'
usage_err "gpusim sweep: --vary 'x=\"a,b': unbalanced quote in '\"a,b'" --vary 'x="a,b'
usage_err "gpusim sweep: --vary 'x=1,2,1': value '1' given twice" --vary 'x=1,2,1'
usage_err "gpusim sweep: --vary: path 'x' given twice" --vary 'x=1' --vary 'x=2'
usage_err "gpusim sweep: nothing to sweep: give --vary PATH=V1,V2,... or --seeds A-B"
usage_err "gpusim sweep: --seeds '3-1': expected A-B or A,B,... of distinct non-negative integers (at most 10000)" --seeds 3-1
[ ! -e bad ] && ok || bad "a usage error created the output directory"
# An unknown path is the loader's to find: the runs fail (exit 1) and the log says why.
out=$("$bin" sweep tiny.yaml --vary 'cluster.nodePools[0].cuont=1,2' -o unknown 2>&1)
expect_eq "unknown path: sweep exit" "$?" 1
expect_eq "unknown path: summary" "$(echo "$out" | tail -1 | sed 's/ in [0-9.]* s wall//')" \
  "sweep: 2 runs: 0 done, 2 failed, 0 skipped; manifest unknown/sweep.json"
grep -q "gpusim: --set:1:22: error: unknown key 'cuont' in spec.cluster.nodePools\[0\] (did you mean 'count'?)" unknown/cuont=1.log \
  && ok || { bad "unknown path: the log lacks the loader's message:"; cat unknown/cuont=1.log; }
expect_eq "unknown path: the failure line quotes the log" \
  "$(echo "$out" | grep -cF "FAILED cuont=1 (exit 3), log unknown/cuont=1.log: gpusim: --set:1:22: error: unknown key 'cuont' in spec.cluster.nodePools[0] (did you mean 'count'?)")" 1
# A failed expect: check is a run with a complete trace: listed, not a sweep failure.
cat >checks.yaml <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: checks}
spec:
  horizon: 10m
  cluster:
    nodePools:
    - {name: gpu, count: 1, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: "48", memory: 192Gi}}
  workloads:
  - name: w
    replicas: 2
    arrival: {at: 0s}
    template:
      spec:
        containers:
        - name: c
          resources:
            limits: {nvidia.com/gpu: 1}
  expect:
  - metric: gpusAllocated
    at: 5m
    equals: 2
YAML
out=$("$bin" sweep checks.yaml --vary 'workloads[0].replicas=2,3' -o checks 2>&1)
expect_eq "failed checks: sweep exit" "$?" 0
expect_eq "failed checks: summary" "$(echo "$out" | tail -1 | sed 's/ in [0-9.]* s wall//')" \
  "sweep: 2 runs: 2 done, 0 failed, 0 skipped; 1 with failed expect: checks (not a sweep failure); manifest checks/sweep.json"

# --- SIGINT stops the children and leaves their .partial traces --------------------------------
"$bin" sweep tiny.yaml --set 'workloads[0].arrival={every: 1s, count: 2000000}' --set 'workloads[0].replicas=1' \
  --horizon 1000h --seeds 1-3 --jobs 2 -o sigint >sigint.out 2>&1 &
pid=$!
for _ in $(seq 600); do [ -e 'sigint/seed=1.db.partial' ] && [ -e 'sigint/seed=2.db.partial' ] && break; sleep 0.1; done
sleep 1   # the runs have their signal handlers (a slow, loaded machine: the suite runs in parallel)
kill -INT $pid
wait $pid
expect_eq "SIGINT: sweep exit" "$?" 130
expect_eq "SIGINT: .partial traces left" "$(cd sigint && ls *.partial | tr '\n' ' ')" "seed=1.db.partial seed=2.db.partial "
expect_eq "SIGINT: they say interrupted" "$(q 'sigint/seed=1.db.partial' "SELECT value FROM run WHERE key = 'status'")" interrupted
expect_eq "SIGINT: summary" "$(tail -1 sigint.out | sed 's/ in [0-9.]* s wall//')" \
  "sweep: 3 runs: 0 done, 0 failed, 0 skipped, 2 interrupted, 1 not started; manifest sigint/sweep.json"

# SIGKILL of the sweep: its runs get SIGTERM (PR_SET_PDEATHSIG) and close their traces.
"$bin" sweep tiny.yaml --set 'workloads[0].arrival={every: 1s, count: 2000000}' --set 'workloads[0].replicas=1' \
  --horizon 1000h --seeds 1-3 --jobs 2 -o sigkill >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ -e 'sigkill/seed=1.db.partial' ] && [ -e 'sigkill/seed=2.db.partial' ] && break; sleep 0.1; done
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
# both runs close their traces (slowly under ASan) before they log it: wait for both logs
for _ in $(seq 600); do
  [ "$(cat sigkill/seed=1.log sigkill/seed=2.log 2>/dev/null | grep -c 'interrupted by SIGTERM')" = 2 ] && break
  sleep 0.1
done
expect_eq "SIGKILL: the runs were stopped by SIGTERM" "$(cat sigkill/seed=1.log sigkill/seed=2.log | grep -c 'interrupted by SIGTERM')" 2
expect_eq "SIGKILL: their traces say interrupted" "$(q 'sigkill/seed=2.db.partial' "SELECT value FROM run WHERE key = 'status'")" interrupted

echo "$checks passed, $fail failed"
[ "$fail" -eq 0 ]
