#!/usr/bin/env bash
# The whole GPU check in one command, for any machine with a CUDA GPU:
#   scripts/gpu-check.sh [BUILD_DIR] [OUT_DIR]
# Builds into BUILD_DIR (default: build) if it holds no build yet (a packed build from
# scripts/pack-build.sh needs none), then runs these parts:
#   tests      the CPU and GPU test programs (the GPU tests must run, not skip), the hostile
#              command lines, and the lab grader on the model answers, CPU and GPU parts;
#   programs   01-hello-world, every step as a student runs it, and the tour;
#   latency    course/latency: the latency of one load, idle and under a streaming copy;
#   sectors    course/sectors: the time of writing sectors whole and in two halves at several
#              distances, and with ncu its L2 and DRAM counters (scripts/sector_costs.py);
#              course/lines: the time of a copy whose loads or stores cross 128-byte lines;
#   sass       scripts/sass_check.py: every kernel batches the loads it says it batches, the
#              bytes in flight a thread and an SM, and with the latency above, Little's law;
#   bench      course/bench: headline variants over sizes (bench.csv);
#   variants   course/bench --sweep variants: every variant at 8192 x 8192 and at odd shapes
#              (and in double at 8192 x 16384, variants-double.csv),
#              and scripts/peers.py: PyTorch's and CuPy's transposes beside their copies;
#   model      the bandwidth model (scripts/bandwidth_model.py) on this GPU: the latency against
#              the bandwidth of copies of rising size (latency-load.csv), the calibration kernel
#              beside memcpy (calibration.csv), the kernels' facts, the predictions, and their
#              error against the bench and variants of the same OUT_DIR (model.md), and the
#              bench printing those predictions beside its own measurements (--predict);
#   sweeps     course/bench --sweep block and --sweep size, and the plots of all four CSVs;
#   ncu        the access analyser against Nsight Compute, with DRAM traffic, at 8192 x 8192
#              and 4099 x 8191 (scripts/ncu_check.py; tables in OUT_DIR/ncu-*.md);
#   ncu-more   the same at 4100 x 8196, and the tiled steps at 3001 x 5003;
#   counters   the headline kernels' occupancy, DRAM, L2 and stall counters
#              (scripts/ncu_counters.py, OUT_DIR/counters.md), and the bank model on
#              shared-memory patterns (scripts/bank_patterns.py, OUT_DIR/banks.md);
#              the three Nsight Compute parts are skipped when ncu is not installed;
#   sanitizer  compute-sanitizer memcheck, racecheck, synccheck and initcheck on every program
#              and the [sanitize] GPU tests (scripts/sanitize.sh), when it is installed;
#   proofs     the lab's proof sets (tests/lab/sets.cmake) graded on this GPU: every GPU part a
#              set names for a wrong submission must fail (scripts/lab_proofs.py), from the
#              lab builds that scripts/pack-lab-proofs.sh packs into the folder PROOFS names
#              (environment); skipped, and said so, without one.
# Each part fits in 10 minutes on an H100 or an H200. PARTS (environment) picks parts
# (default: all, in that order), e.g. PARTS="tests ncu".
# Writes the full log to OUT_DIR/gpu-check.log (default OUT_DIR: gpu-check) and a summary to
# OUT_DIR/gpu-check.txt: the commit the programs were built from (BUILD_DIR/build-info.txt,
# written when the build was configured), the device, the date, and one line a part: ok, FAIL,
# or skip with the reason. Exits non-zero if any part failed.
set -uo pipefail
BUILD=${1:-build}
OUT=${2:-gpu-check}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
LOG="$OUT/gpu-check.log"
: >"$LOG"
SUMMARY=()
FAILED=0
PARTS=${PARTS:-tests programs latency sectors sass bench variants model sweeps ncu ncu-more counters sanitizer proofs}
want() { [[ " $PARTS " == *" $1 "* ]]; }

