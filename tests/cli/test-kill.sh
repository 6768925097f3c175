#!/usr/bin/env bash
# A run never loses or takes over a trace, whatever stops it (sim/trace.h "Files"):
#  - SIGINT, SIGTERM and SIGKILL at random moments: the final name holds the previous trace or
#    the new complete one, both pass PRAGMA integrity_check; what the stopped run wrote is in
#    FILE.partial, which `report` calls incomplete (exit 5) and `report --allow-incomplete`
#    accepts; SIGINT/SIGTERM exit 130/143.
#  - the file size limit (ulimit -f, SIGXFSZ): exit 2 with the cause, previous trace intact;
#    a stray SIGXFSZ does not stop a run.
#  - two runs for one -o: the second is refused and the first prints its own summary; without
#    -o, parallel runs and seed loops get distinct names.
#  - -o never deletes what is not a trace; names with ? # % are paths; a read-only directory
#    is named as the cause.
# Usage: test-kill.sh GPUSIM [ROUNDS]    (RANDOM is seeded from $GPUSIM_KILL_SEED, default 1)
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rounds=${2:-3}
RANDOM=${GPUSIM_KILL_SEED:-1}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
command -v sqlite3 >/dev/null || { echo "skipped: sqlite3 not installed"; exit 77; }
fail=0
checks=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
ok() { checks=$((checks + 1)); }
q() { sqlite3 "$1" "$2" 2>&1; }

# About 2-4 s of work on this kind of machine: pods arrive, run and leave, samples every 1s.
cat >"$tmp/work.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: work}
spec:
  horizon: 200h
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
out="$tmp/out.db"

# The previous trace: a short complete run with seed 1.
"$bin" run "$tmp/work.yaml" -o "$out" --seed 1 --horizon 1m --quiet-progress >/dev/null 2>&1 \
  || bad "the first run failed"

check_final() { # $1 what: the final name holds seed 1 (previous) or a complete seed-2 trace
  local what=$1 st seed
  [ "$(q "$out" 'PRAGMA integrity_check')" = ok ] || bad "$what: final trace integrity: $(q "$out" 'PRAGMA integrity_check')"
  st=$(q "$out" "SELECT value FROM run WHERE key='status'")
  seed=$(q "$out" "SELECT value FROM run WHERE key='seed'")
  [ "$st" = complete ] || bad "$what: the final name holds status '$st'"
  [ "$seed" = 1 ] || [ "$seed" = 2 ] || bad "$what: the final name holds seed '$seed'"
  [ -e "$out-wal" ] && bad "$what: a -wal file beside the final trace"
  ok
}

check_partial() { # $1 what, $2 the status the partial trace must say (or "any")
  local what=$1 want=$2 st rc
  [ -e "$out.partial" ] || { bad "$what: no $out.partial"; return; }
  [ "$(q "$out.partial" 'PRAGMA integrity_check')" = ok ] || bad "$what: partial trace integrity"
  st=$(q "$out.partial" "SELECT value FROM run WHERE key='status'")
  [ "$want" = any ] || [ "$st" = "$want" ] || bad "$what: partial status '$st', want '$want'"
  [ "$st" = complete ] && bad "$what: the partial trace says complete"
  "$bin" report "$out.partial" >"$tmp/r.out" 2>"$tmp/r.err"; rc=$?
  [ $rc = 5 ] || bad "$what: report of the partial trace exits $rc, want 5"
  grep -q "^run incomplete: status=$st" "$tmp/r.out" || bad "$what: report does not say incomplete: $(head -5 "$tmp/r.out")"
  grep -q "is incomplete: status $st.*complete up to" "$tmp/r.err" || bad "$what: report stderr: $(cat "$tmp/r.err")"
  "$bin" report --allow-incomplete "$out.partial" >/dev/null 2>&1 || bad "$what: --allow-incomplete still fails"
  ok
}

