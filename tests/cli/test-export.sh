#!/usr/bin/env bash
# `gpusim export TRACE --perfetto FILE --openmetrics FILE [--epoch T]` on gang-deadlock.yaml:
# the files' framing, the epoch of the OpenMetrics timestamps, `promtool tsdb create-blocks-from
# openmetrics` accepting the text (when promtool is installed: tools/install-deps promtool), and
# the errors with their exit statuses. The structure and values are tests/unit/test_export.c.
# Usage: test-export.sh GPUSIM
set -eu
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" run "$src/scenarios/teaching/gang-deadlock.yaml" -o "$tmp/t.db" --quiet-progress >/dev/null
fail=0
expect() { # expect FILE PATTERN
  if ! grep -qE -- "$2" "$1"; then
    echo "FAIL: no line matching '$2' in $1:"; head -20 "$1"; fail=1
  fi
}
status() { # status WANT CMD...
  local want=$1 rc=0; shift
  "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || rc=$?
  if [ "$rc" != "$want" ]; then echo "FAIL: '$*' exits $rc, want $want"; cat "$tmp/err.txt"; fail=1; fi
}
status 0 "$bin" export "$tmp/t.db" --perfetto "$tmp/t.json" --openmetrics "$tmp/t.om"
[ "$(head -c 19 "$tmp/t.json")" = '{"displayTimeUnit":' ] || { echo "FAIL: JSON does not start as a trace object"; fail=1; }
[ "$(tail -c 3 "$tmp/t.json")" = ']}' ] || { echo "FAIL: JSON does not end with ]}"; fail=1; }
[ "$(tail -1 "$tmp/t.om")" = '# EOF' ] || { echo "FAIL: OpenMetrics does not end with # EOF"; fail=1; }
# the default epoch 2026-01-01T00:00:00Z (1767225600) and another
expect "$tmp/t.om" '^gpusim_gpus_allocated 8 1767225600$'
expect "$tmp/t.om" '^gpusim_gpus_allocated 32 1767229200$'
status 0 "$bin" export "$tmp/t.db" --openmetrics - --epoch 2025-06-01T00:00:00Z
expect "$tmp/out.txt" '^gpusim_gpus_allocated 8 1748736000$'
status 0 "$bin" export "$tmp/t.db" --openmetrics "$tmp/e.om" --epoch 1000
expect "$tmp/e.om" '^gpusim_gpus_allocated 32 4600$'
if command -v promtool >/dev/null 2>&1; then
  rc=0
  promtool tsdb create-blocks-from openmetrics "$tmp/t.om" "$tmp/blocks" >"$tmp/promtool.txt" 2>&1 || rc=$?
  if [ $rc != 0 ]; then echo "FAIL: promtool refuses the OpenMetrics text (exit $rc):"; cat "$tmp/promtool.txt"; fail=1; fi
  # one block of the run's hour: 2026-01-01T00:00:00Z to 01:00:00Z, in ms
  expect "$tmp/promtool.txt" ' 1767225600000 +1767229200001 '
else
  echo "promtool not installed (tools/install-deps promtool): its check is skipped"
fi
# errors
status 0 "$bin" export --help
status 2 "$bin" export "$tmp/t.db"
status 2 "$bin" export "$tmp/t.db" --perfetto
status 2 "$bin" export "$tmp/t.db" --openmetrics "$tmp/x.om" --epoch yesterday
status 2 "$bin" export "$tmp/t.db" --openmetrics "$tmp/x.om" --epoch 2026-02-30T00:00:00Z
status 0 "$bin" export "$tmp/t.db" --openmetrics - --epoch 2024-02-29T12:00:00Z
expect "$tmp/out.txt" '^gpusim_gpus_allocated 8 1709208000$'
status 2 "$bin" export "$tmp/t.db" --perfetto "$tmp/same" --openmetrics "$tmp/same"
status 2 "$bin" export "$tmp/t.db" --perfetto "$tmp/no/such/dir/x.json"
status 2 "$bin" export "$tmp/missing.db" --perfetto "$tmp/m.json"
[ ! -e "$tmp/m.json" ] || { echo "FAIL: a failed export leaves $tmp/m.json"; fail=1; }
status 2 "$bin" export "$tmp/t.db" --bogus x
[ $fail -eq 0 ] && echo "1 passed, 0 failed"
exit $fail
