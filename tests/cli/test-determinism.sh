#!/usr/bin/env bash
# Same scenario and seed give a byte-identical trace (compared with `sqlite3 .dump`); another
# seed gives another trace where the scenario has random choices.
# Usage: test-determinism.sh GPUSIM
set -eu
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
sc=$here/../../scenarios/quickstart.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v sqlite3 >/dev/null || { echo "skipped: sqlite3 not installed"; exit 77; }
"$bin" run "$sc" -o "$tmp/a.db" --quiet-progress >/dev/null
"$bin" run "$sc" -o "$tmp/b.db" --quiet-progress >/dev/null
"$bin" run "$sc" -o "$tmp/c.db" --quiet-progress --seed 7 >/dev/null || true
# the run table's `command` row names the -o file, which differs on purpose
for r in a b c; do sqlite3 "$tmp/$r.db" .dump | grep -v "^INSERT INTO run VALUES('command'," >"$tmp/$r.sql"; done
grep -q "^INSERT INTO run VALUES('command','gpusim run .* -o $tmp/a.db --quiet-progress');" <(sqlite3 "$tmp/a.db" .dump) ||
  { echo "FAIL: the trace does not record its command line"; exit 1; }
if ! cmp -s "$tmp/a.sql" "$tmp/b.sql"; then
  echo "FAIL: two runs with the same seed differ:"
  diff "$tmp/a.sql" "$tmp/b.sql" | head -20
  exit 1
fi
if cmp -s "$tmp/a.sql" "$tmp/c.sql"; then
  echo "FAIL: seed 7 gives the same trace as seed 42 (the lognormal durations should differ)"
  exit 1
fi
echo "1 passed, 0 failed"
