#!/usr/bin/env bash
# `gpusim get pods|nodes TRACE --at T [-o wide]` and `gpusim describe TRACE pod/NAME`: kubectl's
# columns at a time, from the trace alone; the GPUs the nodes hold agree with the trace's samples.
# Usage: test-get.sh GPUSIM
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v sqlite3 >/dev/null || { echo "skipped: sqlite3 is missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect FILE PATTERN
  if ! grep -qE -- "$2" "$1"; then
    echo "FAIL: no line matching '$2' in:"; cat "$1"; fail=1
  fi
}
same() { # same WHAT GOT WANT
  if [ "$2" != "$3" ]; then echo "FAIL: $1: got '$2', want '$3'"; fail=1; fi
}
"$bin" run "$root/scenarios/teaching/preemption.yaml" -o "$tmp/pre.db" --quiet-progress >/dev/null
"$bin" run "$root/scenarios/teaching/gang-deadlock.yaml" -o "$tmp/gang.db" --quiet-progress >/dev/null

# Pods during preemption (5m): the victims Terminating on h100-1, the preemptor nominated there.
"$bin" get pods "$tmp/pre.db" --at 5m >"$tmp/p.txt" || { echo "FAIL: get pods exit $?"; fail=1; }
same "header" "$(head -1 "$tmp/p.txt")" "NAME    READY   STATUS        RESTARTS   AGE"
expect "$tmp/p.txt" '^high    0/1     Pending       0          0s$'
expect "$tmp/p.txt" '^low-0   1/1     Terminating   0          4m50s$'
expect "$tmp/p.txt" '^mid     1/1     Running       0          5m$'
"$bin" get pods "$tmp/pre.db" --at 5m -o wide >"$tmp/pw.txt"
same "wide header" "$(head -1 "$tmp/pw.txt")" \
  "NAME    READY   STATUS        RESTARTS   AGE     IP       NODE     NOMINATED NODE   READINESS GATES   GPUS   GPU-IDS"
expect "$tmp/pw.txt" '^high +0/1 +Pending +0 +0s +<none> +<none> +h100-1 +<none> +8 +-$'
expect "$tmp/pw.txt" '^low-1 +1/1 +Terminating +0 +4m50s +<none> +h100-1 +<none> +<none> +4 +4,5,6,7$'
# After the grace period the victims are gone and the preemptor runs.
"$bin" get pods "$tmp/pre.db" --at 5m40s -o wide >"$tmp/p2.txt"
if grep -q '^low-0 ' "$tmp/p2.txt"; then echo "FAIL: a deleted pod is listed"; cat "$tmp/p2.txt"; fail=1; fi
expect "$tmp/p2.txt" '^high +1/1 +Running +0 +40s +<none> +h100-1 +<none> +<none> +8 +0,1,2,3,4,5,6,7$'
# Before anything exists.
"$bin" get pods "$tmp/pre.db" --at 0s >"$tmp/p0.txt"
expect "$tmp/p0.txt" '^mid '

# Nodes: kubectl's five columns, then -o wide with GPU and GPUS (allocated/allocatable).
"$bin" get nodes "$tmp/gang.db" --at 1m >"$tmp/n.txt"
same "nodes header" "$(head -1 "$tmp/n.txt")" "NAME     STATUS   ROLES    AGE   VERSION"
expect "$tmp/n.txt" '^h100-0   Ready    <none>   60s   v1.34$'
"$bin" get nodes "$tmp/gang.db" --at 1m -o wide >"$tmp/nw.txt"
expect "$tmp/nw.txt" '^h100-3 +Ready +<none> +60s +v1.34 +<none> +<none> +<unknown> +<unknown> +<unknown> +NVIDIA-H100-80GB-HBM3 +8/8$'
# The GPUs the nodes hold at a sample's time are the sample's gpus_allocated.
for t in 10 300 3600; do
  got=$("$bin" get nodes "$tmp/gang.db" --at ${t}s -o wide | awk 'NR > 1 { split($NF, a, "/"); s += a[1] } END { print s + 0 }')
  want=$(sqlite3 "$tmp/gang.db" "SELECT gpus_allocated FROM sample WHERE pool = '' AND t_us = ${t}000000")
  same "GPUs allocated at ${t}s (nodes vs sample)" "$got" "$want"