for sig in INT TERM KILL; do
  for r in $(seq 1 "$rounds"); do
    delay=$(printf '0.%02d' $((RANDOM % 100)))
    [ $((RANDOM % 2)) = 1 ] && delay="1.$((RANDOM % 10))"
    rm -f "$out.partial"
    "$bin" run "$tmp/work.yaml" -o "$out" --seed 2 --quiet-progress >"$tmp/run.out" 2>&1 &
    pid=$!
    sleep "$delay"
    kill -s $sig $pid 2>/dev/null
    wait $pid
    rc=$?
    what="SIG$sig after ${delay}s"
    if [ $rc = 0 ]; then # finished before the signal
      check_final "$what (finished first)"
      continue
    fi
    case $sig in
      INT) [ $rc = 130 ] || bad "$what: exit $rc, want 130" ;;
      TERM) [ $rc = 143 ] || bad "$what: exit $rc, want 143" ;;
      KILL) [ $rc = 137 ] || bad "$what: exit $rc, want 137" ;;
    esac
    check_final "$what"
    if [ -e "$out.partial" ]; then
      if [ $sig = KILL ]; then check_partial "$what" any; else check_partial "$what" interrupted; fi
    elif [ $sig != KILL ] && [ -s "$tmp/run.out" ]; then # (empty: stopped before it started)
      bad "$what: no partial trace after a clean interruption"
    fi
    if [ $sig != KILL ] && [ -s "$tmp/run.out" ]; then
      grep -q "trace: $out.partial" "$tmp/run.out" || bad "$what: run does not name the partial trace: $(tail -3 "$tmp/run.out")"
    fi
    # a later run replaces what the stopped one left, and its trace is complete
    "$bin" run "$tmp/work.yaml" -o "$out" --seed 1 --horizon 1m --quiet-progress >/dev/null 2>&1 || bad "$what: the run after it failed"
    [ -e "$out.partial" ] && bad "$what: the run after it left $out.partial"
    [ "$(q "$out" "SELECT value FROM run WHERE key='seed'")" = 1 ] || bad "$what: the run after it is not at the final name"
  done
done

# The file size limit: a message, exit 2, the previous trace intact.
rm -f "$out.partial"
(ulimit -f 512; exec "$bin" run "$tmp/work.yaml" -o "$out" --seed 2 --quiet-progress) >"$tmp/fs.out" 2>&1
rc=$?
[ $rc = 2 ] || bad "file size limit: exit $rc, want 2: $(tail -3 "$tmp/fs.out")"
grep -q "File too large" "$tmp/fs.out" || bad "file size limit: no cause in: $(tail -3 "$tmp/fs.out")"
[ "$(q "$out" "SELECT value FROM run WHERE key='seed'")" = 1 ] || bad "file size limit: the previous trace was replaced"
check_final "file size limit"
[ -e "$out.partial" ] && check_partial "file size limit" any

# A stray SIGXFSZ is not a stop.
"$bin" run "$tmp/work.yaml" -o "$tmp/x.db" --horizon 20m --quiet-progress >/dev/null 2>&1 &
pid=$!
sleep 0.2
kill -s XFSZ $pid 2>/dev/null
wait $pid
rc=$?
[ $rc = 0 ] || bad "SIGXFSZ from outside: exit $rc, want 0"
ok

# Two runs, one -o: the second is refused; the first prints its own summary.
"$bin" run "$tmp/work.yaml" -o "$tmp/same.db" --seed 11 --horizon 20h --quiet-progress >"$tmp/a.out" 2>&1 &
pa=$!
sleep 0.3
"$bin" run "$tmp/work.yaml" -o "$tmp/same.db" --seed 12 --horizon 20h --quiet-progress >"$tmp/b.out" 2>&1
rb=$?
wait $pa
ra=$?
[ $ra = 0 ] || bad "same -o: the first run exits $ra: $(tail -3 "$tmp/a.out")"
if [ $rb = 0 ]; then
  echo "note: the first run finished before the second started; the refusal was not exercised"
