#!/usr/bin/env bash
# Controllers never call each other (sim/controller.h): no object of one controller
# (sim/controllers/<name>.c and its <name>_*.c files) refers to a symbol another controller's
# objects define. Only the registry refers to the controllers, through their descriptors.
# Also: each controller's `watches` mask names exactly the watch events its on_watch handles (a
# `case GS_W_...` it has but does not subscribe to would never be delivered).
# Usage: check-controllers.sh DIR [SOURCE_DIR]   (DIR: the compiled sim/controllers/*.c.o)
set -u
tmp=$1
src=${2:-}
command -v nm >/dev/null || { echo "skipped: nm is missing"; exit 77; }
[[ -d $tmp ]] || { echo "FAIL: $tmp is not a directory of objects"; exit 2; }
objs=$(cd "$tmp" && ls | grep -E '^[a-z_]+\.c\.o$' | sort)
# Objects of sources that no longer exist (a build directory keeps them) do not count.
if [[ -n $src ]]; then
  live=""
  for o in $objs; do [[ -f $src/sim/controllers/${o%.o} ]] && live+="$o "; done
  objs=$live
fi
# A controller's root file defines its descriptor gs_ctl_<name>.
declare -A family
roots=()
for o in $objs; do
  if nm --defined-only -g "$tmp/$o" | grep -q ' D gs_ctl_\| R gs_ctl_'; then
    roots+=("${o%.c.o}")
  fi
done
[[ ${#roots[@]} -gt 0 ]] || { echo "FAIL: no controller descriptor (gs_ctl_*) found in $tmp"; exit 1; }
for o in $objs; do
  base=${o%.c.o}
  for r in "${roots[@]}"; do
    if [[ $base == "$r" || $base == "$r"_* ]]; then family[$o]=$r; fi
  done
done
# Who defines what, once.
declare -A owner
for o in "${!family[@]}"; do
  for d in $(nm --defined-only -g "$tmp/$o" | awk '{print $3}'); do owner[$d]=$o; done
done
fail=0
for o in "${!family[@]}"; do
  for u in $(nm -u "$tmp/$o" | awk '{print $2}'); do
    p=${owner[$u]:-}
    if [[ -n $p && ${family[$p]} != "${family[$o]}" ]]; then
      echo "FAIL: controller ${family[$o]} ($o) refers to $u of controller ${family[$p]} ($p)"
      fail=1
    fi
  done
done
[[ $fail == 0 ]] && echo "ok: ${#roots[@]} controllers (${roots[*]}), none refers to another's symbols"
if [[ -n $src ]]; then
  for r in "${roots[@]}"; do
    f=$src/sim/controllers/$r.c
    handled=$(awk '/^static void on_watch\(/,/^}/' "$f" | grep -o 'case GS_W_[A-Z_]*' | sed 's/case //' | sort -u)
    subscribed=$(awk '/\.watches =/,/,$/' "$f" | grep -o 'GS_W_[A-Z_]*' | sort -u)
    if [[ "$handled" != "$subscribed" ]]; then
      echo "FAIL: $r handles [$(echo $handled)] but its watches mask is [$(echo $subscribed)]"
      fail=1
    fi
  done
  [[ $fail == 0 ]] && echo "ok: every controller's watches mask matches the events its on_watch handles"
fi
exit $fail