say() { echo "$*" | tee -a "$LOG"; }
part() {  # part NAME COMMAND...: runs, logs, records pass/fail
  local name=$1; shift
  local shown="$*"
  say ""; say "=== $name: ${shown//$ROOT\//}"  # paths from the repository's root
  local part_log t0=$SECONDS
  part_log=$(mktemp)
  "$@" >"$part_log" 2>&1
  local rc=$?
  local took="[$((SECONDS - t0)) s]"  # what each part costs of a GPU's time
  cat "$part_log" >>"$LOG"
  say "=== $name: exit status $rc after ${took:1:-1}"
  if [ $rc -eq 0 ]; then
    SUMMARY+=("ok    $name $took")
  elif [ $rc -eq 77 ]; then  # the part's tool is missing here: its log says which
    SUMMARY+=("skip  $name ($(grep -im1 -E 'skip|not found|missing' "$part_log" | cut -c1-120)) $took")
  else
    SUMMARY+=("FAIL  $name (exit $rc) $took"); FAILED=1
  fi
  tail -n 12 "$part_log" | sed 's/^/    /'
  rm -f "$part_log"
  return 0
}

STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
say "gpu-check $STARTED on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | tee -a "$LOG"
DEVICE=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)

if [ ! -x "$BUILD/tests/gpu_tests" ]; then
  part "configure" cmake -S "$ROOT" -B "$BUILD"
  part "build" cmake --build "$BUILD" -j
fi
STEPS=$(ls -d "$BUILD"/steps/[0-9][0-9]-*/ 2>/dev/null | xargs -n1 basename | grep -v 01-hello-world)

# 1. Tests. The GPU test program exits 77 when it finds no device: that is a failure here.
#    The lab grader grades the model answers (the steps themselves): CPU parts, machine code
#    and GPU parts (exactness, speed against the bars, compute-sanitizer), as ctest -L lab does.
if want tests; then
  part "cpu tests" "$BUILD/tests/cpu_tests"
  part "cpu tests, every step's moves emulated" "$BUILD/tests/cpu_tests" "[emulate]"
  part "hostile command lines" "$BUILD/tests/hostile_tests"
  part "gpu tests" "$BUILD/tests/gpu_tests"
  part "gpu tests, every step exact on every shape" "$BUILD/tests/gpu_tests" "[exact]"
  part "gpu tests, past 2^31 elements" "$BUILD/tests/gpu_tests" "[large]"
  for ex in $(ls "$ROOT/lab/start" | sed 's/\.txt$//'); do
    part "lab $ex, CPU parts" "$BUILD/lab/lab-grade" --exercise "$ex" --part emulated \
      --part large --part analysis --part swizzle --part order
    part "lab $ex, GPU parts" "$BUILD/lab/lab-grade" --exercise "$ex" --gpu
  done
fi

# 2. Every program once as a student runs it (default size, text tables), and the tour.
if want programs; then
  part "01-hello-world" "$BUILD/steps/01-hello-world/01-hello-world" 3 4 2
  for step in $STEPS; do part "$step" "$BUILD/steps/$step/$step"; done
  part "tour" "$BUILD/course/tour"
fi

# 3. The latency of one load (course/latency.cu) at L1-, L2- and DRAM-sized working sets,
#    idle and under load, then the SASS check with Little's law on the DRAM latency under load.
if want latency; then
  part "latency" "$BUILD/course/latency" --sizes 16K,4M,16M,1G --under-load --out "$OUT/latency.csv"
fi
if want sectors; then
  part "sectors" "$BUILD/course/sectors"
  part "lines" "$BUILD/course/lines"
  if command -v ncu >/dev/null; then
    part "sector costs" python3 "$ROOT/scripts/sector_costs.py" "$BUILD" \
      --markdown "$OUT/sectors.md"
  fi
fi
if want sass; then
  model=()
  if [ -f "$OUT/latency.csv" ]; then  # sms and ns of the largest working set, under load
    read -r sms ns < <(python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['under_load'] == 'true']
r = max(rows, key=lambda r: int(r['bytes']))
print(r['sms'], r['ns_per_load'])" "$OUT/latency.csv")
    [ -n "${ns:-}" ] && model=(--latency-ns "$ns" --sms "$sms")
  fi
  part "sass check" python3 "$ROOT/scripts/sass_check.py" "$BUILD" --markdown "$OUT/sass.md" \
    "${model[@]}"