else
  [ $rb = 2 ] || bad "same -o: the second run exits $rb, want 2"
  grep -q "another gpusim run (pid $pa) is writing it" "$tmp/b.out" || bad "same -o: $(cat "$tmp/b.out")"
  grep -q "^Seed:        11$" "$tmp/a.out" || bad "same -o: the first run printed another summary: $(head -3 "$tmp/a.out")"
  [ "$(q "$tmp/same.db" "SELECT value FROM run WHERE key='seed'")" = 11 ] || bad "same -o: the trace is not the first run's"
fi
ok

# Without -o: a seed loop and a repeated run get distinct names.
(cd "$tmp" && for s in 1 2; do "$bin" run work.yaml --seed $s --horizon 10m --quiet-progress >/dev/null 2>&1 & done; wait)
ls "$tmp"/gpusim-work-seed1-*.db "$tmp"/gpusim-work-seed2-*.db >/dev/null 2>&1 || bad "seed loop names: $(ls "$tmp")"
(cd "$tmp" || exit
 "$bin" run work.yaml --horizon 20h --quiet-progress >p1.out 2>&1 &
 sleep 0.3; "$bin" run work.yaml --horizon 20h --quiet-progress >p2.out 2>&1; wait)
names=$(cat "$tmp"/p1.out "$tmp"/p2.out | sed -n 's/^trace: //p' | sort | tr '\n' ' ')
case "$names" in
  *-2.db*) ;;
  *) echo "note: the parallel runs did not overlap ($names)";;
esac
[ "$(echo "$names" | wc -w)" = 2 ] || bad "parallel default names: '$names'"
ok

# -o never deletes what is not a trace.
cp "$tmp/work.yaml" "$tmp/keep.yaml"
"$bin" run "$tmp/work.yaml" -o "$tmp/keep.yaml" --horizon 1m --quiet-progress >"$tmp/k.out" 2>&1
rc=$?
[ $rc = 2 ] || bad "-o yaml: exit $rc, want 2"
cmp -s "$tmp/work.yaml" "$tmp/keep.yaml" || bad "-o yaml: the file was changed"
grep -q "is not a gpusim trace" "$tmp/k.out" || bad "-o yaml: $(cat "$tmp/k.out")"
sqlite3 "$tmp/other.db" "CREATE TABLE run(key, value); INSERT INTO run VALUES ('status', 'mine');"
"$bin" run "$tmp/work.yaml" -o "$tmp/other.db" --horizon 1m --quiet-progress >/dev/null 2>&1 && bad "-o other database: accepted"
[ "$(q "$tmp/other.db" "SELECT value FROM run")" = mine ] || bad "-o other database: changed"
ok

# Names that would be SQLite URI syntax are plain paths.
for name in 'a?mode=memory.db' 'b#c.db' 'd%41.db'; do
  "$bin" run "$tmp/work.yaml" -o "$tmp/$name" --horizon 1m --quiet-progress >"$tmp/n.out" 2>&1 || bad "-o '$name': $(tail -2 "$tmp/n.out")"
  [ -s "$tmp/$name" ] || bad "-o '$name': no such file: $(ls "$tmp")"
  "$bin" report "$tmp/$name" >/dev/null 2>&1 || bad "report '$name' fails"
done
[ -e "$tmp/dA.db" ] && bad "-o 'd%41.db' was decoded"
ok

# A read-only directory is named as the cause (as a user other than root, when possible).
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
runner=()
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
    chmod 755 "$tmp"
    runner=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  else
    runner=(skip)
  fi
fi
if [ "${runner[0]:-}" = skip ]; then
  echo "note: read-only directory not checked (root, and no setpriv)"
else
  "${runner[@]}" "$bin" run "$tmp/work.yaml" -o "$tmp/ro/t.db" --horizon 1m --quiet-progress >"$tmp/ro.out" 2>&1
  rc=$?
  [ $rc = 2 ] || bad "read-only directory: exit $rc, want 2"
  grep -q "directory '$tmp/ro' is not writable (Permission denied)" "$tmp/ro.out" || bad "read-only directory: $(cat "$tmp/ro.out")"
  ok
fi

echo "$checks checks, $fail failures"
[ $fail -eq 0 ]
