#!/usr/bin/env bash
# `gpusim report TRACE --html FILE` and `gpusim compare ... --html FILE`: the page is written,
# self-contained, and its options and errors are as docs/cli.md says. (The page in a browser:
# tests/html/run.)
# Usage: test-report-html.sh GPUSIM
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check WHAT WANT-STATUS GOT-STATUS
  if [ "$3" -ne "$2" ]; then echo "FAIL: $1: exit $3, want $2"; cat "$tmp/err" 2>/dev/null; fail=1; fi
}
expect() { # expect FILE PATTERN
  if ! grep -qE -- "$2" "$1"; then echo "FAIL: no match for '$2' in $1:"; head -c 600 "$1"; echo; fail=1; fi
}
"$bin" run "$src/scenarios/teaching/gang-deadlock.yaml" -o "$tmp/gd.db" --quiet-progress >/dev/null
"$bin" run "$src/scenarios/teaching/gang-deadlock-gang.yaml" -o "$tmp/gg.db" --quiet-progress >/dev/null

"$bin" report "$tmp/gd.db" --html "$tmp/gd.html" >"$tmp/out" 2>"$tmp/err"
check "report --html" 0 $?
[ -s "$tmp/out" ] && { echo "FAIL: report --html printed on stdout:"; cat "$tmp/out"; fail=1; }
expect "$tmp/gd.html" '^<!DOCTYPE html>$'
expect "$tmp/gd.html" '<title>gpusim report: gang-deadlock</title>'
expect "$tmp/gd.html" '<script type="application/json" id="gpusim-data">\{"schema":"gpusim-html\\/1"'
if grep -qiE 'https?:|src=|<link|@import|url\(' "$tmp/gd.html"; then
  echo "FAIL: the page refers outside itself:"; grep -oiE '.{30}(https?:|src=|<link|@import|url\().{30}' "$tmp/gd.html"; fail=1
fi
# one data element, and nothing after the closing tag of the page
[ "$(grep -c 'id="gpusim-data"' "$tmp/gd.html")" -eq 1 ] || { echo "FAIL: not one data element"; fail=1; }
[ "$(tail -n 1 "$tmp/gd.html")" = "</html>" ] || { echo "FAIL: the page does not end with </html>"; fail=1; }

# the step-through's bounds: --steps and --from
"$bin" report "$tmp/gd.db" --html "$tmp/w.html" --steps 3 --from 2s 2>"$tmp/err"
check "report --html --steps 3 --from 2s" 0 $?
expect "$tmp/w.html" '"steps":\{"first":[1-9][0-9]*,"total":[0-9]+,"fromUs":2000000,"events":\[\[2000000,'
n=$(grep -o '"events":\[.*\],"initial"' "$tmp/w.html" | grep -o '\],\[[0-9]*,' | wc -l)
[ "$n" -eq 2 ] || { echo "FAIL: --steps 3 gave $((n + 1)) events"; fail=1; }

# errors: usage (2) and an unreadable or wrong file (2), with the page not left behind
"$bin" report "$tmp/gd.db" --steps 3 >/dev/null 2>"$tmp/err"; check "--steps without --html" 2 $?
expect "$tmp/err" 'go with --html'
"$bin" report "$tmp/gd.db" --html "$tmp/x.html" --steps 0 2>"$tmp/err"; check "--steps 0" 2 $?
expect "$tmp/err" '--steps needs a number'
"$bin" report "$tmp/gd.db" --html "$tmp/x.html" --from 5x 2>"$tmp/err"; check "--from 5x" 2 $?
expect "$tmp/err" '--from needs a duration'
"$bin" report "$tmp/gd.db" --html "$tmp/x.html" --from 99h 2>"$tmp/err"; check "--from after the end" 2 $?
expect "$tmp/err" "^gpusim: report: --from 99h0m0s is after the end of the run at 1h0m0s: trace '.*gd.db' holds nothing later$"
[ -e "$tmp/x.html" ] && { echo "FAIL: --from 99h left a page"; fail=1; }
"$bin" report "$tmp/gd.db" --html "$tmp/x.html" --from 1h 2>"$tmp/err"; check "--from at the end" 0 $?
rm -f "$tmp/x.html"
"$bin" report "$tmp/gd.db" --html 2>"$tmp/err"; check "--html without a file" 2 $?
"$bin" report "$tmp/gd.db" --html "$tmp/no/such/dir/x.html" 2>"$tmp/err"; check "unwritable --html" 2 $?
expect "$tmp/err" "cannot write '.*x.html'"
echo "not a trace" >"$tmp/bad.db"
"$bin" report "$tmp/bad.db" --html "$tmp/bad.html" 2>"$tmp/err"; check "not a trace" 2 $?
expect "$tmp/err" 'not a gpusim trace|not SQLite|not a database'
[ -e "$tmp/bad.html" ] && { echo "FAIL: a failed report left $tmp/bad.html"; fail=1; }
"$bin" run "$src/scenarios/teaching/gang-deadlock.yaml" -o "$tmp/sum.db" --trace-level summary --quiet-progress >/dev/null
"$bin" report "$tmp/sum.db" --html "$tmp/sum.html" 2>"$tmp/err"; check "summary-level trace" 2 $?
expect "$tmp/err" 'trace-level summary'

# compare: the table as before on stdout, and the page
"$bin" compare "$tmp/gd.db" "$tmp/gg.db" --html "$tmp/cmp.html" >"$tmp/out" 2>"$tmp/err"
check "compare --html" 0 $?
expect "$tmp/out" '^metric '
expect "$tmp/cmp.html" '<title>gpusim compare: 2 runs</title>'
expect "$tmp/cmp.html" '"kind":"compare"'
[ "$(grep -oE '"label":"gang-deadlock(-gang)?"' "$tmp/cmp.html" | wc -l)" -eq 2 ] || { echo "FAIL: compare's page does not label both runs"; fail=1; }
"$bin" compare "$tmp/gd.db" "$tmp/gg.db" --html "$tmp/no/such/c.html" >/dev/null 2>"$tmp/err"; check "compare unwritable --html" 2 $?
exit $fail
