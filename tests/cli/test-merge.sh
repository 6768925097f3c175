#!/usr/bin/env bash
# gpusim merge (docs/trace-schema.md, "Merged traces"):
#  - the 8 traces of a 2x2x2 sweep merge into one database: 8 runs, and per run and table the
#    row count of its source trace; the same rows (a dump of one run's pods compares equal);
#    `runs` carries seed, status, exit status and the overrides from the manifest; indexes on
#    (run, ...); the README's example queries run;
#  - more than 10 traces (SQLite's default ATTACH limit) merge;
#  - a non-trace, an SQLite file of something else, and a trace of another schema version are
#    refused with exit 2 and no output (nor a .partial) left; an existing file that is not a
#    merged database is not replaced; a merged one is.
# Usage: test-merge.sh GPUSIM
docs=$(cd "$(dirname "$0")/../../docs" && pwd)
source "$(dirname "$0")/sweep-fixture.sh"
cat >>tiny.yaml <<'YAML'
  expect:
  - metric: gpusAllocated
    at: 0s
    equals: 2
YAML
"$bin" sweep tiny.yaml --vary 'cluster.nodePools[0].count=1,2' --vary 'workloads[0].replicas=2,3' --seeds 1-2 \
  -o sw >/dev/null 2>&1
expect_eq "sweep exit" "$?" 0

out=$("$bin" merge sw -o all.db 2>&1)
expect_eq "merge exit" "$?" 0
expect_eq "merge says" "$(echo "$out" | sed 's/ in [0-9.]* s$//; s/([0-9]* rows)/(N rows)/')" "merged 8 runs (N rows) into all.db"
expect_eq "runs" "$(q all.db 'SELECT count(*) FROM runs')" 8
expect_eq "application_id, user_version" "$(q all.db 'PRAGMA application_id') $(q all.db 'PRAGMA user_version')" \
  "$((0x4750534d)) 1"
expect_eq "runs row" "$(q all.db "SELECT run, file, scenario, seed, status, exit_status, checks_failed, overrides FROM runs WHERE run = 'count=2_replicas=3_seed=1'")" \
  'count=2_replicas=3_seed=1|sw/count=2_replicas=3_seed=1.db|tiny|1|complete|1|1|{"cluster.nodePools[0].count":"2","workloads[0].replicas":"3"}'
expect_eq "tables" "$(q all.db "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name)")" \
  "expect_check node node_event object pod pod_event run_info runs sample"