fi

# 4. The benchmark (course/bench.cpp): every step's headline variant and the references over
#    the default sizes, float and double; every variant at 8192 x 8192 and at shapes whose
#    rows are or are not whole 32-byte sectors; 02-naive's block shapes; a ladder of sizes.
#    Then the plots (scripts/plot_results.py), when matplotlib is there.
if want bench; then
  part "bench" "$BUILD/course/bench" --out "$OUT/bench.csv"
fi
if want variants; then
  part "bench variants" "$BUILD/course/bench" --sweep variants \
    --sizes 8192,4099x8191,4096x8191,4099x8192 --out "$OUT/variants.csv"
  # Every variant in double at 8192 x 16384, where the H200 ran step 08's column kernel, the
  # headline at whole-sector shapes, 4 points below step 12's skewed tiles (chapter 12).
  part "bench variants, double 8192x16384" "$BUILD/course/bench" --sweep variants \
    --sizes 8192x16384 --dtypes double --out "$OUT/variants-double.csv"
  # What a Python user calls instead: PyTorch and CuPy, where installed (skipped otherwise).
  part "peers (PyTorch, CuPy)" python3 "$ROOT/scripts/peers.py" --out "$OUT/peers.csv"
fi
# The bandwidth model on this GPU: the kernels' machine-code facts, the predictions from this
# run's latency curve and calibration, and the error of each against this run's bench (a
# report: the committed runs are judged by the CPU test "bandwidth model against ...").
if want model; then
  part "latency against offered load" "$BUILD/course/latency" --sizes 4M,1G --load-sweep \
    --out "$OUT/latency-load.csv"
  part "model calibration" bash -c "'$BUILD/steps/04-padding/04-padding' --size 8192 \
    --variant pad-32x33 --format csv --reps 200 >'$OUT/calibration.csv' && cat '$OUT/calibration.csv'"
  part "model facts" python3 "$ROOT/scripts/bandwidth_model.py" facts "$BUILD" \
    --out "$OUT/kernel-facts.csv"
  part "model predictions" python3 "$ROOT/scripts/bandwidth_model.py" predict \
    --facts "$OUT/kernel-facts.csv" --device "$OUT"
  part "model against this run" python3 "$ROOT/scripts/bandwidth_model.py" compare \
    --device "$OUT" --report --markdown "$OUT/model.md"
  part "bench beside this GPU's predictions" "$BUILD/course/bench" --sizes 8192,4099x8191 \
    --predict "$OUT" --out "$OUT/bench-predict.csv"
fi
if want sweeps; then
  part "bench block" "$BUILD/course/bench" --sweep block --out "$OUT/block.csv"
  part "bench size" "$BUILD/course/bench" --sweep size --dtypes float --out "$OUT/size.csv"
  if python3 -c "import matplotlib" 2>/dev/null; then
    cat "$OUT"/bench.csv "$OUT"/variants.csv "$OUT"/block.csv "$OUT"/size.csv \
      >"$OUT/all.csv" 2>/dev/null
    part "plots" python3 "$ROOT/scripts/plot_results.py" "$OUT/all.csv" --out "$OUT/plots"
  else
    SUMMARY+=("skip  plots (python3 has no matplotlib)")
  fi
fi

