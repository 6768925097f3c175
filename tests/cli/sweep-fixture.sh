# Sourced by test-sweep.sh and test-merge.sh (not a test itself: ctest runs test-*.sh): the
# gpusim binary ($bin, from the test's first argument), a scratch directory it removes on exit
# (the working directory), the check helpers (expect_eq WHAT GOT WANT, bad, ok, q DB SQL; $fail
# and $checks count them) and tiny.yaml, a 1-node, 6-pod scenario of 30 minutes to sweep.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v sqlite3 >/dev/null || { echo "skipped: sqlite3 not installed"; exit 77; }
cd "$tmp"
fail=0
checks=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
ok() { checks=$((checks + 1)); }
expect_eq() { # what got want
  if [ "$2" == "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}
q() { sqlite3 "$1" "$2" 2>&1; }

cat >tiny.yaml <<'YAML'
apiVersion: gpusim/v1alpha1
kind: Scenario
metadata: {name: tiny}
spec:
  seed: 1
  horizon: 30m
  sampleInterval: 1m
  cluster:
    nodePools:
    - {name: gpu, count: 1, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: "48", memory: 192Gi}}
  workloads:
  - name: infer
    replicas: 2
    arrival: {every: 1m, count: 3}
    duration: {distribution: exponential, mean: 10m}
    template:
      spec:
        containers:
        - name: c
          resources:
            limits: {nvidia.com/gpu: 1}
YAML
