#!/usr/bin/env bash
# compute-sanitizer over every program of the course, for any machine with a CUDA GPU:
#   scripts/sanitize.sh BUILD_DIR [OUT_DIR]
# Under each of memcheck, racecheck, synccheck and initcheck it runs
#   - every step program (02 to 17) with --variant all --no-compare --once, on 31 x 33
#     (the scalar paths) and 132 x 100 (rows of whole 16-byte vectors in partial tiles: the
#     16-byte paths) in float and double, and on 1 x 1, 1 x 4099 and 4099 x 1 in one type each,
#   - 01-hello-world on a small grid (2 blocks of 4 x 2 threads),
#   - course/latency, course/banks and course/sectors on small sizes,
#   - the GPU tests tagged [sanitize] (every kernel on small odd shapes, other block shapes,
#     misaligned views, the test-only broken kernels): a few minutes under racecheck.
# Each run's log is OUT_DIR/TOOL/NAME.log (default OUT_DIR: sanitize). At the end it prints a
# table, program x tool: "ok", or "FAIL" with the number of reports (and the exit status of
# a run that failed on its own), then the logs of the failed runs; the table is also written
# to OUT_DIR/summary.txt (OUT_DIR/summary-TOOL.txt when TOOLS names other tools than the four,
# so that runs of one tool each can share OUT_DIR at once).
# Exit status: 0 nothing reported, 1 a report or a failed run, 2 bad usage, 77 skipped (no
# compute-sanitizer, or no CUDA device): ctest shows the `sanitize` test as skipped then.
# Environment: COMPUTE_SANITIZER (path of the tool; default: found on PATH or in the CUDA
# toolkit), TOOLS (default "memcheck racecheck synccheck initcheck"), JOBS (runs at once,
# default: half the cores, at least 4).
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: $0 BUILD_DIR [OUT_DIR]" >&2
  exit 2
fi
BUILD=$1
OUT=${2:-sanitize}
ALL_TOOLS="memcheck racecheck synccheck initcheck"
TOOLS=${TOOLS:-$ALL_TOOLS}
SUMMARY="$OUT/summary.txt"
[ "$TOOLS" = "$ALL_TOOLS" ] || SUMMARY="$OUT/summary-$(echo $TOOLS | tr ' ' '-').txt"
JOBS=${JOBS:-$(( $(nproc) > 8 ? $(nproc) / 2 : 4 ))}
SKIP=77
REPORTED=86  # compute-sanitizer's exit status when it reported something

if [ ! -x "$BUILD/steps/02-naive/02-naive" ]; then
  echo "sanitize: $BUILD holds no build (no steps/02-naive/02-naive); build first" >&2
  exit 2
fi

# The tool: COMPUTE_SANITIZER, PATH, then the usual places in a CUDA toolkit.
SAN=${COMPUTE_SANITIZER:-}
if [ -z "$SAN" ]; then
  for candidate in "$(command -v compute-sanitizer 2>/dev/null)" \
                   "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
                   "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer/compute-sanitizer"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then SAN=$candidate; break; fi
  done
fi
if [ -z "$SAN" ] || [ ! -x "$SAN" ]; then
  echo "sanitize: skipped: compute-sanitizer not found (set COMPUTE_SANITIZER, or put it on PATH)"
  exit $SKIP
fi

# A device? The programs say so themselves: exit status 3 means no CUDA device.
"$BUILD/steps/02-naive/02-naive" --size 1 --warmup 0 --reps 1 --no-compare >/dev/null 2>&1
rc=$?
if [ $rc -eq 3 ]; then
  echo "sanitize: skipped: no CUDA device"
  exit $SKIP
elif [ $rc -ne 0 ]; then
  echo "sanitize: 02-naive --size 1 fails without a sanitizer (exit $rc); fix that first" >&2
  "$BUILD/steps/02-naive/02-naive" --size 1 --warmup 0 --reps 1 --no-compare >&2
  exit 1