# 5. Predictions against Nsight Compute, and DRAM traffic, in three parts that each fit in 10
#    minutes: the check at 8192 x 8192 and at 4099 x 8191 (ncu); at a shape whose rows are
#    whole 16-byte vectors but whose tiles are partial (4100 x 8196: the 16-byte paths'
#    checked edges) and the tiled steps at another odd shape, 3001 x 5003 (ncu-more); the
#    headline kernels' counters and the bank model on shared-memory patterns (counters).
if want ncu || want ncu-more || want counters; then
  if ! command -v ncu >/dev/null; then
    for p in ncu ncu-more counters; do
      want $p && SUMMARY+=("skip  $p (ncu not found: Nsight Compute is not installed)")
    done
  else
    if want ncu; then
      part "ncu check 8192" python3 "$ROOT/scripts/ncu_check.py" "$BUILD" --size 8192 \
        --markdown "$OUT/ncu-8192.md"
      part "ncu check 4099x8191" python3 "$ROOT/scripts/ncu_check.py" "$BUILD" --rows 4099 \
        --cols 8191 --markdown "$OUT/ncu-4099x8191.md"
    fi
    if want ncu-more; then
      # The scalar steps 02 to 05 have no 16-byte path: 4099 x 8191 already checks their edges.
      part "ncu check 4100x8196" python3 "$ROOT/scripts/ncu_check.py" "$BUILD" --rows 4100 \
        --cols 8196 --only 06-float4 07-swizzle 08-diagonal 09-alignment 10-invariants \
        11-async-copy 12-reads 13-lines 15-order 16-wide 17-prefetch references \
        --markdown "$OUT/ncu-4100x8196.md"
      part "ncu check 3001x5003" python3 "$ROOT/scripts/ncu_check.py" "$BUILD" --rows 3001 \
        --cols 5003 --only 04-padding 05-multi-element 07-swizzle 08-diagonal 09-alignment \
        10-invariants 11-async-copy 12-reads 13-lines 15-order 16-wide 17-prefetch \
        --markdown "$OUT/ncu-3001x5003.md"
    fi
    if want counters; then
      # What explains each headline kernel's speed on this GPU: occupancy, DRAM, L2, stalls.
      part "ncu counters" python3 "$ROOT/scripts/ncu_counters.py" "$BUILD" \
        --also 11-async-copy/async-only,11-async-copy/registers,11-async-copy/tall:float,12-reads/trimmed,12-reads/wide:float,13-lines/lines-only,16-wide/tall:float \
        --markdown "$OUT/counters.md"
      # The bank model itself: shared-memory patterns, predicted and measured
      # (course/banks.cu), and the wavefront counter beside global traffic.
      part "bank patterns" python3 "$ROOT/scripts/bank_patterns.py" "$BUILD" \
        --markdown "$OUT/banks.md"
    fi
  fi
fi

# 6. compute-sanitizer: every program on small odd shapes and the [sanitize] GPU tests
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

# 7. The lab's proof sets graded on this GPU (scripts/lab_proofs.py): the lab builds of the sets,
#    packed by scripts/pack-lab-proofs.sh from the same commit, in the folder PROOFS names.
if want proofs; then
  if [ -n "${PROOFS:-}" ] && [ -d "$PROOFS" ]; then
    for f in "$PROOFS"/*/build-info.txt; do  # the proofs must be the programs' own commit
      if [ -f "$f" ] && [ -f "$BUILD/build-info.txt" ] &&
         [ "$(sed -n 's/^commit //p' "$f")" != "$(sed -n 's/^commit //p' "$BUILD/build-info.txt")" ]; then
        say "proofs: $f names another commit than $BUILD/build-info.txt"
        SUMMARY+=("FAIL  lab proof sets (built from another commit: $f)"); FAILED=1
        PROOFS=""
        break
      fi
    done
    [ -n "$PROOFS" ] && part "lab proof sets on the GPU" python3 "$ROOT/scripts/lab_proofs.py" \
      "$PROOFS" --markdown "$OUT/proofs.md"
  else
    SUMMARY+=("skip  proofs (PROOFS names no folder: scripts/pack-lab-proofs.sh packs the sets)")
  fi
fi

COMMIT=$(sed -n 's/^commit //p' "$BUILD/build-info.txt" 2>/dev/null)
{
  echo "gpu-check summary"
  echo "commit:  ${COMMIT:-unknown (no $BUILD/build-info.txt)}"
  echo "device:  ${DEVICE:-no GPU found}"
  echo "date:    $STARTED to $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "parts:   $PARTS"
  echo ""
  for line in "${SUMMARY[@]}"; do echo "$line"; done
} >"$OUT/gpu-check.txt"
say ""; say "=== summary ($OUT/gpu-check.txt)"
cat "$OUT/gpu-check.txt" | tee -a "$LOG"
exit $FAILED
