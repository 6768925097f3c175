#!/usr/bin/env bash
# `gpusim explain TRACE POD [--at T]` on the teaching scenarios: it names the cause in plain
# words and a change that makes the pod fit, and every change it suggests is verified here by
# running the scenario with it (the `try:` line explain prints, or the --set written below for
# a DRA selector) and checking that the pod is then bound. Also: a bound pod's scores, an
# unknown pod (nearest names), a pod name used twice (LeaderWorkerSet), --at before the pod
# exists, a trace at --trace-level summary, a scenario that moved and one that changed.
# Usage: test-explain.sh GPUSIM   (run from anywhere; scenarios are found beside this file)
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v sqlite3 >/dev/null || { echo "skipped: sqlite3 is missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" # traces record scenario paths as given: relative to the repository root
fail=0
expect() { # expect FILE PATTERN
  if ! grep -qE -- "$2" "$1"; then
    echo "FAIL: no line matching '$2' in:"; cat "$1"; fail=1
  fi
}
run() { # run OUT SCENARIO [ARGS...]
  local out=$1; shift
  "$bin" run "$@" -o "$out" --quiet-progress >"$tmp/run.out" 2>&1
  local rc=$?
  if [ $rc -gt 1 ]; then echo "FAIL: gpusim run $* exited $rc"; cat "$tmp/run.out"; fail=1; fi
}
bound() { # bound TRACE POD: the pod's node once bound, else nothing
  sqlite3 "$1" "SELECT n.name FROM pod p JOIN node n ON n.id = p.node_id WHERE p.name = '$2'
                AND p.scheduled_us IS NOT NULL ORDER BY p.id DESC LIMIT 1"
}
# verify NAME EXPLAIN_OUTPUT POD N ORIGINAL: run the N-th `try:` command of the output (its --set
# and --horizon arguments, on the same scenario) and check that POD is bound in that run, and
# was never bound in the ORIGINAL trace (so the change is what binds it).
verify() {
  local name=$1 out=$2 pod=$3 n=$4 orig=$5
  if [ -n "$(bound "$orig" "$pod")" ]; then echo "FAIL: $name: $pod is bound without the change"; fail=1; fi
  local line
  line=$(grep -E '^ +try: gpusim run ' "$out" | sed -n "${n}p" | sed 's/^ *try: gpusim run //')
  if [ -z "$line" ]; then echo "FAIL: $name: no try: line $n"; cat "$out"; fail=1; return; fi
  eval "set -- $line"
  run "$tmp/$name-verify.db" "$@"
  local node
  node=$(bound "$tmp/$name-verify.db" "$pod")
  if [ -z "$node" ]; then
    echo "FAIL: $name: with the change ($line) $pod is still not bound"; fail=1
  else
    echo "ok: $name: with the change $pod is bound to $node"
  fi
}

# twelve-nodes: 20 free GPUs, never 4 on one node; 3 tainted nodes.
t=scenarios/teaching/twelve-nodes.yaml
run "$tmp/twelve.db" $t
"$bin" explain "$tmp/twelve.db" needs-four --at 2m >"$tmp/twelve.txt" 2>&1 || { echo "FAIL: explain twelve-nodes exit $?"; cat "$tmp/twelve.txt"; fail=1; }
expect "$tmp/twelve.txt" '^Requests: +cpu 0, memory 0, nvidia.com/gpu 4$'
expect "$tmp/twelve.txt" '^Message: +0/12 nodes are available: 3 node\(s\) had untolerated taint'
expect "$tmp/twelve.txt" 'agrees with the trace \(12 nodes, 13 pods by then\)'
expect "$tmp/twelve.txt" '^  TaintToleration +3  node\(s\) had untolerated taint \{nvidia.com/gpu: present\}: team-b-0 team-b-1 team-b-2$'
expect "$tmp/twelve.txt" '^  NodeResourcesFit +9  Insufficient nvidia.com/gpu: shared-0 '
expect "$tmp/twelve.txt" '^  shared-0 +3 of 4 allocatable$'
expect "$tmp/twelve.txt" '^  shared-8 +1 of 4 allocatable$'
expect "$tmp/twelve.txt" '20 GPUs free on these nodes \(20 in the cluster\), but the largest free block on one node is 3 \(shared-0\) and the pod asks for 4 on one node: fragmentation'
expect "$tmp/twelve.txt" '^  3 nodes carry the taint nvidia.com/gpu=present:NoSchedule, which the pod does not tolerate'
expect "$tmp/twelve.txt" '^  - fits on shared-0 if busy-0 \(1 GPU, priority 0\) were gone$'
expect "$tmp/twelve.txt" 'tolerating the taint nvidia.com/gpu=present:NoSchedule alone makes no node feasible; the 3 nodes then fail NodeResourcesFit \(Insufficient nvidia.com/gpu\)'
verify twelve-nodes "$tmp/twelve.txt" needs-four 1 "$tmp/twelve.db"

# fragmentation: 10 free GPUs, at most 3 on one node.
t=scenarios/teaching/fragmentation.yaml
run "$tmp/frag.db" $t
"$bin" explain "$tmp/frag.db" four-gpu --at 2m >"$tmp/frag.txt" 2>&1 || { echo "FAIL: explain fragmentation"; cat "$tmp/frag.txt"; fail=1; }
expect "$tmp/frag.txt" '10 GPUs free on these nodes \(10 in the cluster\), but the largest free block on one node is 3 \(gpu-0\) and the pod asks for 4 on one node: fragmentation'
expect "$tmp/frag.txt" '^  - fits on gpu-0 if busy-0 \(1 GPU, priority 0\) were gone$'
verify fragmentation "$tmp/frag.txt" four-gpu 1 "$tmp/frag.db"
# at the end of the run the change needs time after T: the try: line extends the horizon
"$bin" explain "$tmp/frag.db" four-gpu >"$tmp/frag-end.txt" 2>&1
expect "$tmp/frag-end.txt" "try: gpusim run scenarios/teaching/fragmentation.yaml --seed 1 --set 'events\[0\]=\{at: 10m0s, deletePod: \{pod: busy-0\}\}' --horizon 20m0s$"
verify fragmentation-end "$tmp/frag-end.txt" four-gpu 1 "$tmp/frag.db"

# toleration-off: the taint on the H100 nodes, the nodeSelector on the L4 nodes.
t=scenarios/teaching/toleration-off.yaml
run "$tmp/tol.db" $t
"$bin" explain "$tmp/tol.db" no-toleration >"$tmp/tol.txt" 2>&1 || { echo "FAIL: explain toleration-off"; cat "$tmp/tol.txt"; fail=1; }
expect "$tmp/tol.txt" '^  2 nodes carry the taint nvidia.com/gpu=present:NoSchedule, which the pod does not tolerate'
expect "$tmp/tol.txt" "^  2 nodes do not match the pod's nodeSelector nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3"
expect "$tmp/tol.txt" '^  - tolerating the taint nvidia.com/gpu=present:NoSchedule makes 2 more nodes feasible \(h100-0, h100-1\)$'
expect "$tmp/tol.txt" '^  - dropping nodeSelector nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3 makes 2 more nodes feasible \(l4-0, l4-1\)$'
verify toleration "$tmp/tol.txt" no-toleration 1 "$tmp/tol.db"
verify node-selector "$tmp/tol.txt" no-toleration 2 "$tmp/tol.db"
node=$(bound "$tmp/toleration-verify.db" no-toleration)
case $node in h100-*) ;; *) echo "FAIL: with the toleration no-toleration is on '$node', not an H100"; fail=1 ;; esac

