#!/usr/bin/env bash
# `gpusim compare` and `gpusim plan`: groups, means and 95% confidence intervals checked against
# an independent computation; plan's answer brackets the objective (holds at the answer, fails
# one node below), by the scenario's arithmetic and by re-running both sizes.
# Usage: test-compare-plan.sh GPUSIM
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect FILE PATTERN
  if ! grep -qE -- "$2" "$1"; then
    echo "FAIL: no line matching '$2' in:"; cat "$1"; fail=1
  fi
}
here=$(cd "$(dirname "$0")/../.." && pwd)

# 1. Eight 8-GPU pods at 0s, an hour each, on N 8-GPU nodes: with 8 nodes nobody waits; with 7
#    the eighth waits 1h, and p95 over the eight waits (linear interpolation) is 0.65 h = 39m.
cat >"$tmp/waves.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: waves}
spec:
  horizon: 4h
  cluster:
    nodePools:
    - {name: cpu, count: 1, capacity: {cpu: '8', memory: 32Gi}}
    - {name: h100, count: 2, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '96', memory: 1Ti}}
  workloads:
  - name: train
    replicas: 8
    duration: 1h
    template:
      spec:
        containers:
        - name: main
          resources: {limits: {nvidia.com/gpu: 8, cpu: '8', memory: 64Gi}}
YAML
"$bin" plan "$tmp/waves.yaml" --pool h100 --objective 'p95(timeToSchedule) < 30m' --jobs 2 \
  --keep "$tmp/plan" >"$tmp/plan.txt" 2>"$tmp/plan.err" || { echo "FAIL: plan exit $?"; cat "$tmp/plan.err"; fail=1; }
