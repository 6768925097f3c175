#!/usr/bin/env bash
# The README's quick start shows the summary `make run` prints: it must be what gpusim prints
# for scenarios/quickstart.yaml today, line for line.
# Usage: test-readme-quickstart.sh GPUSIM
set -eu
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '/^Scenario:    quickstart$/{on=1} on&&/^```$/{exit} on{print}' "$root/README.md" >"$tmp/want.txt"
[[ -s $tmp/want.txt ]] || { echo "FAIL: no quickstart summary block in README.md"; exit 1; }
cd "$root"
"$bin" run scenarios/quickstart.yaml -o "$tmp/quickstart.db" --quiet-progress | sed "s#$tmp/quickstart.db#build/quickstart.db#" >"$tmp/got.txt"
if ! diff -u "$tmp/want.txt" "$tmp/got.txt"; then
  echo "FAIL: README.md's quickstart summary (-) differs from what gpusim prints (+); update the README"
  exit 1
fi