# gang-deadlock: two incomplete PodGroups hold all 32 GPUs.
t=scenarios/teaching/gang-deadlock.yaml
run "$tmp/gang.db" $t
"$bin" explain "$tmp/gang.db" trainer-a-2 --at 1m >"$tmp/gang.txt" 2>&1 || { echo "FAIL: explain gang-deadlock"; cat "$tmp/gang.txt"; fail=1; }
expect "$tmp/gang.txt" '^  No GPUs free on any of these nodes \(0 in the cluster\)'
expect "$tmp/gang.txt" '^  PodGroup trainer-a: 2 of its pods hold a node \(16 GPUs\), minMember 3\.$'
expect "$tmp/gang.txt" '^  PodGroup trainer-b also holds 16 GPUs with 2 of its 3 pods placed\.$'
expect "$tmp/gang.txt" 'gang deadlock: 2 PodGroups hold 32 GPUs between them'
expect "$tmp/gang.txt" '^  - fits on h100-0 if trainer-b-0 \(8 GPUs, priority 0, PodGroup trainer-b\) were gone$'
if grep -q 'if trainer-a-' "$tmp/gang.txt"; then echo "FAIL: suggests removing a pod of the pod's own group"; fail=1; fi
verify gang-deadlock "$tmp/gang.txt" trainer-a-2 1 "$tmp/gang.db"

