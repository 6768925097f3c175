#!/usr/bin/env bash
# Every worked example of the user's documentation (docs/examples/*.yaml) runs and passes its
# expect: checks, so the examples docs/scenario-format.md quotes cannot drift from what gpusim
# accepts and does. An example without checks fails too: it would prove nothing. A failing
# example is named with gpusim's exit status and its FAIL lines.
# Usage: test-docs-examples.sh GPUSIM
set -u
bin=${1:?usage: test-docs-examples.sh GPUSIM}
here=$(cd "$(dirname "$0")" && pwd)
dir=$here/../../docs/examples
shopt -s nullglob
examples=("$dir"/*.yaml)
if [ ${#examples[@]} -eq 0 ]; then
  echo "skipped: no examples in $dir"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for ex in "${examples[@]}"; do
  name=$(basename "$ex")
  # Each example writes its own trace, so one that fails can be inspected from its output.
  "$bin" run "$ex" -o "$tmp/${name%.yaml}.db" --quiet-progress >"$tmp/out" 2>&1
  rc=$?
  # The summary's last lines: "checks: N passed, M failed".
  checks=$(sed -n 's/^checks: \([0-9]*\) passed.*/\1/p' "$tmp/out")
  if [ $rc -eq 0 ] && [ "${checks:-0}" -gt 0 ]; then
    pass=$((pass + 1))
    continue
  fi
  fail=$((fail + 1))
  if [ $rc -eq 0 ]; then
    echo "FAIL: docs/examples/$name: no expect: checks (an example must check what it shows)"
    continue
  fi
  case $rc in
    1) why="a check failed" ;;
    2) why="usage or I/O error" ;;
    3) why="invalid scenario" ;;
    4) why="internal error" ;;
    *) why="killed or interrupted" ;;
  esac
  echo "FAIL: docs/examples/$name: gpusim run exited $rc ($why)"
  # The FAIL lines of its checks, or gpusim's error when it did not run.
  grep -E '^FAIL|error' "$tmp/out" | sed 's/^/    /'
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