expect "$tmp/plan.txt" '^answer: 8 nodes in pool h100: p95\(timeToSchedule\) is 0s on average, 0s at worst; with 7 it holds in 0 of 1 run \(39m0s on average, 39m0s at worst\)$'
expect "$tmp/plan.txt" '^  8 +1/1 .*<- answer$'
expect "$tmp/plan.err" 'varying cluster.nodePools\[1\].count from 1 upward'
# the kept traces are real runs of those sizes
n8=$(sqlite3 "$tmp"/plan/nodes=8/*.db "select count(*) from node where pool='h100'")
n7=$(sqlite3 "$tmp"/plan/nodes=7/*.db "select count(*) from node where pool='h100'")
[[ $n8 == 8 && $n7 == 7 ]] || { echo "FAIL: kept traces have $n8 and $n7 h100 nodes"; fail=1; }
# re-run the answer and one below by hand: the objective holds at 8, not at 7
for n in 7 8; do
  "$bin" run "$tmp/waves.yaml" --set "cluster.nodePools[1].count=$n" -o "$tmp/by-hand-$n.db" --quiet-progress >/dev/null
  "$bin" report "$tmp/by-hand-$n.db" --format json >"$tmp/by-hand-$n.json"
done
if command -v python3 >/dev/null; then
  python3 - "$tmp/by-hand-7.json" "$tmp/by-hand-8.json" <<'PY' || fail=1
import json, sys
p7 = json.load(open(sys.argv[1]))["timeToSchedule"]["p95"]
p8 = json.load(open(sys.argv[2]))["timeToSchedule"]["p95"]
assert abs(p7 - 2340.0) < 1e-6 and p8 == 0, (p7, p8)
PY
fi
# --max below the answer: no answer, exit 1; bad objectives are usage errors naming the problem
set +e
"$bin" plan "$tmp/waves.yaml" --pool h100 --objective 'p95(timeToSchedule) < 30m' --min 2 --max 4 >"$tmp/none.txt" 2>/dev/null
rc=$?
set -e
[[ $rc == 1 ]] || { echo "FAIL: plan with --max 4 exit $rc, want 1"; fail=1; }
expect "$tmp/none.txt" '^answer: none: the objective does not hold with 4 nodes'
for bad in 'p95(timeToSchedule)' 'p95(timeToSchedule) < soon' 'p42(timeToSchedule) < 10m'; do
  if "$bin" plan "$tmp/waves.yaml" --pool h100 --objective "$bad" --max 2 >/dev/null 2>"$tmp/bad.err"; then
    echo "FAIL: objective '$bad' accepted"; fail=1
  fi
  expect "$tmp/bad.err" 'gpusim: plan: '
done
if "$bin" plan "$tmp/waves.yaml" --pool a100 --objective 'max(timeToSchedule) < 1m' 2>"$tmp/pool.err"; then
  echo "FAIL: unknown pool accepted"; fail=1
fi
expect "$tmp/pool.err" 'no node pool of that name under cluster.nodePools; its pools are: cpu h100'

# An autoscaled pool: plan answers for its maxSize (12 burst pods of 8 GPUs, one per node).
"$bin" plan "$here/scenarios/planning/autoscale-precompiled.yaml" --pool h100 --objective 'p95(timeToSchedule) < 6m' \
  --max 16 >"$tmp/as.txt" 2>"$tmp/as.err" || { echo "FAIL: plan (autoscaled) exit $?"; cat "$tmp/as.err"; fail=1; }
expect "$tmp/as.err" 'varying cluster.nodePools\[1\].autoscaling.maxSize from 1 to 16'
expect "$tmp/as.txt" '^answer: maxSize 12 for node group h100: .*; with 11 it holds in 0 of 1 run'

# 2. compare: two sizes x three seeds of a random scenario; check each group's mean and CI
#    half-width (t quantile 0.975, 2 degrees of freedom) against the per-run values.
cat >"$tmp/poisson.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: poisson}
spec:
  horizon: 6h
  cluster:
    nodePools:
    - {name: h100, count: 2, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '96', memory: 1Ti}}
  workloads:
  - name: infer
    arrival: {process: poisson, rate: 6/h, count: 30}
    duration: {distribution: exponential, mean: 40m}
    template:
      spec:
        containers:
        - name: main
          resources: {limits: {nvidia.com/gpu: 4, cpu: '8', memory: 64Gi}}
YAML
mkdir -p "$tmp/runs"
for n in 1 2; do for s in 1 2 3; do
  "$bin" run "$tmp/poisson.yaml" --set "cluster.nodePools[0].count=$n" --seed $s -o "$tmp/runs/n$n-s$s.db" --quiet-progress >/dev/null
done; done
"$bin" compare "$tmp/runs" --baseline count=2 >"$tmp/cmp.txt"
expect "$tmp/cmp.txt" '^compare: 6 runs in 2 groups, 3 seeds each'
expect "$tmp/cmp.txt" '^metric +count=1 +count=2 \(baseline\)$'
expect "$tmp/cmp.txt" '^p95\(timeToSchedule\) '
"$bin" compare "$tmp/runs" --format json --metric 'p95(timeToSchedule)' --metric pendingGpuHours >"$tmp/cmp.json"
"$bin" compare "$tmp/runs" --format csv >"$tmp/cmp.csv"
expect "$tmp/cmp.csv" '^group,metric,n,mean,sd,ci95,diff,diffPct$'
expect "$tmp/cmp.csv" '^count=1,p95\(timeToSchedule\),3,[0-9.e+-]+,[0-9.e+-]*,[0-9.e+-]*,0,0$'
if command -v python3 >/dev/null; then
  python3 - "$tmp/cmp.json" "$tmp/runs" <<'PY' || fail=1
import json, math, sqlite3, sys, statistics
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "gpusim-compare/1"
assert doc["metrics"] == ["p95(timeToSchedule)", "pendingGpuHours"], doc["metrics"]
assert [g["label"] for g in doc["groups"]] == ["count=1", "count=2"]
def p95(db):  # from the pod table, independently: linear interpolation between order statistics
    w = sorted(r[0] / 1e6 for r in sqlite3.connect(db).execute(
        "select scheduled_us - created_us from pod where scheduled_us is not null"))
    h = (len(w) - 1) * 0.95
    lo = math.floor(h)
    return w[lo] + (h - lo) * (w[min(lo + 1, len(w) - 1)] - w[lo])
for g in doc["groups"]:
    files = [r["file"] for r in g["runs"]]
    assert len(files) == 3, files
    vals = [p95(f) for f in files]
    cell = g["metrics"]["p95(timeToSchedule)"]
    assert all(abs(a - b) < 1e-6 for a, b in zip(vals, cell["values"])), (vals, cell["values"])
    assert abs(cell["mean"] - statistics.mean(vals)) < 1e-6
    ci = 4.302652729911275 * statistics.stdev(vals) / math.sqrt(3)
    assert abs(cell["ci95"] - ci) < 1e-6 * max(1, ci), (cell["ci95"], ci)
base = doc["groups"][0]["metrics"]["p95(timeToSchedule)"]["mean"]
other = doc["groups"][1]["metrics"]["p95(timeToSchedule)"]
assert abs(other["diff"] - (other["mean"] - base)) < 1e-6
PY
fi

# 3. compare scenarios: runs them first, then the same table (the teaching pair); --vary runs a
#    scenario once per value, in the sweep's order (the first value is the baseline)
"$bin" compare "$here/scenarios/teaching/spread.yaml" "$here/scenarios/teaching/binpack.yaml" --jobs 2 \
  --metric pendingAtEnd --metric 'max(timeToSchedule)' >"$tmp/sb.txt" 2>"$tmp/sb.err"
expect "$tmp/sb.txt" '^metric +spread \(baseline\) +binpack$'
expect "$tmp/sb.txt" '^pendingAtEnd +1 +0 \(-1 -100.0%\)$'
"$bin" compare "$tmp/waves.yaml" --vary 'cluster.nodePools[1].count=8,7' --metric 'p95(timeToSchedule)' \
  --format csv >"$tmp/vary.csv" 2>/dev/null
expect "$tmp/vary.csv" '^count=8,p95\(timeToSchedule\),1,0,,,0,$'
expect "$tmp/vary.csv" '^count=7,p95\(timeToSchedule\),1,2340,,,2340,$'
if "$bin" compare "$tmp/runs" --baseline nope >/dev/null 2>"$tmp/b.err"; then echo "FAIL: bad baseline accepted"; fail=1; fi
expect "$tmp/b.err" '--baseline nope: no such group'

# 4. What compare refuses or keeps apart: the same run twice, --seeds without a scenario; runs of
#    other horizons are other groups; a merged database in a sweep directory is skipped; the
#    first argument's group is the baseline, scenario or trace.
if "$bin" compare "$tmp/runs/n1-s1.db" "$tmp/runs/n1-s1.db" >/dev/null 2>"$tmp/dup.err"; then echo "FAIL: a trace twice accepted"; fail=1; fi
expect "$tmp/dup.err" 'are runs of one group \(poisson\) with the same seed 1: give each run once'
if "$bin" compare "$tmp/runs" --seeds 1-3 >/dev/null 2>"$tmp/seeds.err"; then echo "FAIL: --seeds with traces only accepted"; fail=1; fi
expect "$tmp/seeds.err" '--seeds applies to scenario arguments'
"$bin" run "$tmp/poisson.yaml" --horizon 3h --seed 2 -o "$tmp/h3.db" --quiet-progress >/dev/null
"$bin" compare "$tmp/runs/n2-s1.db" "$tmp/h3.db" --metric nodeHours --format csv >"$tmp/hz.csv"
expect "$tmp/hz.csv" '^horizon=6h0m0s count=2,nodeHours,1,12,,,0,0$'
expect "$tmp/hz.csv" '^horizon=3h0m0s count=\(unset\),nodeHours,1,6,,,-6,-50$'
"$bin" merge "$tmp/runs" -o "$tmp/runs/all.db" >/dev/null
"$bin" compare "$tmp/runs" --metric nodeHours >"$tmp/m.txt" 2>"$tmp/m.err"
expect "$tmp/m.err" 'all.db: skipped: a merged database, not a trace'
expect "$tmp/m.txt" '^compare: 6 runs in 2 groups'
"$bin" compare "$tmp/waves.yaml" --set 'cluster.nodePools[1].count=7' "$tmp/plan/nodes=8/"*.db \
  --metric 'p95(timeToSchedule)' --format csv >"$tmp/order.csv" 2>/dev/null
expect "$tmp/order.csv" '^count=7,p95\(timeToSchedule\),1,2340,,,0,0$'

# 5. plan: --min 0 is searched; an answer with pods never bound says so (30 minutes on one
#    node: one pod bound at once, seven never)
"$bin" plan "$tmp/waves.yaml" --pool h100 --objective 'p95(timeToSchedule) < 30m' --min 0 --max 1 \
  --set horizon=30m >"$tmp/z.txt" 2>/dev/null || { echo "FAIL: plan --min 0 exit $?"; fail=1; }
expect "$tmp/z.txt" '^  0 +0/1 '
expect "$tmp/z.txt" '^warning: at the answer 1 of 1 run ended with pods never bound \(up to 7 in one run\)'

# Two objectives: a run holds when both do (30 minutes: at 7 nodes one pod is never bound)
"$bin" plan "$tmp/waves.yaml" --pool h100 --objective 'p95(timeToSchedule) < 30m' --objective 'pendingAtEnd < 1' \
  --set horizon=30m >"$tmp/two.txt" 2>/dev/null || { echo "FAIL: plan with two objectives exit $?"; fail=1; }
expect "$tmp/two.txt" '^plan: pool h100, objectives p95\(timeToSchedule\) < 30m0s and pendingAtEnd < 1 in every run'
expect "$tmp/two.txt" '^answer: 8 nodes in pool h100: p95\(timeToSchedule\) is 0s on average, 0s at worst, pendingAtEnd is 0 on average, 0 at worst; with 7 it holds in 0 of 1 run \(p95\(timeToSchedule\) 0s on average, 0s at worst, pendingAtEnd 1 on average, 1 at worst\)$'
if grep -q '^warning:' "$tmp/two.txt"; then echo "FAIL: a warning about pending pods although pendingAtEnd is asked"; fail=1; fi
if grep -q ' $' "$tmp/two.txt"; then echo "FAIL: trailing blanks in plan's table"; fail=1; fi

# 6. SIGTERM to compare or plan stops their runs (no gpusim left running) and removes the
#    temporary directory; the exit status is 128 + 15.
cat >"$tmp/long.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: long}
spec:
  horizon: 2000h
  cluster:
    nodePools:
    - {name: h100, count: 40, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '96', memory: 1Ti}}
  workloads:
  - name: infer
    arrival: {process: poisson, rate: 600/h}
    duration: {distribution: exponential, mean: 4h}
    template:
      spec:
        containers:
        - name: main
          resources: {limits: {nvidia.com/gpu: 1}}
YAML
set +e
for cmd in compare plan; do
  export TMPDIR="$tmp/tmp-$cmd"; mkdir -p "$TMPDIR"
  if [ $cmd = compare ]; then
    "$bin" compare "$tmp/long.yaml" >/dev/null 2>&1 & pid=$!
  else
    "$bin" plan "$tmp/long.yaml" --pool h100 --objective 'p95(timeToSchedule) < 1m' >/dev/null 2>&1 & pid=$!
  fi
  sleep 2
  kill -TERM $pid
  wait $pid; rc=$?
  unset TMPDIR
  sleep 1
  [[ $rc == 143 ]] || { echo "FAIL: $cmd after SIGTERM exit $rc, want 143"; fail=1; }
  if pgrep -f "$tmp/long.yaml" >/dev/null; then echo "FAIL: $cmd left runs going:"; pgrep -af "$tmp/long.yaml"; pkill -f "$tmp/long.yaml"; fail=1; fi
  left=$(ls "$tmp/tmp-$cmd")
  [[ -z $left ]] || { echo "FAIL: $cmd left $left in its TMPDIR"; fail=1; }
done
exit $fail
