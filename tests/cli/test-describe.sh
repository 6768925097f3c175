#!/usr/bin/env bash
# `gpusim describe TRACE NODE [--at D]` rebuilds a node from the trace alone: a precompiled
# driver without an image for the node's kernel, before and after the image is published.
# Usage: test-describe.sh GPUSIM
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/sc.yaml" <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: describe}
spec:
  horizon: 1h
  cluster:
    nodePools:
    - {name: gpu, count: 1, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, kernel: 5.15.0-118-generic,
       capacity: {cpu: '96', memory: 1Ti}, taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
  operator:
    driver: {enabled: true, usePrecompiled: true, version: '535'}
    precompiledKernels: [5.15.0-117-generic]
  events:
  - at: 30m
    precompiledImagePublished: {kernel: 5.15.0-118-generic}
YAML
"$bin" run "$tmp/sc.yaml" -o "$tmp/t.db" --quiet-progress >/dev/null
fail=0
expect() { # expect FILE PATTERN
  if ! grep -qE -- "$2" "$1"; then
    echo "FAIL: no line matching '$2' in:"; cat "$1"; fail=1
  fi
}
"$bin" describe "$tmp/t.db" gpu-0 --at 20m >"$tmp/20m.txt"
expect "$tmp/20m.txt" '^Name: +gpu-0$'
expect "$tmp/20m.txt" '^Taints: +nvidia.com/gpu=present:NoSchedule$'
expect "$tmp/20m.txt" '^Unschedulable: +false$'
expect "$tmp/20m.txt" '^  nvidia-driver-daemonset +0/1 +ImagePullBackOff'
expect "$tmp/20m.txt" '^  nvidia-operator-validator +0/1 +Init:0/4'
expect "$tmp/20m.txt" '^ +feature.node.kubernetes.io/pci-10de.present=true$'
if grep -q 'nvidia.com/gpu:' "$tmp/20m.txt"; then echo "FAIL: GPUs advertised at 20m"; cat "$tmp/20m.txt"; fail=1; fi
"$bin" describe "$tmp/t.db" gpu-0 >"$tmp/end.txt"
expect "$tmp/end.txt" '^  nvidia.com/gpu: +8$'
expect "$tmp/end.txt" '^  nvidia-operator-validator +1/1 +Running'
expect "$tmp/end.txt" 'nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3$'
# Errors: unknown node, bad --at, usage.
if "$bin" describe "$tmp/t.db" nope 2>"$tmp/err.txt"; then echo "FAIL: unknown node accepted"; fail=1; fi
expect "$tmp/err.txt" "no node named 'nope'"
if "$bin" describe "$tmp/t.db" gpu-0 --at soon 2>/dev/null; then echo "FAIL: bad --at accepted"; fail=1; fi
if "$bin" describe "$tmp/t.db" 2>/dev/null; then echo "FAIL: missing NODE accepted"; fail=1; fi
# A FIFO is refused at once with exit 2 (SQLite would block reading it), by report and describe.
mkfifo "$tmp/f.db"
for cmd in report describe; do
  rc=0
  if [ $cmd = report ]; then timeout 10 "$bin" report "$tmp/f.db" 2>"$tmp/err.txt" || rc=$?
  else timeout 10 "$bin" describe "$tmp/f.db" gpu-0 2>"$tmp/err.txt" || rc=$?; fi
  [ $rc = 2 ] || { echo "FAIL: $cmd of a FIFO exits $rc, want 2"; fail=1; }
  expect "$tmp/err.txt" "is not a gpusim trace \(a FIFO, not a regular file\)"
done
[ $fail -eq 0 ] && echo "1 passed, 0 failed"
exit $fail
