#!/usr/bin/env bash
# The whole GPU check in one command, for any machine with a CUDA GPU:
#   scripts/gpu-check.sh [BUILD_DIR] [OUT_DIR]
# Builds into BUILD_DIR (default: build) if it holds no build yet, then runs
#   1. the test programs (the GPU tests must run, not skip),
#   2. every step at 8192 x 8192 and 4099 x 8191, float and double, all variants, beside
#      memcpy, the copy kernel and cuBLAS (CSV in OUT_DIR/results.csv),
#   3. the tour (every step in order, one table),
#   4. the access analyser against Nsight Compute (scripts/ncu_check.py; table in
#      OUT_DIR/ncu.md), when ncu is installed,
#   5. compute-sanitizer memcheck, racecheck, synccheck and initcheck on every program and
#      the [sanitize] GPU tests (scripts/sanitize.sh), when compute-sanitizer is installed.
# PARTS (environment) picks parts: any of "tests steps tour ncu sanitizer" (default: all).
# Writes the full log to OUT_DIR/gpu-check.log (default OUT_DIR: gpu-check) and ends with a
# summary; exits non-zero if any part failed.
set -uo pipefail
BUILD=${1:-build}
OUT=${2:-gpu-check}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
LOG="$OUT/gpu-check.log"
: >"$LOG"
SUMMARY=()
FAILED=0
PARTS=${PARTS:-tests steps tour ncu sanitizer}
want() { [[ " $PARTS " == *" $1 "* ]]; }

say() { echo "$*" | tee -a "$LOG"; }
part() {  # part NAME COMMAND...: runs, logs, records pass/fail
  local name=$1; shift
  say ""; say "=== $name: $*"
  local part_log
  part_log=$(mktemp)
  "$@" >"$part_log" 2>&1
  local rc=$?
  cat "$part_log" >>"$LOG"
  if [ $rc -eq 0 ]; then SUMMARY+=("ok    $name"); else SUMMARY+=("FAIL  $name (exit $rc)"); FAILED=1; fi
  tail -n 12 "$part_log" | sed 's/^/    /'
  rm -f "$part_log"
  return 0
}

say "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | tee -a "$LOG"

if [ ! -x "$BUILD/tests/gpu_tests" ]; then
  part "configure" cmake -S "$ROOT" -B "$BUILD"
  part "build" cmake --build "$BUILD" -j
fi
STEPS=$(ls -d "$BUILD"/steps/0*/ 2>/dev/null | xargs -n1 basename | grep -v 01-hello-world)

# 1. Tests. The GPU test program exits 77 when it finds no device: that is a failure here.
if want tests; then
  part "cpu tests" "$BUILD/tests/cpu_tests"
  part "gpu tests" "$BUILD/tests/gpu_tests"
fi

# 2. Every step, both sizes, both types, all variants, beside the references.
if want steps; then
part "01-hello-world" "$BUILD/steps/01-hello-world/01-hello-world" 3 4 2
CSV="$OUT/results.csv"
"$BUILD/common/references" --size 1 --format csv --reps 1 --warmup 0 2>/dev/null | head -n 1 >"$CSV"
for step in $STEPS; do
  for shape in "--rows 8192 --cols 8192" "--rows 4099 --cols 8191"; do
    for dtype in float double; do
      # shellcheck disable=SC2086
      part "$step $shape $dtype" bash -c "'$BUILD/steps/$step/$step' --variant all $shape --dtype $dtype --format csv | tail -n +2 >>'$CSV'"
    done
  done
done
say ""; say "=== results (CSV: $CSV)"; column -s, -t <"$CSV" | cut -c1-160 | tee -a "$LOG"
fi

# 3. The tour.
want tour && part "tour" "$BUILD/steps/tour"

# 4. Predictions against Nsight Compute.
if ! want ncu; then
  :
elif command -v ncu >/dev/null; then
  part "ncu check" python3 "$ROOT/scripts/ncu_check.py" "$BUILD" --markdown "$OUT/ncu.md"
else
  SUMMARY+=("skip  ncu check (ncu not found)")
fi

# 5. compute-sanitizer: every program on small odd shapes and the [sanitize] GPU tests
#    (scripts/sanitize.sh; logs and its table in OUT_DIR/sanitize).
if want sanitizer; then
  say ""; say "=== compute-sanitizer: scripts/sanitize.sh $BUILD $OUT/sanitize"
  "$ROOT/scripts/sanitize.sh" "$BUILD" "$OUT/sanitize" 2>&1 | tee -a "$LOG"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) SUMMARY+=("ok    compute-sanitizer ($OUT/sanitize/summary.txt)") ;;
    77) SUMMARY+=("skip  compute-sanitizer (not found, or no device)") ;;
    *) SUMMARY+=("FAIL  compute-sanitizer (exit $rc; $OUT/sanitize/summary.txt)"); FAILED=1 ;;
  esac
fi

say ""; say "=== summary"
for line in "${SUMMARY[@]}"; do say "$line"; done
exit $FAILED
