#!/usr/bin/env bash
# The whole GPU check in one command, for any machine with one or more CUDA GPUs of one kind:
#   scripts/gpu-check.sh [BUILD_DIR] [OUT_DIR]
# Builds into BUILD_DIR (default: build) if it holds no build yet (a packed build from
# scripts/pack-build.sh needs none), then runs the parts below concurrently, one part on each
# GPU at a time and the parts that need no GPU beside them, the longest first
# (scripts/gpu_check_schedule.py; `scripts/gpu_check_schedule.py --list` lists the parts, the
# groups and the order they wait for). On one GPU the parts run one after another.
#   cpu-tests   (no GPU) the CPU tests, and every step's moves emulated on the CPU;
#   hostile     hostile command lines against every program;
#   gpu-tests   the GPU tests (they must run, not skip): every step exact on every shape, and
#               past 2^31 elements;
#   plain       the steps' plain CUDA files exact on awkward shapes and past 2^31 elements
#               (tests/test_plain.py --large);
#   lab         the lab grader on the model answers (the steps), CPU and GPU parts;
#   programs    01-hello-world, every step as a student runs it, and the tour;
#   latency     course/latency: the latency of one load, idle and under a streaming copy;
#   sectors     course/sectors: writing sectors whole and in two halves, and with ncu their L2
#               and DRAM counters (scripts/sector_costs.py); course/lines: loads and stores
#               that cross 128-byte lines;
#   sass        (no GPU; after latency) scripts/sass_check.py: every kernel batches the loads it
#               says it batches, its bytes in flight, and with the latency, Little's law;
#   bench       course/bench: headline variants over sizes (bench.csv);
#   variants    course/bench --sweep variants at 8192 x 8192 and odd shapes (and in double at
#               8192 x 16384), and scripts/peers.py: PyTorch's and CuPy's transposes;
#   model-facts (no GPU) the kernels' machine-code facts for the bandwidth model;
#   model       (after bench, variants, model-facts) the model on this GPU: the latency
#               against offered load, the calibration kernel, the predictions and their error
#               against this run's bench and variants (model.md), the bench with --predict;
#   sweeps      course/bench --sweep block and --sweep size;
#   plots       (no GPU; after bench, variants, sweeps) the plots of the four CSVs;
#   ncu-SHAPE   the access analyser against Nsight Compute, with DRAM traffic
#               (scripts/ncu_check.py, OUT_DIR/ncu-SHAPE.md), at 8192, 4099x8191, 4100x8196
#               and 3001x5003; each profile lands in OUT_DIR/ncu-store, where the counters'
#               parts read it instead of profiling the kernel again;
#   counters-SHAPE  the headline kernels' occupancy, DRAM, L2 and stall counters
#               (scripts/ncu_counters.py, OUT_DIR/counters-SHAPE.md) at 8192x16384 and at
#               4099x8191 (after ncu-4099x8191, whose profiles it reads);
#   banks       the bank model on shared-memory patterns (scripts/bank_patterns.py);
#   sanitizer-TOOL  compute-sanitizer's memcheck, racecheck, synccheck or initcheck on every
#               program and the [sanitize] GPU tests (scripts/sanitize.sh);
#   proofs      the lab's proof sets (tests/lab/sets.cmake) graded on this GPU: every GPU part
#               a set names for a wrong submission must fail (scripts/lab_proofs.py), from the
#               lab builds that scripts/pack-lab-proofs.sh packs into the folder PROOFS names;
#   all-to-all  (every GPU of the host at once, alone) step 18 on P = 1 to all the GPUs, its
#               GPU tests, its timed runs at 16384 x 16384 and 20011 x 12345 in both types
#               (OUT_DIR/all-to-all.csv), and compute-sanitizer's memcheck and racecheck on
#               every GPU; skipped where the build has no step 18 (no NCCL).
# Environment: PARTS picks parts or groups (default: all; groups: tests, models, sweeps, ncu,
# ncu-more, counters, sanitizer), e.g. PARTS="tests ncu"; GPUS the GPUs' indices (default:
# CUDA_VISIBLE_DEVICES's, else every GPU nvidia-smi lists; they must all be of one kind);
# DEADLINE seconds after which what still runs is stopped and fails (default: none; a part
# whose estimate does not fit in the time left does not start); PROOFS; TABLE a JSON table
# of parts in place of the schedule's own (scripts/gpu_check_schedule.py --table: its test);
# RESUME=1 runs, into the same OUT_DIR, the parts an earlier run's deadline left undone, and
# joins the chunks' summaries (OUT_DIR/chunks/) into OUT_DIR/gpu-check.txt.
# Writes each part's log to OUT_DIR/parts/, all of them to OUT_DIR/gpu-check.log, and the
# summary to OUT_DIR/gpu-check.txt (default OUT_DIR: gpu-check): the commit the programs were
# built from (BUILD_DIR/build-info.txt), the device, the GPUs, the dates and the wall time,
# then for each part the GPU it ran on and its time, with its own lines (ok, FAIL, or skip
# with the reason). Exit status: 0 no part failed, 1 a part failed, 2 bad usage.
#
#   scripts/gpu-check.sh --part BUILD_DIR OUT_DIR NAME
# runs the one part NAME on the GPU that CUDA_VISIBLE_DEVICES names (the schedule's command).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# --- One part: its steps, each logged, its result lines in OUT/parts/NAME.txt. ---------------
if [ "${1:-}" = "--part" ]; then
  [ $# -eq 4 ] || { echo "usage: $0 --part BUILD_DIR OUT_DIR NAME" >&2; exit 2; }
  BUILD=$2 OUT=$3 NAME=$4
  RESULT="$OUT/parts/$NAME.txt"
  mkdir -p "$OUT/parts"
  : >"$RESULT"
  FAILED=0 SKIPPED=0 RAN=0
  step() {  # step WHAT COMMAND...: runs, logs, records ok, FAIL or skip (exit status 77)
    local what=$1; shift
    local shown="$*" t0=$SECONDS
    echo ""; echo "=== $what: ${shown//$ROOT\//}"  # paths from the repository's root
    "$@"
    local rc=$? took="[$((SECONDS - t0)) s]"
    echo "=== $what: exit status $rc after ${took:1:-1}"
    RAN=1
    if [ $rc -eq 0 ]; then
      echo "ok    $what $took" >>"$RESULT"
    elif [ $rc -eq 77 ]; then  # the step's tool is missing here: its log says which
      echo "skip  $what (exit 77: see its log) $took" >>"$RESULT"; SKIPPED=1
    else
      echo "FAIL  $what (exit $rc) $took" >>"$RESULT"; FAILED=1
    fi
  }
  skip() { echo "skip  $*" >>"$RESULT"; echo "skip: $*"; SKIPPED=1; RAN=1; }
  have_ncu() { command -v ncu >/dev/null || { skip "$NAME (ncu not found: Nsight Compute is not installed)"; return 1; }; }
  ncu_check() {  # ncu_check SHAPE [--only PROGRAM...]
    local shape=$1; shift
    local dims=(--size "$shape")
    [[ $shape == *x* ]] && dims=(--rows "${shape%x*}" --cols "${shape#*x}")
    have_ncu && step "ncu check $shape" python3 "$ROOT/scripts/ncu_check.py" "$BUILD" \
      "${dims[@]}" --store "$OUT/ncu-store" --markdown "$OUT/ncu-$shape.md" "$@"
  }
  counters() {  # counters SIZE: the headline kernels, and more variants beside them
    have_ncu && step "ncu counters $1" python3 "$ROOT/scripts/ncu_counters.py" "$BUILD" \
      --sizes "$1" --store "$OUT/ncu-store" --markdown "$OUT/counters-$1.md" \
      --also 11-async-copy/async-only,11-async-copy/registers,11-async-copy/tall:float,12-reads/trimmed,12-reads/wide:float,13-lines/lines-only,16-wide/tall:float
  }
  STEPS=$(ls -d "$BUILD"/steps/[0-9][0-9]-*/ 2>/dev/null | xargs -n1 basename | grep -v 01-hello-world)
  case $NAME in
    cpu-tests)
      step "cpu tests" "$BUILD/tests/cpu_tests"
      step "cpu tests, every step's moves emulated" "$BUILD/tests/cpu_tests" "[emulate]" ;;
    hostile)
      step "hostile command lines" "$BUILD/tests/hostile_tests" ;;
    gpu-tests)  # the GPU test program exits 77 when it finds no device: a failure here
      # -d yes: each test case's time in the log, to say where the part's time goes
      step "gpu tests" "$BUILD/tests/gpu_tests" -d yes
      step "gpu tests, every step exact on every shape" "$BUILD/tests/gpu_tests" "[exact]" -d yes
      step "gpu tests, past 2^31 elements" "$BUILD/tests/gpu_tests" "[large]" -d yes
      grep -q '^skip' "$RESULT" && { sed -i 's/^skip /FAIL /' "$RESULT"; FAILED=1; } ;;
    plain)  # exit 77 (no device) is a failure here too
      step "plain files, exact on awkward shapes and past 2^31 elements" \
        python3 "$ROOT/tests/test_plain.py" "$BUILD" --large
      grep -q '^skip' "$RESULT" && { sed -i 's/^skip /FAIL /' "$RESULT"; FAILED=1; } ;;
    lab)  # the model answers (the steps): CPU parts, machine code, GPU parts and speed bars
      for ex in $(ls "$ROOT/lab/start" | sed 's/\.txt$//'); do
        step "lab $ex, CPU parts" "$BUILD/lab/lab-grade" --exercise "$ex" --part emulated \
          --part large --part analysis --part swizzle --part order
        step "lab $ex, GPU parts" "$BUILD/lab/lab-grade" --exercise "$ex" --gpu
      done ;;
    programs)
      step "01-hello-world" "$BUILD/steps/01-hello-world/01-hello-world" 3 4 2
      for s in $STEPS; do step "$s" "$BUILD/steps/$s/$s"; done
      step "tour" "$BUILD/course/tour" ;;
    latency)  # L1-, L2- and DRAM-sized working sets, idle and under load
      step "latency" "$BUILD/course/latency" --sizes 16K,4M,16M,1G --under-load \
        --out "$OUT/latency.csv" ;;
    sectors)
      step "sectors" "$BUILD/course/sectors"
      step "lines" "$BUILD/course/lines"
      have_ncu && step "sector costs" python3 "$ROOT/scripts/sector_costs.py" "$BUILD" \
        --markdown "$OUT/sectors.md" ;;
    sass)
      model=()
      if [ -f "$OUT/latency.csv" ]; then  # sms and ns of the largest working set, under load
        read -r sms ns < <(python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['under_load'] == 'true']
