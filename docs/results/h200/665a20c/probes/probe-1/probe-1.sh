#!/usr/bin/env bash
# Probe: where the check's time goes on a host of four GPUs.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -rf packed; tar -xJf .carry/packed.tar.xz || exit 1
nvidia-smi --query-gpu=index,name --format=csv,noheader; lscpu | grep -E '^CPU\(s\)|Model name'; free -g | head -2
t() { local t0=$(date +%s%N); "$@"; echo "TIME $(( ($(date +%s%N) - t0) / 1000000 )) ms : $*"; }
# 1. the GPU tests alone on an idle host
CUDA_VISIBLE_DEVICES=3 t packed/tests/gpu_tests -d yes > $OUT/gpu-alone.log 2>&1; tail -3 $OUT/gpu-alone.log
grep " s: " $OUT/gpu-alone.log | sort -rn | head -6
cat > /tmp/ncuprobe.py <<'PY'
import sys, os, time, subprocess
sys.path.insert(0, "scripts")
import ncu_check as n
exe, variants, dtype, size, section = sys.argv[1:6]
metrics = sorted({m for k in n.KINDS for m in n.METRICS[k] if m} | set(n.DRAM) | set(n.L1_WAVEFRONTS.values()))
cmd = ["ncu", "--clock-control", "none", "--kernel-name", n.NOT_PROFILED]
if section == "src": cmd += ["--section", "SourceCounters"]
if section != "none": cmd += ["--metrics", ",".join(metrics)]
else: cmd += ["--section", "SourceCounters"]
cmd += ["--export", f"/tmp/p-{os.getpid()}", "-f", exe, "--variant", variants, "--dtype", dtype, "--no-compare", "--once", "--size", size]
t0 = time.time(); r = subprocess.run(cmd, capture_output=True, text=True)
passes = [l for l in (r.stdout + r.stderr).splitlines() if "passes" in l]
print(f"NCU {os.path.basename(exe)} {variants} {dtype} {size} {section}: rc {r.returncode} {time.time()-t0:.1f} s; {passes}")
PY
# 2. side by side: ncu with and without source counters; the tests under that load and the plain files' large runs
(CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py packed/steps/02-naive/02-naive read-coalesced,write-coalesced float 8192 src; CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py packed/steps/03-shared/03-shared tile-32x32 float 8192 src) > $OUT/ncu0.log 2>&1 &
(CUDA_VISIBLE_DEVICES=1 python3 /tmp/ncuprobe.py packed/steps/02-naive/02-naive read-coalesced,write-coalesced float 8192 metrics; CUDA_VISIBLE_DEVICES=1 python3 /tmp/ncuprobe.py packed/steps/03-shared/03-shared tile-32x32 float 8192 metrics;  CUDA_VISIBLE_DEVICES=1 python3 /tmp/ncuprobe.py packed/steps/02-naive/02-naive read-coalesced,write-coalesced float 8192 none) > $OUT/ncu1.log 2>&1 &
(CUDA_VISIBLE_DEVICES=2 t timeout 150 python3 tests/test_plain.py packed --large) > $OUT/plain.log 2>&1 &
sleep 5
CUDA_VISIBLE_DEVICES=3 t packed/tests/gpu_tests -d yes > $OUT/gpu-loaded.log 2>&1; tail -3 $OUT/gpu-loaded.log
grep " s: " $OUT/gpu-loaded.log | sort -rn | head -6
uptime; free -g | head -2
wait
cat $OUT/ncu0.log $OUT/ncu1.log; tail -5 $OUT/plain.log