# DRA: a CEL selector no T4 satisfies (the message never names it). The original run binds the
# pod only once the H100 pool joins at 5m, so the check is "bound on a T4 before 5m".
t=scenarios/teaching/dra-memory-selector.yaml
run "$tmp/dra.db" $t
"$bin" explain "$tmp/dra.db" big-model --at 4m >"$tmp/dra.txt" 2>&1 || { echo "FAIL: explain dra-memory-selector"; cat "$tmp/dra.txt"; fail=1; }
expect "$tmp/dra.txt" '^Claims: +gpu \(ResourceClaimTemplate gpu-24gi\)$'
expect "$tmp/dra.txt" '^  DynamicResources +2  cannot allocate all claims: t4-0 t4-1$'
expect "$tmp/dra.txt" "dropping the selector of request gpu of ResourceClaim big-model-gpu, from ResourceClaimTemplate gpu-24gi \(device.capacity\['gpu.nvidia.com'\].memory.compareTo\(quantity\('24Gi'\)\) >= 0\) makes 2 more nodes feasible \(t4-0, t4-1\)"
# verified: without the selector the pod runs on a T4 before the H100 pool joins at 5m (with it,
# not before 5m)
w0=$(sqlite3 "$tmp/dra.db" "SELECT scheduled_us FROM pod WHERE name = 'big-model'")
[ "${w0:-0}" -ge 300000000 ] || { echo "FAIL: dra: big-model bound at '$w0' in the original run"; fail=1; }
expect "$tmp/dra.txt" "try: gpusim run scenarios/teaching/dra-memory-selector.yaml --seed 1 --set 'objects\[0\].spec.spec.devices.requests\[0\].exactly.selectors=null'$"
line=$(grep -E '^ +try: gpusim run ' "$tmp/dra.txt" | head -1 | sed 's/^ *try: gpusim run //')
eval "set -- $line"
run "$tmp/dra-verify.db" "$@"
node=$(bound "$tmp/dra-verify.db" big-model)
when=$(sqlite3 "$tmp/dra-verify.db" "SELECT scheduled_us FROM pod WHERE name = 'big-model'")
case $node in t4-*) [ "${when:-999999999999}" -lt 300000000 ] && echo "ok: dra: without the selector big-model is bound to $node at ${when}us" \
  || { echo "FAIL: dra: bound at $when"; fail=1; } ;;
  *) echo "FAIL: dra: without the selector big-model is on '$node'"; fail=1 ;; esac

# Cordoned nodes: uncordoning them is checked and verified.
cat >"$tmp/cordoned.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: cordoned}
spec:
  horizon: 10m
  cluster:
    nodePools:
    - {name: gpu, count: 2, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: "48", memory: 192Gi}}
  events:
  - {at: 0s, cordon: {node: gpu-0}}
  - {at: 0s, cordon: {node: gpu-1}}
  workloads:
  - name: waits
    arrival: {at: 1m}
    template: {spec: {containers: [{name: main, resources: {limits: {nvidia.com/gpu: 2}}}]}}
YAML
run "$tmp/cordoned.db" "$tmp/cordoned.yaml"
"$bin" explain "$tmp/cordoned.db" waits --at 2m >"$tmp/cordoned.txt" 2>&1 || { echo "FAIL: explain cordoned"; cat "$tmp/cordoned.txt"; fail=1; }
expect "$tmp/cordoned.txt" '^  NodeUnschedulable +2  node\(s\) were unschedulable: gpu-0 gpu-1$'
expect "$tmp/cordoned.txt" '^  2 nodes are cordoned \(spec.unschedulable\)\.$'
expect "$tmp/cordoned.txt" '^  - uncordoning the 2 cordoned nodes makes 2 more nodes feasible \(gpu-0, gpu-1\)$'
expect "$tmp/cordoned.txt" "--set 'events\[2\]=\{at: 2m0s, uncordon: \{node: gpu-0\}\}' --set 'events\[3\]=\{at: 2m0s, uncordon: \{node: gpu-1\}\}'"
verify uncordon "$tmp/cordoned.txt" waits 1 "$tmp/cordoned.db"

