#!/usr/bin/env bash
# `gpusim report TRACE --format csv|json`: the study metrics of tests/scenarios/study-metrics.yaml
# (worked out by hand in its description), the run's command and --set overrides in the trace,
# the scenario's stat: checks passing, and worded errors for a bad --format.
# Usage: test-report-study.sh GPUSIM
set -eu
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
sc=$here/../scenarios/study-metrics.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$bin" run "$sc" -o "$tmp/t.db" --quiet-progress --set 'cluster.nodePools[1].count=1' --set metadata.name=study-b \
  >"$tmp/run.txt" ||
  { echo "FAIL: the scenario's checks failed:"; cat "$tmp/run.txt"; exit 1; }
grep -q '^checks: 11 passed, 0 failed$' "$tmp/run.txt" || { echo "FAIL: not 11 checks passed"; cat "$tmp/run.txt"; fail=1; }
"$bin" report "$tmp/t.db" --format csv >"$tmp/r.csv"
# exact rows, in the document's order for each scope
want=$(cat <<CSV
scope,key,metric,value
run,,scenario,study-b
run,,seed,1
run,,status,complete
run,,horizonSeconds,2400
run,,endSeconds,2400
run,,command,gpusim run $sc -o $tmp/t.db --quiet-progress --set 'cluster.nodePools[1].count=1' --set 'metadata.name=study-b'
run,cluster.nodePools[1].count,override,1
run,metadata.name,override,study-b
cluster,,timeToSchedule.count,6
cluster,,timeToSchedule.p50,270
cluster,,timeToSchedule.p95,1485
cluster,,timeToSchedule.max,1620
cluster,,pendingAtEnd.count,1
cluster,,pendingAtEnd.gpus,8
cluster,,pendingAtEnd.ageMax,1860
cluster,,pendingGpuHours,11.3333333333333
cluster,,nodeHours,1.33333333333333
cluster,,gpuUtilisation,0.875
cluster,,cost,65.5466666666667
cluster,,gpuHoursAllocated,4.66666666666667
cluster,,incompleteGroupGpuHours,
pool,h100,nodeHours,0.666666666666667
pool,h100,gpuUtilisation,0.875
pool,h100,pricePerHour,98.32
pool,h100,cost,65.5466666666667
pool,cpu,gpuUtilisation,
pool,cpu,cost,
workload,train,timeToSchedule.p95,1539
workload,train,pendingAtEnd.count,1
workload,web,timeToSchedule.max,0
priority,0,timeToSchedule.count,6
CSV
)
while IFS= read -r line; do
  grep -qxF -- "$line" "$tmp/r.csv" || { echo "FAIL: no row '$line' in the csv report"; fail=1; }
done <<<"$want"
[[ $(head -1 "$tmp/r.csv") == scope,key,metric,value ]] || { echo "FAIL: csv header"; fail=1; }
# every row has 4 fields (none of these values has a comma or a quote)
awk -F, 'NR > 1 && NF != 4 && !/"/ { print "FAIL: row with " NF " fields: " $0; bad = 1 } END { exit bad }' "$tmp/r.csv" || fail=1
# the json document parses and carries the same p95
"$bin" report "$tmp/t.db" --format json >"$tmp/r.json"
if command -v jq >/dev/null; then
  p95=$(jq -r '.timeToSchedule.p95' "$tmp/r.json")
  [[ $p95 == 1485* ]] || { echo "FAIL: json p95 is '$p95'"; fail=1; }
  [[ $(jq -r '.schema' "$tmp/r.json") == gpusim-report/1 ]] || { echo "FAIL: json schema"; fail=1; }
  [[ $(jq -r '.run.overrides["metadata.name"]' "$tmp/r.json") == study-b ]] || { echo "FAIL: json overrides"; fail=1; }
fi
# the text summary has the new sections
"$bin" report "$tmp/t.db" >"$tmp/r.txt"
grep -q '^  to bound     p50 4m30s, p90 22m30s, p95 24m45s, p99 26m33s, max 27m0s, mean 9m0s$' "$tmp/r.txt" ||
  { echo "FAIL: text percentiles"; cat "$tmp/r.txt"; fail=1; }
grep -q '^  h100          0.67 node-hours, GPUs  87.5% (4.67 of 5.33 GPU-hours), cost 65.55 (98.32 an hour)$' "$tmp/r.txt" ||
  { echo "FAIL: text pool line"; cat "$tmp/r.txt"; fail=1; }
# a bad format is a usage error that says what is accepted
if "$bin" report "$tmp/t.db" --format yaml 2>"$tmp/err.txt"; then echo "FAIL: --format yaml accepted"; fail=1; fi
grep -qxF "gpusim: report: --format is text, json or csv, not 'yaml'" "$tmp/err.txt" ||
  { echo "FAIL: --format yaml message:"; cat "$tmp/err.txt"; fail=1; }
[[ $fail == 0 ]] && echo "1 passed, 0 failed"
exit $fail
