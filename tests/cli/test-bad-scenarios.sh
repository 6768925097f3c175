#!/usr/bin/env bash
# Each kind of bad scenario exits 3 with `gpusim: FILE:LINE:COL: error: ...`, from both
# `validate` and `run`: the first line of every tests/cli/bad/*.yaml says exactly what gpusim
# must print (`# expect: ...`, the path relative to that folder).
# Usage: test-bad-scenarios.sh GPUSIM
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(cd "$(dirname "$0")/bad" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for f in "$dir"/*.yaml; do
  want="gpusim: $dir/$(head -1 "$f" | sed 's/^# expect: //')"
  for cmd in validate run; do
    if [ $cmd = run ]; then
      got=$("$bin" run "$f" -o "$tmp/trace.db" 2>&1 >/dev/null)
    else
      got=$("$bin" validate "$f" 2>&1 >/dev/null)
    fi
    rc=$?
    if [ $rc -eq 3 ] && [ "$got" = "$want" ] && [ ! -e "$tmp/trace.db" ]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      printf 'FAIL %s (%s): exit %s\n  got:  %s\n  want: %s\n' "$(basename "$f")" $cmd $rc "$got" "$want"
    fi
  done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
