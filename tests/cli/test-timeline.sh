#!/usr/bin/env bash
# `gpusim timeline TRACE` on gang-deadlock.yaml: the glyphs by locale (ASCII under LANG=C,
# UTF-8 blocks under a UTF-8 locale), 100 columns when stdout is not a terminal, the
# aggregated FailedScheduling rows once with their count, --messages, --node, and the errors
# with their exit statuses. The line-by-line check against the trace is tests/unit/test_timeline.c.
# Usage: test-timeline.sh GPUSIM
set -eu
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" run "$src/scenarios/teaching/gang-deadlock.yaml" -o "$tmp/t.db" --quiet-progress >/dev/null
fail=0
expect() { # expect FILE PATTERN
  if ! grep -qE -- "$2" "$1"; then
    echo "FAIL: no line matching '$2' in:"; cat "$1"; fail=1
  fi
}
status() { # status WANT CMD...: run CMD, check its exit status
  local want=$1 rc=0; shift
  "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || rc=$?
  if [ "$rc" != "$want" ]; then echo "FAIL: '$*' exits $rc, want $want"; cat "$tmp/err.txt"; fail=1; fi
}
LC_ALL= LC_CTYPE= LANG=C "$bin" timeline "$tmp/t.db" >"$tmp/ascii.txt"
expect "$tmp/ascii.txt" '^# held by a pod|^GPUs per node after each event: # held by a pod'
expect "$tmp/ascii.txt" '^  4s trainer-a-2 FailedScheduling x11  ######## ######## ######## ########$'
expect "$tmp/ascii.txt" '^  0s node/h100-0 Joined                -------- *$|^  0s node/h100-0 Joined                --------$'
[ "$(grep -c 'FailedScheduling x11' "$tmp/ascii.txt")" = 3 ] || { echo "FAIL: not 3 FailedScheduling lines"; fail=1; }
if LC_ALL= LC_CTYPE= LANG=C grep -q '[^ -~]' "$tmp/ascii.txt"; then echo "FAIL: non-ASCII under LANG=C"; fail=1; fi
awk 'length($0) > 100 { bad = 1 } END { exit bad }' "$tmp/ascii.txt" || { echo "FAIL: a line over 100 columns"; fail=1; }
LC_ALL=C.UTF-8 "$bin" timeline "$tmp/t.db" >"$tmp/utf8.txt"
expect "$tmp/utf8.txt" '^  4s trainer-a-2 FailedScheduling ×11  ████████ ████████ ████████ ████████$'
LANG=C "$bin" timeline "$tmp/t.db" --ascii -m --from 1m --no-legend >"$tmp/m.txt"
expect "$tmp/m.txt" '^ +0/4 nodes are available: 4 Insufficient nvidia.com/gpu\. .* \(11 times, 1m0s to 56m0s\)$'
[ "$(head -1 "$tmp/m.txt" | cut -c1-4)" = TIME ] || { echo "FAIL: --no-legend still prints the legend"; fail=1; }
LANG=C "$bin" timeline "$tmp/t.db" --node h100-2 --no-legend >"$tmp/n.txt"
expect "$tmp/n.txt" '^  3s trainer-b-1 Scheduled     ########$'
[ "$(wc -l <"$tmp/n.txt")" = 7 ] || { echo "FAIL: --node h100-2 prints $(wc -l <"$tmp/n.txt") lines, want 7"; cat "$tmp/n.txt"; fail=1; }
# errors and exit statuses
status 0 "$bin" timeline --help
status 2 "$bin" timeline
status 2 "$bin" timeline "$tmp/t.db" --from soon
status 2 "$bin" timeline "$tmp/t.db" --from 5m --to 1m
# --from after the run's end (1h) is refused as --at is (reports/open.h); an empty window says so
status 2 "$bin" timeline "$tmp/t.db" --from 99h
expect "$tmp/err.txt" "^gpusim: --from 99h0m0s is after the end of the run at 1h0m0s: trace '.*t.db' holds nothing later$"
status 0 "$bin" timeline "$tmp/t.db" --from 1h --no-legend
expect "$tmp/out.txt" '^no events from 1h0m0s to the end \(the run ended at 1h0m0s\)$'
[ "$(wc -l <"$tmp/out.txt")" = 1 ] || { echo "FAIL: an empty window prints more than its one line"; cat "$tmp/out.txt"; fail=1; }
status 2 "$bin" timeline "$tmp/t.db" --width 10
status 2 "$bin" timeline "$tmp/t.db" --bogus
status 2 "$bin" timeline "$tmp/t.db" --node h100-9
expect "$tmp/err.txt" "no node named 'h100-9' \(did you mean 'h100-0'\?\)"
status 2 "$bin" timeline "$tmp/missing.db"
echo 'not a trace' >"$tmp/x.db"
status 2 "$bin" timeline "$tmp/x.db"
"$bin" run "$src/scenarios/teaching/gang-deadlock.yaml" -o "$tmp/s.db" --trace-level summary --quiet-progress >/dev/null
status 2 "$bin" timeline "$tmp/s.db"
[ $fail -eq 0 ] && echo "1 passed, 0 failed"
exit $fail
