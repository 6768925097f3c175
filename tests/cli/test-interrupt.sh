#!/usr/bin/env bash
# SIGINT and SIGTERM stop a run; the trace opens and says status=interrupted.
# Usage: test-interrupt.sh GPUSIM
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v sqlite3 >/dev/null || { echo "skipped: sqlite3 not installed"; exit 77; }
cat >"$tmp/long.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: long}
spec:
  horizon: 100000h
  cluster:
    nodePools:
    - {name: cpu, count: 8, capacity: {cpu: "8", memory: 32Gi}}
  workloads:
  - name: tick
    arrival: {every: 100ms, count: 2000000000, start: 0s}
    duration: 2s
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}}
YAML
fail=0
pass=0
for sig in INT TERM; do
  before=$fail
  "$bin" run "$tmp/long.yaml" -o "$tmp/$sig.db" --quiet-progress >"$tmp/$sig.out" 2>&1 &
  pid=$!
  sleep 1
  kill -s $sig $pid
  wait $pid
  rc=$?
  want=130; [ $sig = TERM ] && want=143
  status=$(sqlite3 "$tmp/$sig.db" "SELECT value FROM run WHERE key='status'")
  if [ "$rc" != "$want" ] || [ "$status" != interrupted ]; then
    echo "FAIL: SIG$sig: exit $rc (want $want), status '$status' (want interrupted)"
    cat "$tmp/$sig.out"
    fail=$((fail + 1))
  fi
  pods=$(sqlite3 "$tmp/$sig.db" "SELECT count(*) FROM pod")
  if [ "${pods:-0}" -lt 10 ]; then
    echo "FAIL: SIG$sig: only ${pods:-0} pods in the trace"
    fail=$((fail + 1))
  fi
  [ $fail -eq $before ] && pass=$((pass + 1))
done
echo "$pass passed, $((2 - pass)) failed"
[ $pass -eq 2 ]