fi

for tool in $TOOLS; do mkdir -p "$OUT/$tool"; done
echo "sanitize: $("$SAN" --version 2>/dev/null | tail -n 1)"
echo "sanitize: tools: $TOOLS; logs in $OUT/TOOL/"

# The runs: "LABEL|NAME|COMMAND..." with the command's words separated by '|'.
RUNS=()
if [ -x "$BUILD/tests/gpu_tests" ]; then
  RUNS+=("gpu_tests|gpu_tests_sanitize|$BUILD/tests/gpu_tests|[sanitize]")
fi
RUNS+=("01-hello-world|01-hello-world_2_4_2|$BUILD/steps/01-hello-world/01-hello-world|2|4|2")
PROGRAMS=()
for dir in "$BUILD"/steps/[0-9][0-9]-*/; do
  step=$(basename "$dir")
  [ "$step" = 01-hello-world ] && continue
  [ -x "$dir/$step" ] || continue
  # Part III's programs (step 18 on) run one process a GPU through NCCL, whose start-up makes
  # CUDA calls that fail by design (it probes for kernel images), which memcheck reports: they
  # are left out here.
  [ $((10#${step%%-*})) -ge 18 ] && continue
  PROGRAMS+=("$step")
  # Both types at an odd shape and a shape of whole 16-byte rows in partial tiles; one type
  # each at the degenerate ones (the [sanitize] GPU tests run every kernel at ten shapes in
  # both types: here it is the program's own code around them that runs under the tool).
  for run in 31x33:float 31x33:double 132x100:float 132x100:double 1x1:float 1x4099:double \
             4099x1:float; do
    shape=${run%:*} dtype=${run#*:}
    RUNS+=("$step|${step}_${shape}_$dtype|$dir$step|--variant|all|--no-compare|--once|--rows|${shape%x*}|--cols|${shape#*x}|--dtype|$dtype")
  done
done

# The course's measuring programs, small: the load latency, the shared-memory patterns and
# the sector experiment.
if [ -x "$BUILD/course/latency" ]; then
  RUNS+=("latency|latency_16K|$BUILD/course/latency|--sizes|16K|--steps|1000")
  PROGRAMS+=("latency")
fi
if [ -x "$BUILD/course/banks" ]; then
  # Lanes that share an address (the broadcasts), 8 warps a block (the default: the widest
  # pattern's 15 KB a warp fits 8 times), 32 warps, and global traffic.
  for pattern in w4-ideal w4-broadcast w8-broadcast-in-phase w8-broadcast-across \
                 w16-broadcast w16-2way-quarter swizzle-group1; do
    RUNS+=("banks|banks_$pattern|$BUILD/course/banks|--pattern|$pattern")
  done
  RUNS+=("banks|banks_w4-ideal_32|$BUILD/course/banks|--pattern|w4-ideal|--warps|32|--global|store")
  RUNS+=("banks|banks_w16-ideal_load|$BUILD/course/banks|--pattern|w16-ideal|--global|load")
  PROGRAMS+=("banks")
fi
if [ -x "$BUILD/course/sectors" ]; then
  RUNS+=("sectors|sectors_256K|$BUILD/course/sectors|--bytes|256K|--reps|1")
  PROGRAMS+=("sectors")
fi
if [ -x "$BUILD/course/lines" ]; then
  RUNS+=("lines|lines_64K|$BUILD/course/lines|--bytes|64K|--reps|1")
  PROGRAMS+=("lines")
fi

run_one() {  # run_one TOOL NAME COMMAND...: one run under the tool, its status in NAME.rc
  local tool=$1 name=$2 t0=$SECONDS
  shift 2
  local log="$OUT/$tool/$name.log"
  "$SAN" --tool "$tool" --error-exitcode $REPORTED "$@" >"$log" 2>&1
  echo $? >"$log.rc"
  echo $((SECONDS - t0)) >"$log.s"  # its seconds: where the tool's time goes
}

start=$(date +%s)
running=0
for tool in $TOOLS; do
  for run in "${RUNS[@]}"; do
    IFS='|' read -r -a words <<<"$run"
    run_one "$tool" "${words[1]}" "${words[@]:2}" &
    running=$((running + 1))
    if [ $running -ge "$JOBS" ]; then
      wait -n
      running=$((running - 1))
    fi
  done
done
wait
echo "sanitize: ${#RUNS[@]} runs per tool in $(($(date +%s) - start)) s; the longest runs (s):"
for tool in $TOOLS; do
  for f in "$OUT/$tool"/*.log.s; do echo "$(cat "$f") $tool/$(basename "$f" .log.s)"; done
done | sort -rn | head -n 5 | sed 's/^/  /'

# Reports in a log: the largest of "ERROR SUMMARY: N errors" and racecheck's
# "RACECHECK SUMMARY: N hazards displayed"; nothing when the tool printed no summary.
reports_in() {
  local errors hazards
  errors=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$1" | tail -n 1 | grep -oE '[0-9]+$')
  hazards=$(grep -oE 'RACECHECK SUMMARY: [0-9]+' "$1" | tail -n 1 | grep -oE '[0-9]+$')
  if [ -z "$errors" ] && [ -z "$hazards" ]; then return; fi
  errors=${errors:-0}
  hazards=${hazards:-0}
  echo $((errors > hazards ? errors : hazards))
}

declare -A REPORTS EXITS
FAILED_LOGS=()
for tool in $TOOLS; do
  for run in "${RUNS[@]}"; do
    IFS='|' read -r -a words <<<"$run"
    label=${words[0]}
    log="$OUT/$tool/${words[1]}.log"
    rc=$(cat "$log.rc" 2>/dev/null || echo "?")
    n=$(reports_in "$log")
    key="$tool|$label"
    REPORTS[$key]=$((${REPORTS[$key]:-0} + ${n:-0}))
    if [ "$rc" = 0 ] && [ -n "$n" ] && [ "$n" -eq 0 ]; then continue; fi
    FAILED_LOGS+=("$log (exit $rc, ${n:-no} report(s))")
    if [ "$rc" != 0 ] && [ "$rc" != $REPORTED ]; then EXITS[$key]="exit $rc"; fi
    if [ -z "$n" ] && [ "$rc" = 0 ]; then EXITS[$key]="no summary"; fi
    [ "$rc" = $REPORTED ] && [ "${n:-0}" -eq 0 ] && REPORTS[$key]=$((${REPORTS[$key]} + 1))
  done
done

LABELS=("01-hello-world" "${PROGRAMS[@]}")
[ -x "$BUILD/tests/gpu_tests" ] && LABELS+=("gpu_tests")
{
  echo ""
  printf '%-18s' "program"
  for tool in $TOOLS; do printf ' %-20s' "$tool"; done
  echo ""
  for label in "${LABELS[@]}"; do
    printf '%-18s' "$label"
    for tool in $TOOLS; do
      key="$tool|$label"
      cell="ok"
      if [ "${REPORTS[$key]:-0}" -gt 0 ]; then
        cell="FAIL ${REPORTS[$key]} report(s)${EXITS[$key]:+, ${EXITS[$key]}}"
      elif [ -n "${EXITS[$key]:-}" ]; then
        cell="FAIL ${EXITS[$key]}"
      fi
      printf ' %-20s' "$cell"
    done
    echo ""
  done
} | tee "$SUMMARY"

if [ ${#FAILED_LOGS[@]} -gt 0 ]; then
  {
    echo ""
    echo "Failed runs (${#FAILED_LOGS[@]}):"
    printf '  %s\n' "${FAILED_LOGS[@]}"
  } | tee -a "$SUMMARY"
  exit 1
fi
echo ""
echo "sanitize: nothing reported"
exit 0
