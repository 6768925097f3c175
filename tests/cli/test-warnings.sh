#!/usr/bin/env bash
# The warnings about how a run ended (reports/report.h gs_report_run_warnings): printed as
# "warning: ..." in the summary after its header (run and report) and as "gpusim: warning: ..."
# on stderr, for a run that ended at 0s, one where everything was Rejected, pods that ask for
# more than any node has, pods left pending when a run without a horizon ran out of things to do,
# and pending pods every node rejected as UnschedulableAndUnresolvable; and none for a run that
# ended well, nor for Coscheduling's backoff (a rejection that lapses).
# Usage: test-warnings.sh GPUSIM
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
head_yaml() { # NAME [HORIZON]
  printf 'apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: %s}\nspec:\n' "$1"
  [ -n "${2:-}" ] && printf '  horizon: %s\n' "$2"
  printf '  cluster:\n    nodePools:\n'
  printf "    - {name: gpu, count: 2, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: '32', memory: 128Gi}}\n"
}
pod() { # NAME GPUS [EXTRA-TEMPLATE-SPEC] [DURATION]
  printf '  - name: %s\n    replicas: 1\n' "$1"
  [ -n "${4:-}" ] && printf '    duration: %s\n' "$4"
  printf '    template: {spec: {%scontainers: [{name: c, resources: {limits: {nvidia.com/gpu: %s}}}]}}\n' "${3:-}" "$2"
}
# run NAME: the summary's warning lines in $tmp/NAME.warn, stderr's in $tmp/NAME.err
run() {
  "$bin" run "$tmp/$1.yaml" -o "$tmp/$1.db" --quiet-progress >"$tmp/$1.out" 2>"$tmp/$1.err"
  local rc=$?
  [ $rc -le 1 ] || bad "$1: gpusim run exited $rc: $(cat "$tmp/$1.err")"
  grep '^warning: ' "$tmp/$1.out" >"$tmp/$1.warn"
  # the same lines on stderr, prefixed as the CLI's warnings are
  diff <(sed 's/^/gpusim: /' "$tmp/$1.warn") "$tmp/$1.err" >/dev/null ||
    bad "$1: stderr is not the summary's warnings:"$'\n'"$(cat "$tmp/$1.err")"
  # report prints the same summary and warnings
  "$bin" report "$tmp/$1.db" >"$tmp/$1.rep" 2>"$tmp/$1.rerr" || bad "$1: report failed"
  diff <(grep -v '^trace: ' "$tmp/$1.out") "$tmp/$1.rep" >/dev/null || bad "$1: report's summary differs from run's"
  diff "$tmp/$1.err" "$tmp/$1.rerr" >/dev/null || bad "$1: report's stderr differs from run's"
}
expect() { # NAME EXPECTED-WARNING-LINES
  local got
  got=$(cat "$tmp/$1.warn")
  [ "$got" = "$2" ] || bad "$1: warnings"$'\n'"got:  $got"$'\n'"want: $2"
}

# Nothing after time 0 and no horizon: the run ends at 0s.
head_yaml zero >"$tmp/zero.yaml"
run zero
expect zero "warning: the run ended at 0s, so nothing was simulated: without spec.horizon a run ends when nothing is left to happen, and nothing was after time 0 (no pod that runs for a while, no event, no check with a time)"
grep -q '^Simulated:   0s' "$tmp/zero.out" || bad "zero: not at 0s: $(grep Simulated "$tmp/zero.out")"
# utilisation over no time is not defined: the pool's GPUs are there, no time went by
grep -qE '^  [a-z0-9-]+ +0\.00 node-hours, no time simulated$' "$tmp/zero.out" ||
  bad "zero: utilisation line: $(grep -A1 '^Utilisation' "$tmp/zero.out" | tail -1)"

# Every pod refused by the API server (half a GPU is not a quantity an extended resource takes).
{ head_yaml rejected 5m; echo '  workloads:'; pod half 0.5; pod quarter 0.25; } >"$tmp/rejected.yaml"
run rejected
expect rejected "warning: everything the scenario submitted was rejected by the API server (2 pods; see Rejected below): no pod ever ran"
# and a Job whose GPU requests differ from its limits
cat "$tmp/rejected.yaml" - >"$tmp/rejected-job.yaml" <<'YAML'
  - arrival: {at: 0s}
    manifest:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: unequal}
      spec:
        template:
          spec:
            restartPolicy: OnFailure
            containers:
            - name: main
              resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}
