#!/usr/bin/env bash
# The layers base <- models <- sim <- reports <- cli, as CMake builds them: a file of one layer
# sees the headers of its own layer and those below it, and a header of a layer above is not
# found. Usage: check-layers.sh CC BUILD_DIR SOURCE_DIR
set -u
cc=$1; build=$2; src=$3
layers=(base models sim reports cli)
# One header of each layer, included as a file of that layer would.
declare -A probe=([base]=base/error.h [models]=models/world.h [sim]=sim/engine.h [reports]=reports/report.h [cli]=cli/cli.h)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
for ((i = 0; i < ${#layers[@]}; i++)); do
  flags=()
  for ((j = 0; j <= i; j++)); do flags+=(-I "$build/layers/${layers[j]}"); done
  me=${layers[i]}
  printf '#include "%s"\n' "${probe[$me]}" >"$tmp/own.c"
  if ! "$cc" -std=c17 -D_POSIX_C_SOURCE=200809L -fsyntax-only "${flags[@]}" $(pkg-config --cflags yaml-0.1 jansson gsl sqlite3) "$tmp/own.c" 2>"$tmp/err"; then
    echo "FAIL: a $me file cannot include ${probe[$me]}:"; cat "$tmp/err"; fail=1
  fi
  for ((k = i + 1; k < ${#layers[@]}; k++)); do
    up=${layers[k]}
    printf '#include "%s"\n' "${probe[$up]}" >"$tmp/up.c"
    if "$cc" -std=c17 -fsyntax-only "${flags[@]}" "$tmp/up.c" 2>"$tmp/err"; then
      echo "FAIL: a $me file can include ${probe[$up]} (layer $up is above $me)"; fail=1
    elif ! grep -q "No such file" "$tmp/err"; then
      echo "FAIL: including ${probe[$up]} from $me failed for another reason:"; cat "$tmp/err"; fail=1
    else
      echo "ok: $me cannot include $up (${probe[$up]}: not found)"
    fi
  done
done
exit $fail