# A bound pod: the scores of the cycle that chose its node, beside the runner-up.
run "$tmp/spread.db" scenarios/teaching/spread.yaml
"$bin" explain "$tmp/spread.db" small-3 >"$tmp/spread.txt" 2>&1 || { echo "FAIL: explain spread"; cat "$tmp/spread.txt"; fail=1; }
expect "$tmp/spread.txt" '^Bound to gpu-3 at 3m0s\.$'
expect "$tmp/spread.txt" '^The scheduling cycle that chose gpu-3 judged 4 nodes, 4 feasible'
expect "$tmp/spread.txt" '^  PLUGIN +WEIGHT +gpu-3 \(chosen\) +gpu-0 \(runner-up\)$'
expect "$tmp/spread.txt" '^  NodeResourcesFit +1 +96 x 1 = 96 +93 x 1 = 93$'
expect "$tmp/spread.txt" '^  total +496 +493$'

# A preemption under way (preemption.yaml at 5m): the preemptor nominated, its victims terminating;
# once bound (at the end), its cycle tried the nominated node first.
run "$tmp/pre.db" scenarios/teaching/preemption.yaml
"$bin" explain "$tmp/pre.db" high --at 5m >"$tmp/pre.txt" 2>&1
expect "$tmp/pre.txt" '^  Preemption is under way: the pod is nominated to h100-1, where its victims low-0, low-1 are terminating'
expect "$tmp/pre.txt" '^  - fits on h100-1 if low-0 \(4 GPUs, priority 100\) and low-1 \(4 GPUs, priority 100\) were gone$'
"$bin" explain "$tmp/pre.db" high >"$tmp/pre2.txt" 2>&1
expect "$tmp/pre2.txt" '^Bound to h100-1 at 5m30s, after 1 failed attempt\.$'
expect "$tmp/pre2.txt" '^The scheduling cycle that chose h100-1 judged 1 node, 1 feasible\.$'
expect "$tmp/pre2.txt" 'run to 5m30s \(when the pod was bound\): agrees with the trace'
expect "$tmp/pre2.txt" '^Scoring did not run: h100-1 was the only feasible node\.$'

# Coscheduling: a pod reserved at Permit, and the group member that can never fit (10 one-GPU
# pods, minMember 10, on 9 GPUs); the last attempt's verdicts observed in the replay.
run "$tmp/restart.db" scenarios/teaching/scheduler-restart.yaml
"$bin" explain "$tmp/restart.db" trainer-0 --at 3m >"$tmp/r0.txt" 2>&1
expect "$tmp/r0.txt" '^The pod passed the filters and is reserved on a10-2 \(its requests count there\), waiting at Permit: Coscheduling lets the pods of PodGroup trainer bind only once 10 of them are placed, and 9 are \(9 waiting at Permit\)\.$'
expect "$tmp/r0.txt" '^The group.s pods not placed \(explain them to see why\): trainer-8\.$'
"$bin" explain "$tmp/restart.db" trainer-8 --at 3m >"$tmp/r8.txt" 2>&1
expect "$tmp/r8.txt" '^Its last attempt, at 1m15s, rejected it on the same nodes with the same plugins'
expect "$tmp/r8.txt" '^  The group can never be placed whole: its minMember 10 pods of 1 GPU need 10 GPUs, and the cluster has 9 allocatable\.$'
expect "$tmp/twelve.txt" '^Its last attempt, at 1m0s, rejected it on the same nodes with the same plugins'

