#!/usr/bin/env bash
# Output files of report --html, compare --html and export (cli/outfile.h): written whole or not
# at all, and never over the input trace (however it is named), a device or FIFO, a directory or
# another gpusim trace; a failure leaves what was at the target as it was.
# Usage: test-outfile.sh GPUSIM
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
same() { # same WHAT FILE SHA: FILE still has content SHA
  if [ "$(sha1sum < "$2" 2>/dev/null)" != "$3" ]; then echo "FAIL: $1: $2 changed or is gone"; fail=1; fi
}
status() { # status WHAT WANT GOT
  if [ "$3" -ne "$2" ]; then echo "FAIL: $1: exit $3, want $2"; cat "$tmp/err"; fail=1; fi
}
says() { # says WHAT PATTERN
  if ! grep -qE -- "$2" "$tmp/err"; then echo "FAIL: $1: stderr lacks '$2':"; cat "$tmp/err"; fail=1; fi
}
no_temp() {
  if ls -A "$tmp" | grep -q '^\.'; then echo "FAIL: $1: a temporary file was left: $(ls -A "$tmp" | grep '^\.')"; fail=1; fi
}
"$bin" run "$src/scenarios/teaching/fragmentation.yaml" -o "$tmp/t.db" --quiet-progress >/dev/null
"$bin" run "$src/scenarios/teaching/gang-deadlock.yaml" -o "$tmp/g.db" --quiet-progress >/dev/null
"$bin" run "$src/scenarios/teaching/fragmentation.yaml" -o "$tmp/sum.db" --trace-level summary --quiet-progress >/dev/null
sha=$(sha1sum < "$tmp/t.db")
ln -s t.db "$tmp/link.db"
ln "$tmp/t.db" "$tmp/hard.db"

# the input itself, by its name, another spelling, a symbolic link, a hard link
for out in "$tmp/t.db" "$tmp/./t.db" "$tmp/link.db" "$tmp/hard.db"; do
  "$bin" report "$tmp/t.db" --html "$out" >/dev/null 2>"$tmp/err"; status "report --html $out" 2 $?
  says "report --html $out" "is the input '.*t.db' itself"
  "$bin" export "$tmp/t.db" --perfetto "$out" 2>"$tmp/err"; status "export --perfetto $out" 2 $?
  "$bin" export "$tmp/t.db" --openmetrics "$out" 2>"$tmp/err"; status "export --openmetrics $out" 2 $?
  "$bin" compare "$tmp/t.db" "$tmp/g.db" --html "$out" >/dev/null 2>"$tmp/err"; status "compare --html $out" 2 $?
  same "output $out" "$tmp/t.db" "$sha"
done
# another gpusim trace is not replaced
gsha=$(sha1sum < "$tmp/g.db")
"$bin" report "$tmp/t.db" --html "$tmp/g.db" 2>"$tmp/err"; status "report --html over a trace" 2 $?
says "report --html over a trace" "is a gpusim trace: not replaced"
"$bin" export "$tmp/t.db" --openmetrics "$tmp/g.db" 2>"$tmp/err"; status "export over a trace" 2 $?
same "another trace" "$tmp/g.db" "$gsha"
# not a regular file: a FIFO, a directory
mkfifo "$tmp/fifo"
"$bin" report "$tmp/t.db" --html "$tmp/fifo" 2>"$tmp/err"; status "report --html to a FIFO" 2 $?
says "report --html to a FIFO" "exists and is not a regular file"
[ -p "$tmp/fifo" ] || { echo "FAIL: the FIFO is gone"; fail=1; }
mkdir "$tmp/dir"
"$bin" export "$tmp/t.db" --perfetto "$tmp/dir" 2>"$tmp/err"; status "export to a directory" 2 $?
[ -d "$tmp/dir" ] || { echo "FAIL: the directory is gone"; fail=1; }
# a failure (a summary-level trace has no events) leaves an existing file as it was
echo "keep me" > "$tmp/keep.html"
ksha=$(sha1sum < "$tmp/keep.html")
"$bin" report "$tmp/sum.db" --html "$tmp/keep.html" 2>"$tmp/err"; status "report --html of a summary trace" 2 $?
same "a failed report --html" "$tmp/keep.html" "$ksha"
"$bin" export "$tmp/sum.db" --perfetto "$tmp/keep.html" 2>"$tmp/err"; status "export of a summary trace" 2 $?
same "a failed export" "$tmp/keep.html" "$ksha"
no_temp "failures"
# the file size limit: an error naming the cause, no file, no temporary file
( ulimit -f 8; "$bin" report "$tmp/g.db" --html "$tmp/small.html" 2>"$tmp/err" ); status "report --html past the file size limit" 2 $?
says "report --html past the file size limit" "File too large"
[ -e "$tmp/small.html" ] && { echo "FAIL: a truncated small.html was left"; fail=1; }
( ulimit -f 8; "$bin" export "$tmp/g.db" --openmetrics "$tmp/small.om" 2>"$tmp/err" ); status "export past the file size limit" 2 $?
says "export past the file size limit" "File too large"
[ -e "$tmp/small.om" ] && { echo "FAIL: a truncated small.om was left"; fail=1; }
no_temp "the file size limit"
# success: replaces a file of ours, through a symbolic link the file it points to (the link stays)
"$bin" report "$tmp/t.db" --html "$tmp/keep.html" 2>"$tmp/err"; status "report --html over an old page" 0 $?
grep -q '^<!DOCTYPE html>$' "$tmp/keep.html" || { echo "FAIL: keep.html is not the page"; fail=1; }
ln -s keep.html "$tmp/page-link.html"
"$bin" report "$tmp/g.db" --html "$tmp/page-link.html" 2>"$tmp/err"; status "report --html through a link" 0 $?
[ -L "$tmp/page-link.html" ] || { echo "FAIL: the symbolic link was replaced by a file"; fail=1; }
grep -q 'gang-deadlock' "$tmp/keep.html" || { echo "FAIL: the link's target was not written"; fail=1; }
perm=$(umask 022; "$bin" export "$tmp/t.db" --perfetto "$tmp/p.json" && stat -c %a "$tmp/p.json")
[ "$perm" = 644 ] || { echo "FAIL: p.json has mode '$perm', want 644 under umask 022"; fail=1; }
no_temp "successes"
[ $fail -eq 0 ] && echo "test-outfile: all passed"
exit $fail