YAML
run rejected-job
expect rejected-job "warning: everything the scenario submitted was rejected by the API server (2 pods and 1 object; see Rejected below): no pod ever ran"
# one pod that runs: no warning
{ head_yaml some-rejected 5m; echo '  workloads:'; pod half 0.5; pod whole 1; } >"$tmp/some-rejected.yaml"
run some-rejected
expect some-rejected ""

# Too big for any node, by GPUs and by cpu; and the others pending with a horizon, every node
# rejecting them as UnschedulableAndUnresolvable (a nodeSelector no node matches).
{ head_yaml big 5m; echo '  workloads:'; pod big 5; pod fat 1 "" ; pod lost 1 "nodeSelector: {pool: none}, "; } >"$tmp/big.yaml"
sed -i "/name: fat/,/template/ s/nvidia.com\/gpu: 1}/nvidia.com\/gpu: 1, cpu: '48'}/" "$tmp/big.yaml"
run big
expect big "warning: pod big asks for 5 nvidia.com/gpu, more than any node has (at most 4): it can never be scheduled
warning: pod fat asks for 48 cpu, more than any node has (at most 32): it can never be scheduled
warning: the other pod still pending at the end (lost) can never be scheduled as the cluster stands: every node rejected it for a reason that neither preemption nor a pod finishing fixes (UnschedulableAndUnresolvable: \"Preemption is not helpful for scheduling\" on every node; see Pending below)"

# Five pods too big: three named, then a count.
{ head_yaml huge 5m; echo '  workloads:'; pod huge 6; } >"$tmp/huge.yaml"
sed -i 's/    replicas: 1/    replicas: 5/' "$tmp/huge.yaml"
run huge
expect huge "warning: pod huge-0 asks for 6 nvidia.com/gpu, more than any node has (at most 4): it can never be scheduled
warning: pod huge-1 asks for 6 nvidia.com/gpu, more than any node has (at most 4): it can never be scheduled
warning: pod huge-2 asks for 6 nvidia.com/gpu, more than any node has (at most 4): it can never be scheduled
warning: 2 more pending pods ask for more than any node has: they can never be scheduled"

# No horizon: the run ends when nothing is left to happen, two pods still pending behind pods
# that run forever.
{ head_yaml stuck; echo '  workloads:'; pod hog-a 4; pod hog-b 4; pod small 1 "" 5m; } >"$tmp/stuck.yaml"
sed -i 's/  - name: small/  - name: small\n    arrival: {at: 1m}/; /name: small/,$ s/replicas: 1/replicas: 2/' "$tmp/stuck.yaml"
run stuck
expect stuck "warning: the run ended by itself at 1m0s with 2 pods still pending (small-0 and small-1): nothing was left to happen that could schedule them, so they never will"

# With a horizon, pods pending only because GPUs are busy: no warning (they would run later).
{ head_yaml busy 10m; echo '  workloads:'; pod hog-a 4 "" 30m; pod hog-b 4 "" 30m; pod small 1 "" 5m; } >"$tmp/busy.yaml"
run busy
expect busy ""
grep -q '^Pods: .*Pending 1' "$tmp/busy.out" || bad "busy: no pod pending: $(grep '^Pods' "$tmp/busy.out")"

# The teaching scenario where a gang's backoff rejects every node ("failed recently"): pending
# pods but no warning, since the backoff lapses.
here=$(cd "$(dirname "$0")" && pwd)
cp "$here/../../scenarios/teaching/coscheduling-timeout.yaml" "$tmp/cosched.yaml"
run cosched
expect cosched ""
grep -q 'failed recently' "$tmp/cosched.out" || bad "cosched: no pod rejected for the backoff"

[ $fail -eq 0 ] && echo "ok: warnings of 10 runs"
[ $fail -eq 0 ]
