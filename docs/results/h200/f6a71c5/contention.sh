#!/usr/bin/env bash
# Why were four concurrent Nsight Compute parts each about twice as slow as one alone?
set -u
T=$(mktemp -d)
P=packed/steps/04-padding/04-padding
ARGS="--variant pad-32x33 --dtype float --size 8192 --no-compare --once"
MET=dram__bytes_read.sum,smsp__sass_inst_executed_op_shared_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)"; free -g | head -2
prof() {  # prof GPU N: N profiles in a row on GPU, each timed
  local g=$1 n=$2
  mkdir -p $T/d$g
  for i in $(seq $n); do
    local t0=$(date +%s.%N)
    TMPDIR=$T/d$g CUDA_VISIBLE_DEVICES=$g ncu --clock-control none --launch-count 1 --section SourceCounters --metrics $MET --export $T/d$g/r$i -f $P $ARGS >/dev/null 2>&1
    echo "prof gpu$g $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")"
  done
}
plain() {
  local g=$1 n=$2
  for i in $(seq $n); do
    local t0=$(date +%s.%N)
    CUDA_VISIBLE_DEVICES=$g $P $ARGS >/dev/null 2>&1
    echo "plain gpu$g $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")"
  done
}
readrep() {
  local t0=$(date +%s.%N)
  ncu --import $T/d0/r1.ncu-rep --csv --page source --print-source sass >/dev/null 2>&1
  echo "read source page $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")"
}
echo "== alone"; plain 0 3; prof 0 3; readrep
echo "== 4 at once, no ncu"; for g in 0 1 2 3; do plain $g 3 & done; wait
echo "== 4 at once under ncu"; for g in 0 1 2 3; do prof $g 3 & done
sleep 4; top -bn1 | head -20; wait
echo "== 2 at once under ncu"; for g in 0 1; do prof $g 3 & done; wait
echo "== ncu alone, no source counters"
t0=$(date +%s.%N); TMPDIR=$T/d0 CUDA_VISIBLE_DEVICES=0 ncu --clock-control none --launch-count 1 --metrics $MET $P $ARGS >/dev/null 2>&1; echo "prof-nosrc $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")"
echo "== cpu_tests [emulate] alone"
t0=$(date +%s.%N); packed/tests/cpu_tests "[emulate]" >/dev/null 2>&1; echo "cpu_tests emulate alone $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")"