done
# The pods' GPUS add up to the same.
got=$("$bin" get pods "$tmp/gang.db" --at 60s -o wide | awk 'NR > 1 && $3 == "Running" { s += $(NF-1) } END { print s + 0 }')
same "GPUs of running pods at 60s" "$got" "32"
# A cordoned node (preemption.yaml has none: a drain on gang-deadlock's copy does).
sed 's/^  workloads:/  events:\n  - {at: 30s, cordon: {node: h100-0}}\n  workloads:/' "$root/scenarios/teaching/gang-deadlock.yaml" >"$tmp/cordon.yaml"
"$bin" run "$tmp/cordon.yaml" -o "$tmp/cordon.db" --quiet-progress >/dev/null
"$bin" get nodes "$tmp/cordon.db" --at 1m >"$tmp/nc.txt"
expect "$tmp/nc.txt" '^h100-0   Ready,SchedulingDisabled   <none>   60s   v1.34$'

# describe pod/NAME: status, node, GPUs, conditions, events with kubectl's Age.
"$bin" describe "$tmp/pre.db" pod/low-2 >"$tmp/d.txt" || { echo "FAIL: describe pod exit $?"; fail=1; }
expect "$tmp/d.txt" '^Name: +low-2$'
expect "$tmp/d.txt" '^Priority: +100$'
expect "$tmp/d.txt" '^Status: +Pending$'
expect "$tmp/d.txt" '^  PodScheduled   False$'
expect "$tmp/d.txt" '^  Warning  FailedScheduling  4m \(x2 over 9m30s\)  default-scheduler  0/2 nodes are available: 2 Insufficient nvidia.com/gpu'
"$bin" describe "$tmp/gang.db" pod/trainer-a-0 --at 1m >"$tmp/d2.txt"
expect "$tmp/d2.txt" '^Node: +h100-1$'
expect "$tmp/d2.txt" '^GPUs: +h100-1 gpu=0,1,2,3,4,5,6,7$'
expect "$tmp/d2.txt" '^  Ready          True$'
expect "$tmp/d2.txt" '^  Normal   Scheduled     60s   default-scheduler  Successfully assigned default/trainer-a-0 to h100-1$'
# The node form still works, also as node/NAME.
"$bin" describe "$tmp/gang.db" node/h100-1 --at 1m >"$tmp/d3.txt"
expect "$tmp/d3.txt" '^Name: +h100-1$'

# Errors: unknown pod (nearest names), a pod not yet created, an unknown kind, a summary trace.
"$bin" describe "$tmp/pre.db" pod/low >"$tmp/e.txt" 2>&1; rc=$?
same "unknown pod exit" $rc 2
expect "$tmp/e.txt" "has no pod named 'low' \(did you mean 'low-0', 'low-1', 'low-2'\?\)"
"$bin" describe "$tmp/pre.db" pod/high --at 1m >"$tmp/e.txt" 2>&1; rc=$?
same "pod not yet created exit" $rc 2
expect "$tmp/e.txt" "pod 'high' did not exist yet at 1m0s: it was created at 5m0s"
"$bin" get services "$tmp/pre.db" >"$tmp/e.txt" 2>&1; rc=$?
same "unknown kind exit" $rc 2
expect "$tmp/e.txt" "the resource type is pods or nodes, not 'services'"
"$bin" run "$root/scenarios/teaching/preemption.yaml" -o "$tmp/sum.db" --trace-level summary --quiet-progress >/dev/null
"$bin" get pods "$tmp/sum.db" >"$tmp/e.txt" 2>&1; rc=$?
same "summary trace exit" $rc 2
expect "$tmp/e.txt" 'summary'
# A time after the run's end (15m) is refused, naming the end, by every view (reports/open.h
# gs_report_check_time); the end itself is accepted.
for args in "get pods" "get nodes" "describe-pod" "describe-node"; do
  case $args in
    describe-pod) "$bin" describe "$tmp/pre.db" pod/high --at 99h >"$tmp/e.txt" 2>&1; rc=$? ;;
    describe-node) "$bin" describe "$tmp/pre.db" h100-1 --at 99h >"$tmp/e.txt" 2>&1; rc=$? ;;
    *) "$bin" $args "$tmp/pre.db" --at 99h >"$tmp/e.txt" 2>&1; rc=$? ;;
  esac
  same "$args --at 99h exit" $rc 2
  expect "$tmp/e.txt" "--at 99h0m0s is after the end of the run at 15m0s: trace '.*pre.db' holds nothing later"
done
"$bin" get pods "$tmp/pre.db" --at 15m >/dev/null 2>&1; rc=$?
same "get pods at the end exit" $rc 0
"$bin" describe "$tmp/pre.db" h100-1 --at 15m >/dev/null 2>&1; rc=$?
same "describe at the end exit" $rc 0

[ $fail -eq 0 ] && echo "ok: get and describe pod"
exit $fail
