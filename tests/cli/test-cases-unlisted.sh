#!/usr/bin/env bash
# The shared cases not in tests/scenarios/cases.txt belong to features not modelled yet: each
# must end cleanly, with exit 3 ("not supported yet", file:line:col) or exit 1 (a check fails),
# never a crash; one that passes all its checks should be listed in cases.txt.
# Usage: test-cases-unlisted.sh GPUSIM
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
dir=${GPUSIM_CASES_DIR:-$here/../../../shared/cases}
[ -d "$dir" ] || { echo "skipped: $dir not found (the shared cases live in ../shared/cases)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for f in "$dir"/*.yaml; do
  name=$(basename "$f")
  grep -qx "$name" "$here/../scenarios/cases.txt" && continue
  out=$("$bin" run "$f" -o "$tmp/t.db" 2>&1)
  rc=$?
  case $rc in
    3) if printf '%s\n' "$out" | grep -q "^gpusim: $f:[0-9]*:[0-9]*: error: not supported yet: "; then
         pass=$((pass + 1))
       else
         fail=$((fail + 1)); printf 'FAIL %s: exit 3 without a not-supported-yet position:\n%s\n' "$name" "$out"
       fi ;;
    1) pass=$((pass + 1)) ;;
    0) fail=$((fail + 1)); echo "FAIL $name: passes all its checks: list it in tests/scenarios/cases.txt" ;;
    *) fail=$((fail + 1)); printf 'FAIL %s: exit %s\n%s\n' "$name" $rc "$out" ;;
  esac
  rm -f "$tmp/t.db"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