# Errors: an unknown pod (nearest names), --at before the pod exists; exit 2.
"$bin" explain "$tmp/twelve.db" needs-for >"$tmp/e.out" 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: unknown pod exit $rc"; fail=1; }
expect "$tmp/e.out" "has no pod named 'needs-for' \(did you mean 'needs-four'\?\)"
"$bin" explain "$tmp/twelve.db" busy >"$tmp/e.out" 2>&1
expect "$tmp/e.out" "did you mean 'busy-0', 'busy-1', 'busy-2'\?"
"$bin" explain "$tmp/twelve.db" needs-four --at 30s >"$tmp/e.out" 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: --at before the pod exit $rc"; fail=1; }
expect "$tmp/e.out" "pod 'needs-four' did not exist yet at 30s: it was created at 1m0s \(try --at 1m0s or later\)"

# A name used twice (a LeaderWorkerSet re-creates its group's pods): the newest by T.
run "$tmp/lws.db" scenarios/teaching/lws-restart.yaml
"$bin" explain "$tmp/lws.db" vllm-0 >"$tmp/lws.txt" 2>&1
expect "$tmp/lws.txt" '^ +\(2 pods had this name; this is the newest created by 10m0s, pod id 6\)$'
expect "$tmp/lws.txt" '^Created: +5m30s'
"$bin" explain "$tmp/lws.db" vllm-0 --at 1m >"$tmp/lws1.txt" 2>&1
expect "$tmp/lws1.txt" 'this is the newest created by 1m0s, pod id 0\)$'

# A trace at --trace-level summary: no events, checked against the pod table.
run "$tmp/sum.db" scenarios/teaching/fragmentation.yaml --trace-level summary
"$bin" explain "$tmp/sum.db" four-gpu >"$tmp/sum.txt" 2>&1 || { echo "FAIL: explain on a summary trace"; cat "$tmp/sum.txt"; fail=1; }
expect "$tmp/sum.txt" 'the trace has no events \(--trace-level summary\): checked against its pod table only'
expect "$tmp/sum.txt" 'fragmentation\.$'

# A scenario that moved: refused with a pointer to --scenario, accepted with it.
cp scenarios/teaching/fragmentation.yaml "$tmp/moved.yaml"
run "$tmp/moved.db" "$tmp/moved.yaml"
mv "$tmp/moved.yaml" "$tmp/elsewhere.yaml"
"$bin" explain "$tmp/moved.db" four-gpu >"$tmp/e.out" 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: moved scenario exit $rc"; fail=1; }
expect "$tmp/e.out" "the scenario '.*moved.yaml' the trace was made from cannot be read .*give its new place with --scenario FILE"
"$bin" explain "$tmp/moved.db" four-gpu --scenario "$tmp/elsewhere.yaml" >"$tmp/m.txt" 2>&1 || { echo "FAIL: --scenario"; cat "$tmp/m.txt"; fail=1; }
expect "$tmp/m.txt" 'agrees with the trace'
# ... and one that changed since the run: busy-0 now takes 2 GPUs.
sed 's/nodeName: gpu-0, containers: \[{name: main, resources: {limits: {nvidia.com\/gpu: 1}/nodeName: gpu-0, containers: [{name: main, resources: {limits: {nvidia.com\/gpu: 2}/' \
  "$tmp/elsewhere.yaml" >"$tmp/changed.yaml"