r = max(rows, key=lambda r: int(r['bytes']))
print(r['sms'], r['ns_per_load'])" "$OUT/latency.csv")
        [ -n "${ns:-}" ] && model=(--latency-ns "$ns" --sms "$sms")
      fi
      step "sass check" python3 "$ROOT/scripts/sass_check.py" "$BUILD" \
        --markdown "$OUT/sass.md" "${model[@]}" ;;
    bench)  # every step's headline variant and the references over the default sizes
      step "bench" "$BUILD/course/bench" --out "$OUT/bench.csv" ;;
    variants)
      step "bench variants" "$BUILD/course/bench" --sweep variants \
        --sizes 8192,4099x8191,4096x8191,4099x8192 --out "$OUT/variants.csv"
      # In double at 8192 x 16384, where the H200 ran step 08's column kernel, the headline
      # at whole-sector shapes, 4 points below step 12's skewed tiles (chapter 12).
      step "bench variants, double 8192x16384" "$BUILD/course/bench" --sweep variants \
        --sizes 8192x16384 --dtypes double --out "$OUT/variants-double.csv"
      # What a Python user calls instead: PyTorch and CuPy, where installed (skipped otherwise).
      step "peers (PyTorch, CuPy)" python3 "$ROOT/scripts/peers.py" --out "$OUT/peers.csv" ;;
    model-facts)
      step "model facts" python3 "$ROOT/scripts/bandwidth_model.py" facts "$BUILD" \
        --out "$OUT/kernel-facts.csv" ;;
    model)  # the predictions from this run's latency curve and calibration, and their error
      # against this run's bench (a report: the committed runs are judged by the CPU tests)
      step "latency against offered load" "$BUILD/course/latency" --sizes 4M,1G --load-sweep \
        --out "$OUT/latency-load.csv"
      step "model calibration" bash -c "'$BUILD/steps/04-padding/04-padding' --size 8192 \
        --variant pad-32x33 --format csv --reps 200 >'$OUT/calibration.csv' && cat '$OUT/calibration.csv'"
      step "model predictions" python3 "$ROOT/scripts/bandwidth_model.py" predict \
        --facts "$OUT/kernel-facts.csv" --device "$OUT"
      step "model against this run" python3 "$ROOT/scripts/bandwidth_model.py" compare \
        --device "$OUT" --report --markdown "$OUT/model.md"
      step "bench beside this GPU's predictions" "$BUILD/course/bench" --sizes 8192,4099x8191 \
        --predict "$OUT" --out "$OUT/bench-predict.csv" ;;
    sweeps)
      step "bench block" "$BUILD/course/bench" --sweep block --out "$OUT/block.csv"
      step "bench size" "$BUILD/course/bench" --sweep size --dtypes float --out "$OUT/size.csv" ;;
    plots)
      if python3 -c "import matplotlib" 2>/dev/null; then
        cat "$OUT"/bench.csv "$OUT"/variants.csv "$OUT"/block.csv "$OUT"/size.csv \
          >"$OUT/all.csv" 2>/dev/null
        step "plots" python3 "$ROOT/scripts/plot_results.py" "$OUT/all.csv" --out "$OUT/plots"
      else
        skip "plots (python3 has no matplotlib)"
      fi ;;
    ncu-8192) ncu_check 8192 ;;
    ncu-4099x8191) ncu_check 4099x8191 ;;
    # Rows of whole 16-byte vectors in partial tiles: the 16-byte paths' checked edges (the
    # scalar steps 02 to 05 have none; 4099 x 8191 checks their edges).
    ncu-4100x8196) ncu_check 4100x8196 --only 06-float4 07-swizzle 08-diagonal 09-alignment \
      10-invariants 11-async-copy 12-reads 13-lines 15-order 16-wide 17-prefetch references ;;
    ncu-3001x5003) ncu_check 3001x5003 --only 04-padding 05-multi-element 07-swizzle \
      08-diagonal 09-alignment 10-invariants 11-async-copy 12-reads 13-lines 15-order 16-wide \
      17-prefetch ;;
    counters-8192x16384) counters 8192x16384 ;;
    counters-4099x8191) counters 4099x8191 ;;
    banks)  # shared-memory patterns predicted and measured, beside global traffic
      have_ncu && step "bank patterns" python3 "$ROOT/scripts/bank_patterns.py" "$BUILD" \
        --markdown "$OUT/banks.md" ;;
    sanitizer-*)  # logs and a table in OUT_DIR/sanitize
      export TOOLS=${NAME#sanitizer-}
      # An eighth of the cores each: the four tools' parts may run at once beside the others,
      # and Nsight Compute's runs beside them wait on the CPU.
      export JOBS=${JOBS:-$(( $(nproc) >= 32 ? $(nproc) / 8 : 4 ))}
      # and the part's share of threads split between its programs
      export TT_THREADS=$(( ${TT_THREADS:-$(nproc)} / JOBS > 0 ? ${TT_THREADS:-$(nproc)} / JOBS : 1 ))
      step "compute-sanitizer $TOOLS" \
        "$ROOT/scripts/sanitize.sh" "$BUILD" "$OUT/sanitize" ;;
    proofs)
      if [ -z "${PROOFS:-}" ] || [ ! -d "$PROOFS" ]; then
        skip "proofs (PROOFS names no folder: scripts/pack-lab-proofs.sh packs the sets)"
      else
        for f in "$PROOFS"/*/build-info.txt; do  # the proofs must be the programs' own commit
          if [ "$(sed -n 's/^commit //p' "$f")" != "$(sed -n 's/^commit //p' "$BUILD/build-info.txt")" ]; then
            echo "FAIL  lab proof sets (built from another commit: $f)" >>"$RESULT"
            exit 1
          fi
        done
        step "lab proof sets on the GPU" python3 "$ROOT/scripts/lab_proofs.py" "$PROOFS" \
          --markdown "$OUT/proofs.md"
      fi ;;
    all-to-all)  # one process a GPU, on every GPU this part was given; multicast stays off
      export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
      A2A="$BUILD/steps/18-all-to-all/18-all-to-all"
      if [ ! -x "$A2A" ]; then
        skip "all-to-all (the build has no 18-all-to-all: NCCL was not found)"
      else
        G=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
        # One case a run: a case that cannot run (two GPUs on a host of one) exits 77 for its
        # whole process, which must not hide the other's verdict.
        step "all-to-all gpu tests, 1 GPU" "$BUILD/tests/all_to_all_gpu_tests" "*on 1 GPU*"
        step "all-to-all gpu tests, 2 GPUs" "$BUILD/tests/all_to_all_gpu_tests" "*on 2 GPUs*"
        rm -f "$OUT/all-to-all.csv"
        for P in $(seq 1 "$G"); do
          for dtype in float double; do
            for shape in 16384x16384 20011x12345; do
              step "18-all-to-all --gpus $P $shape $dtype" "$A2A" --gpus "$P" \
                --rows "${shape%x*}" --cols "${shape#*x}" --dtype "$dtype" --csv "$OUT/all-to-all.csv"
            done
          done
        done
        SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
        if [ ! -x "$SAN" ]; then
          skip "all-to-all sanitizer (compute-sanitizer not found)"
        else  # NCCL's own probes for kernel images it lacks are API errors it expects
          for tool in memcheck racecheck; do
            step "all-to-all $tool on $G GPU(s), 203 x 101" "$SAN" --tool "$tool" \
              --target-processes all --report-api-errors no --error-exitcode 9 \
              "$A2A" --gpus "$G" --rows 203 --cols 101 --once
          done
        fi
      fi ;;
    *) echo "gpu-check: no part named '$NAME'" >&2; exit 2 ;;
  esac
  [ $RAN -eq 1 ] || { echo "FAIL  $NAME (ran nothing)" >>"$RESULT"; exit 1; }
  [ $FAILED -eq 0 ] || exit 1
  [ $SKIPPED -eq 0 ] || exit 77
  exit 0
fi

# --- The whole check. ---------------------------------------------------------------------
BUILD=${1:-build}
OUT=${2:-gpu-check}
mkdir -p "$OUT"
echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
if ! command -v nvidia-smi >/dev/null; then
  echo "gpu-check: nvidia-smi not found: this machine has no NVIDIA driver, so no GPU to check" >&2
  exit 2
fi
if [ -z "${GPUS:-}" ]; then
  GPUS=${CUDA_VISIBLE_DEVICES:-$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd,)}
fi
GPUS=${GPUS// /}
if [ -z "$GPUS" ]; then
  echo "gpu-check: no GPU found (nvidia-smi lists none, or GPUS and CUDA_VISIBLE_DEVICES are empty)" >&2
  exit 2
fi
# One kind of GPU: a check of record speaks for one kind, and parts would land on either.
KINDS=$(nvidia-smi -i "$GPUS" --query-gpu=name,driver_version --format=csv,noheader 2>&1)
if [ $? -ne 0 ]; then
  echo "gpu-check: GPUS=$GPUS: nvidia-smi does not know these GPUs: $KINDS" >&2
  exit 2
fi
echo "$KINDS" | sed 's/^/gpu: /'
if [ "$(echo "$KINDS" | sort -u | wc -l)" -ne 1 ]; then
  echo "gpu-check: these GPUs are of different kinds; name one kind with GPUS=..." >&2
  exit 2
fi
DEVICE=$(echo "$KINDS" | head -n 1)

if [ ! -x "$BUILD/tests/gpu_tests" ]; then
  cmake -S "$ROOT" -B "$BUILD" && cmake --build "$BUILD" -j ||
    { echo "gpu-check: the build failed" >&2; exit 1; }
fi
COMMIT=$(sed -n 's/^commit //p' "$BUILD/build-info.txt" 2>/dev/null)
CHUNKS="$OUT/chunks"
if [ -n "${RESUME:-}" ]; then
  # The parts an earlier run's deadline left undone, run into the same OUT_DIR (whose bench,
  # facts and profiles they read); the summary joins this chunk with the earlier ones.
  if [ ! -f "$OUT/gpu-check.txt" ] || [ -n "${PARTS:-}" ]; then
    echo "gpu-check: RESUME=1 needs the summary of an earlier run in $OUT, and picks the parts itself (no PARTS)" >&2
    exit 2
  fi
  PARTS=$(python3 "$ROOT/scripts/gpu-check-summary.py" --resume "$OUT/gpu-check.txt") || exit 2
  if [ -z "$PARTS" ]; then
    echo "gpu-check: nothing to resume: no part of $OUT/gpu-check.txt was left undone by a deadline" >&2
    exit 2
  fi
  echo "gpu-check: resuming $PARTS"
  mkdir -p "$CHUNKS"
  [ -f "$CHUNKS/chunk-1.txt" ] || cp "$OUT/gpu-check.txt" "$CHUNKS/chunk-1.txt"
  rm -rf "$OUT/tmp"
else
  rm -rf "$OUT/parts" "$OUT/tmp" "$OUT/ncu-store" "$CHUNKS"
fi
python3 "$ROOT/scripts/gpu_check_schedule.py" --out "$OUT" --gpus "$GPUS" \
  --parts "${PARTS:-}" ${DEADLINE:+--deadline "$DEADLINE"} ${TABLE:+--table "$TABLE"} \
  --commit "${COMMIT:-unknown (no $BUILD/build-info.txt)}" --device "$DEVICE" \
  -- bash "$0" --part "$BUILD" "$OUT"
STATUS=$?
if [ -n "${RESUME:-}" ]; then
  n=$(( $(ls "$CHUNKS"/chunk-*.txt | wc -l) + 1 ))
  mv "$OUT/gpu-check.txt" "$CHUNKS/chunk-$n.txt"
  mv "$OUT/gpu-check.log" "$CHUNKS/chunk-$n.log"
  mapfile -t joined < <(printf "%s\n" "$CHUNKS"/chunk-*.txt | sort -V)  # chunk-2 before chunk-10
  python3 "$ROOT/scripts/gpu-check-summary.py" "${joined[@]}" --out "$OUT/gpu-check.txt" >/dev/null
  STATUS=$?
  echo "gpu-check: joined ${#joined[@]} chunks into $OUT/gpu-check.txt"
  grep '^verdict' "$OUT/gpu-check.txt"
fi
exit $STATUS