# Per run and table, the rows of its source trace.
for f in sw/*.db; do
  n=$(basename "$f" .db)
  for t in node node_event pod pod_event sample object expect_check run; do
    mt=$t
    [ "$t" = run ] && mt=run_info
    expect_eq "$n: rows of $t" "$(q all.db "SELECT count(*) FROM $mt WHERE run = '$n'")" "$(q "$f" "SELECT count(*) FROM $t")"
  done
done
# The same rows, in the same order.
expect_eq "pod rows of one run" \
  "$(q all.db "SELECT id, name, workload, created_us, scheduled_us, finished_us, node_id, phase FROM pod WHERE run = 'count=1_replicas=3_seed=2' ORDER BY id")" \
  "$(q sw/count=1_replicas=3_seed=2.db 'SELECT id, name, workload, created_us, scheduled_us, finished_us, node_id, phase FROM pod ORDER BY id')"
expect_eq "pod_event rows of one run" \
  "$(q all.db "SELECT t_us, pod_id, reason, message FROM pod_event WHERE run = 'count=2_replicas=2_seed=2' ORDER BY rowid")" \
  "$(q sw/count=2_replicas=2_seed=2.db 'SELECT t_us, pod_id, reason, message FROM pod_event ORDER BY rowid')"
expect_eq "run_info of one run" "$(q all.db "SELECT key, value FROM run_info WHERE run = 'count=1_replicas=2_seed=1' AND key IN ('seed', 'scenario') ORDER BY key")" \
  "scenario|tiny
seed|1"
expect_eq "index on pod_event (run, pod_id) used" \
  "$(q all.db "EXPLAIN QUERY PLAN SELECT * FROM pod_event WHERE run = 'x' AND pod_id = 3" | grep -c 'USING INDEX pod_event_run_pod')" 1
# The queries of docs/trace-schema.md ("Merged traces") on the sweep it documents: the p95
# query agrees with a percentile computed apart from the source traces (linear interpolation,
# numpy's default), and the GPU query prints the documented rows.
cp "$docs/../scenarios/quickstart.yaml" qs.yaml
"$bin" sweep qs.yaml --vary 'cluster.nodePools[1].count=1,2' --vary 'scheduler.tieBreak=random,first' \
  --seeds 1-3 -o qs >/dev/null 2>&1
"$bin" merge qs -o qs.db >/dev/null 2>&1
expect_eq "documented sweep: runs" "$(q qs.db 'SELECT count(*) FROM runs')" 12
doc_sql() { # the first sql block after the paragraph starting with $1
  awk -v m="$1" 'index($0, m) == 1 {f = 1} f && /^```sql/ {g = 1; next} g && /^```/ {exit} g {print}' \
    "$docs/trace-schema.md"
}
p95_sql=$(doc_sql '**p95 time to schedule, per run.**')
[ -n "$p95_sql" ] && ok || bad "no p95 query in docs/trace-schema.md"
got=$(sqlite3 qs.db "$p95_sql")
want=$(for f in qs/*.db; do
  n=$(basename "$f" .db)
  sqlite3 "$f" 'SELECT (scheduled_us - created_us) / 1e6 FROM pod WHERE scheduled_us IS NOT NULL ORDER BY 1' |
    awk -v n="$n" '{x[NR - 1] = $1} END {h = 0.95 * (NR - 1); lo = int(h); hi = lo + 1 < NR ? lo + 1 : lo;
      v = x[lo] + (h - lo) * (x[hi] - x[lo]); printf "%s|%d|%s\n", n, NR, v}'
done | LC_ALL=C sort)
# sqlite prints round(x, 3); awk %s prints 6 significant digits: compare as numbers.
cmp_p95=$(paste -d'|' <(echo "$got") <(echo "$want") | awk -F'|' '{ if ($1 != $4 || $2 != $5 || ($3 - $6 > 0.001 || $6 - $3 > 0.001)) print "differs: " $0 }')
expect_eq "p95 query = independent percentile" "$cmp_p95" ""
expect_eq "p95 query: documented first row" "$(echo "$got" | head -1)" "count=1_tieBreak=first_seed=1|13|337.632"
gpu_sql=$(doc_sql '**GPUs allocated over time, two runs side by side**')
[ -n "$gpu_sql" ] && ok || bad "no GPU query in docs/trace-schema.md"
got=$(sqlite3 qs.db "$gpu_sql" | sed -n '9,12p' | tr '\n' ' ')
expect_eq "GPU query: documented rows 8-11" "$got" "8|12|12 9|12|13 10|12|13 11|12|14 "

# Merging again replaces the merged database; a file that is not one is not replaced.
"$bin" merge sw -o all.db >/dev/null 2>&1
expect_eq "re-merge exit" "$?" 0
expect_eq "re-merge runs" "$(q all.db 'SELECT count(*) FROM runs')" 8
echo "keep me" >notes.txt
err=$("$bin" merge sw -o notes.txt 2>&1)
expect_eq "-o over a non-merged file: exit" "$?" 2
expect_eq "-o over a non-merged file: message" "$err" "gpusim merge: notes.txt exists and is not a merged gpusim database: not replaced"
expect_eq "-o over a non-merged file: kept" "$(cat notes.txt)" "keep me"

# More than 10 traces (SQLite's default limit of attached databases).
"$bin" sweep tiny.yaml --seeds 1-12 -o many >/dev/null 2>&1
out=$("$bin" merge many -o many.db 2>&1)
expect_eq "12 traces: exit" "$?" 0
expect_eq "12 traces: runs" "$(q many.db 'SELECT count(*) FROM runs')" 12
expect_eq "12 traces: pods" "$(q many.db 'SELECT count(*) FROM pod')" 72
expect_eq "12 traces: seeds" "$(q many.db "SELECT group_concat(seed, ',') FROM (SELECT seed FROM runs ORDER BY seed)")" \
  "1,2,3,4,5,6,7,8,9,10,11,12"
# Traces named one by one, from two directories.
"$bin" merge sw/count=1_replicas=2_seed=1.db many/seed=5.db -o two.db >/dev/null 2>&1
expect_eq "two traces named" "$(q two.db "SELECT group_concat(run || ':' || seed, ' ') FROM runs")" "count=1_replicas=2_seed=1:1 seed=5:5"

# Refused inputs: nothing written.
refuse() { # want-message inputs...
  local want=$1
  shift
  local got
  got=$("$bin" merge "$@" -o refused.db 2>&1)
  local rc=$?
  expect_eq "merge $*: exit" "$rc" 2
  expect_eq "merge $*: message" "$got" "$want"
  [ ! -e refused.db ] && [ ! -e refused.db.partial ] && ok || bad "merge $*: left an output"
}
refuse "gpusim merge: tiny.yaml: not a gpusim trace (no gpusim application_id in its SQLite header)" sw tiny.yaml
sqlite3 other.db 'CREATE TABLE t (x); INSERT INTO t VALUES (1)'
refuse "gpusim merge: other.db: not a gpusim trace (no gpusim application_id in its SQLite header)" other.db
cp sw/count=1_replicas=2_seed=1.db v2.db
sqlite3 v2.db 'PRAGMA user_version = 2'
refuse "gpusim merge: v2.db: trace schema version 2, this gpusim merges version 1 only: merge traces written by one gpusim version" sw v2.db
refuse "gpusim merge: missing.db: No such file or directory" missing.db
mkdir empty
refuse "gpusim merge: no traces (*.db) in 'empty'" empty
refuse "gpusim merge: two runs named 'seed=5' (many/seed=5.db and many/./seed=5.db): merge them apart or rename one" many/seed=5.db many/./seed=5.db

echo "$checks passed, $fail failed"
[ "$fail" -eq 0 ]