"$bin" explain "$tmp/moved.db" four-gpu --scenario "$tmp/changed.yaml" >"$tmp/e.out" 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: changed scenario exit $rc"; fail=1; }
expect "$tmp/e.out" "the replay of '.*changed.yaml' disagrees with the trace at 10m0s: .*give the scenario the trace was made from with --scenario FILE"
# The node GPU count changed 4 -> 8 after the run: the replay binds four-gpu, the trace never did;
# the sentence says so in words (it once said "was bound at not bound in the trace").
sed '16s/count: 4/count: 8/' "$tmp/elsewhere.yaml" >"$tmp/bigger.yaml"
grep -q 'gpu: {product: NVIDIA-L4, count: 8}' "$tmp/bigger.yaml" || { echo "FAIL: bigger.yaml not edited"; fail=1; }
"$bin" explain "$tmp/moved.db" four-gpu --scenario "$tmp/bigger.yaml" >"$tmp/e.out" 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: bigger scenario exit $rc"; fail=1; }
expect "$tmp/e.out" "disagrees with the trace at 10m0s: pod 'four-gpu' was not bound by 10m0s in the trace, but at 1m0s in the replay\."
# --at after the end of the run (10m) is refused (docs/cli.md): no replay "to 99h"
"$bin" explain "$tmp/moved.db" four-gpu --scenario "$tmp/elsewhere.yaml" --at 99h >"$tmp/e.out" 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: --at 99h exit $rc"; fail=1; }
expect "$tmp/e.out" "^gpusim: explain: --at 99h0m0s is after the end of the run at 10m0s: trace '.*moved.db' holds nothing later$"
# A request above every node's allocatable (2 nodes x 4 L4, 9 GPUs): the summary's rule and
# sentence (gs_report_never_fits), not "not enough free capacity", and no change is offered.
cat >"$tmp/big.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: big}
spec:
  horizon: 10m
  cluster:
    nodePools:
    - {name: gpu, count: 2, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: "48", memory: 192Gi}}
  workloads:
  - {name: busy-0, arrival: {at: 0s}, template: {spec: {nodeName: gpu-0, containers: [{name: main, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
  - {name: nine, arrival: {at: 1m}, template: {spec: {containers: [{name: main, resources: {limits: {nvidia.com/gpu: 9}}}]}}}
YAML
run "$tmp/big.db" "$tmp/big.yaml"
"$bin" explain "$tmp/big.db" nine >"$tmp/e.out" 2>&1 || { echo "FAIL: explain nine exit $?"; cat "$tmp/e.out"; fail=1; }
expect "$tmp/e.out" "^  Pod nine asks for 9 nvidia.com/gpu, more than any node has \(at most 4\): it can never be scheduled, whatever is removed"
expect "$tmp/e.out" "^  \(none: the request exceeds the largest node's allocatable"
if grep -q 'not enough free capacity' "$tmp/e.out"; then echo "FAIL: 'not enough free capacity' for a request no node can hold"; fail=1; fi
"$bin" report "$tmp/big.db" >"$tmp/r.out" 2>&1
expect "$tmp/r.out" "warning: pod nine asks for 9 nvidia.com/gpu, more than any node has \(at most 4\): it can never be scheduled$"
# A relative scenario_path, explained from another directory: found beside the trace.
mkdir -p "$tmp/rel" && cp "$root/scenarios/teaching/fragmentation.yaml" "$tmp/rel/x.yaml"
(cd "$tmp/rel" && "$bin" run x.yaml -o x.db --quiet-progress >/dev/null 2>&1)
[ "$(sqlite3 "$tmp/rel/x.db" "SELECT value FROM run WHERE key = 'scenario_path'")" = x.yaml ] || { echo "FAIL: scenario_path is not x.yaml"; fail=1; }
(cd / && "$bin" explain "$tmp/rel/x.db" four-gpu) >"$tmp/e.out" 2>&1 || { echo "FAIL: explain from / exit $?"; cat "$tmp/e.out"; fail=1; }
expect "$tmp/e.out" "^Replay: +$tmp/rel/x.yaml --seed 1, run to 10m0s: agrees with the trace"
# dra-device-plugin-ledger: dra2 is refused by DynamicResources on l4-0 because dp-one (a
# whole-GPU device-plugin pod) holds GPU 1, which DRA's ledger counts as taken; the what-if
# removal gives it back to the ledger, so deleting dp-one is offered, and the run with it binds dra2.
t=scenarios/teaching/dra-device-plugin-ledger.yaml
run "$tmp/ledger.db" $t
"$bin" explain "$tmp/ledger.db" dra2 --at 10m >"$tmp/ledger.txt" 2>&1 || { echo "FAIL: explain ledger exit $?"; cat "$tmp/ledger.txt"; fail=1; }
expect "$tmp/ledger.txt" '^  DynamicResources +1  cannot allocate all claims: l4-0$'
expect "$tmp/ledger.txt" '^  - fits on l4-0 if dp-one \(1 GPU, priority 0\) were gone$'
expect "$tmp/ledger.txt" "try: gpusim run scenarios/teaching/dra-device-plugin-ledger.yaml --seed 1 --set 'events\[0\]=\{at: 10m0s, deletePod: \{pod: dp-one\}\}' --horizon 20m0s$"
verify ledger "$tmp/ledger.txt" dra2 1 "$tmp/ledger.db"

[ $fail -eq 0 ] && echo "ok: explain"
exit $fail
