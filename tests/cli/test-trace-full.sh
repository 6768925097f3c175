#!/usr/bin/env bash
# `gpusim run --trace-level full` records every scheduling attempt (docs/trace-schema.md,
# "Scheduling attempts"): on scenarios/teaching/toleration-off.yaml the pod without the
# toleration is rejected on the H100 nodes by TaintToleration with the exact reason its
# FailedScheduling message counts, and on the L4 nodes by NodeAffinity; the bound pod's winner's
# per-plugin scores sum to the attempt's total. The default level has none of these tables,
# `report` reads a full trace, and `sweep` passes the level through.
# Usage: test-trace-full.sh GPUSIM
set -eu
bin=$1
command -v sqlite3 >/dev/null || { echo "skipped: sqlite3 not installed"; exit 77; }
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check WHAT GOT WANT
  if [[ "$2" != "$3" ]]; then
    printf 'FAIL: %s\n  got:  %s\n  want: %s\n' "$1" "$2" "$3"; fail=1
  fi
}
sc=$here/scenarios/teaching/toleration-off.yaml
"$bin" run "$sc" -o "$tmp/full.db" --trace-level full --quiet-progress >"$tmp/run.out"
q() { sqlite3 -separator '|' "$tmp/full.db" "$1"; }

check "trace_level" "$(q "SELECT value FROM run WHERE key = 'trace_level'")" "full"
check "no-toleration, per node" \
  "$(q "SELECT n.name, v.plugin, v.code, v.reason FROM pod p JOIN attempt a ON a.pod_id = p.id
        JOIN attempt_verdict v ON v.attempt_id = a.id JOIN node n ON n.id = v.node_id
        WHERE p.name = 'no-toleration' ORDER BY n.name")" \
  "h100-0|TaintToleration|UnschedulableAndUnresolvable|node(s) had untolerated taint {nvidia.com/gpu: present}
h100-1|TaintToleration|UnschedulableAndUnresolvable|node(s) had untolerated taint {nvidia.com/gpu: present}
l4-0|NodeAffinity|UnschedulableAndUnresolvable|node(s) didn't match Pod's node affinity/selector
l4-1|NodeAffinity|UnschedulableAndUnresolvable|node(s) didn't match Pod's node affinity/selector"
# The nodes rejected by TaintToleration, counted, are the message's "2 node(s) had untolerated taint {...}".
n_taint=$(q "SELECT count(*) || ' ' || v.reason FROM pod p JOIN attempt a ON a.pod_id = p.id
             JOIN attempt_verdict v ON v.attempt_id = a.id
             WHERE p.name = 'no-toleration' AND v.plugin = 'TaintToleration' GROUP BY v.reason")
check "taint count" "$n_taint" "2 node(s) had untolerated taint {nvidia.com/gpu: present}"
msg=$(q "SELECT message FROM pod WHERE name = 'no-toleration'")
case "$msg" in
  *"$n_taint"*) ;;
  *) echo "FAIL: the message does not count '$n_taint': $msg"; fail=1 ;;
esac
check "attempt message = FailedScheduling, folded alike" \
  "$(q "SELECT a.message = e.message, a.count, e.count, a.last_us = e.last_us FROM attempt a
        JOIN pod p ON p.id = a.pod_id JOIN pod_event e ON e.pod_id = p.id AND e.reason = 'FailedScheduling'
        WHERE p.name = 'no-toleration'")" "1|2|2|1"
check "winner's scores" \
  "$(q "SELECT a.score, (SELECT sum(score * weight) FROM attempt_score s WHERE s.attempt_id = a.id
        AND s.node_id = a.node_id), (SELECT group_concat(plugin || '=' || score || 'x' || weight, ' ')
        FROM (SELECT * FROM attempt_score s WHERE s.attempt_id = a.id AND s.node_id = a.node_id ORDER BY plugin)),
        a.node_id = p.node_id FROM attempt a JOIN pod p ON p.id = a.pod_id WHERE p.name = 'with-toleration'")" \
  "399|399|NodeResourcesFit=99x1 TaintToleration=100x3|1"

# report reads a full trace as any other.
"$bin" report "$tmp/full.db" >"$tmp/report.out" || { echo "FAIL: report on a full trace"; cat "$tmp/report.out"; fail=1; }

# The default level: no attempt tables at all.
"$bin" run "$sc" -o "$tmp/events.db" --quiet-progress >/dev/null
check "events level" "$(sqlite3 "$tmp/events.db" "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'attempt%'
  OR name LIKE 'node_set%' OR name LIKE 'verdict%'")" "0"

# A bad level is refused with the levels named.
if "$bin" run "$sc" -o "$tmp/x.db" --trace-level fll 2>"$tmp/err"; then echo "FAIL: --trace-level fll accepted"; fail=1; fi
grep -q "summary, events or full" "$tmp/err" || { echo "FAIL: no list of levels in:"; cat "$tmp/err"; fail=1; }

# sweep passes --trace-level through to every run.
"$bin" sweep "$sc" --vary horizon=10m --jobs 1 --trace-level full -o "$tmp/sweep" >"$tmp/sweep.out" 2>&1 ||
  { echo "FAIL: sweep"; cat "$tmp/sweep.out"; fail=1; }
db=$(ls "$tmp"/sweep/*.db 2>/dev/null | head -1)
if [[ -n $db ]]; then
  check "sweep run level" "$(sqlite3 "$db" "SELECT value FROM run WHERE key = 'trace_level'")" "full"
  check "sweep run attempts" "$(sqlite3 "$db" "SELECT count(*) > 0 FROM attempt")" "1"
else
  echo "FAIL: sweep wrote no trace"; ls -R "$tmp/sweep" 2>&1; fail=1
fi
exit $fail
