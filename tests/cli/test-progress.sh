#!/usr/bin/env bash
# The progress line of `gpusim run` (reports/progress.h, cli/cmd_run.c): on a terminal (a pty
# made by script(1)) stderr shows "gpusim: T of HORIZON simulated (P%), N events, R events/s,
# ETA D" rewritten in place with \r; never when stderr is not a terminal or with
# --quiet-progress; and what the run writes (its summary, its trace) is the same either way.
# Usage: test-progress.sh GPUSIM
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v script >/dev/null || { echo "skipped: script(1) is not installed"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skipped: sqlite3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# A few seconds of work: a pod every 2 s for 60 simulated hours, samples every second.
cat >"$tmp/work.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: work}
spec:
  horizon: 60h
  sampleInterval: 1s
  cluster:
    nodePools:
    - {name: gpu, count: 16, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8}, capacity: {cpu: "64", memory: 512Gi}}
  workloads:
  - name: tick
    arrival: {every: 2s, count: 300000, start: 0s}
    duration: 30s
    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}
YAML
cd "$tmp" || exit 2

# On a terminal. script(1) gives the command a pty; its stdout goes to a file, so the pty
# (script's own stdout) carries only stderr.
start=$(date +%s%N)
script -q -e -c "'$bin' run work.yaml -o tty.db --trace-level summary >tty.out" /dev/null >tty.err
rc=$?
wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc -eq 0 ] || bad "the run on a terminal exited $rc"
tr '\r' '\n' <tty.err | grep -v '^$' >tty.lines
line='^gpusim: [0-9hms.]+ of 60h0m0s simulated \([0-9]{1,2}%\), [0-9]+ events, [0-9]+[kM]? events/s, ETA [0-9hms]+ *$'
if [ ! -s tty.lines ] && [ $wall_ms -lt 1500 ]; then
  echo "skipped: the run took ${wall_ms} ms, before the progress line's first second"
  exit 77
fi
grep -Eq "$line" tty.lines || bad "no progress line like '$line' on the terminal; got: $(head -c 600 tty.err | cat -A)"
bad_lines=$(grep -Ev "$line" tty.lines)
[ -z "$bad_lines" ] || bad "other lines on the terminal's stderr: $bad_lines"
# the line is rewritten in place: \r before each, one \n at the end
[ "$(head -c 1 tty.err)" = $'\r' ] || bad "the progress line does not start with \\r"
# the percentages only grow
pcts=$(sed -E 's/.*\(([0-9]+)%\).*/\1/' tty.lines)
[ "$pcts" = "$(sort -n <<<"$pcts")" ] || bad "the percentage went back: $pcts"

# Not a terminal: no progress line at all; the summary is the same.
"$bin" run work.yaml -o file.db --trace-level summary >file.out 2>file.err || bad "the run without a terminal failed"
[ -s file.err ] && bad "stderr is a file and still got: $(head -c 300 file.err)"
diff <(sed 's/tty.db/X/' tty.out) <(sed 's/file.db/X/' file.out) >/dev/null || bad "the summary differs on a terminal"
# and the trace (but for the command line that names the output)
diff <(sqlite3 tty.db .dump | grep -v "'command'") <(sqlite3 file.db .dump | grep -v "'command'") >/dev/null ||
  bad "the trace differs on a terminal"

# --quiet-progress on a terminal: nothing.
script -q -e -c "'$bin' run work.yaml -o quiet.db --trace-level summary --horizon 10h --quiet-progress >quiet.out" /dev/null >quiet.err ||
  bad "the quiet run failed"
[ -s quiet.err ] && bad "--quiet-progress still printed: $(head -c 300 quiet.err | cat -A)"

[ $fail -eq 0 ] && echo "ok: progress line on a terminal only ($(wc -l <tty.lines) updates in ${wall_ms} ms)"
[ $fail -eq 0 ]
