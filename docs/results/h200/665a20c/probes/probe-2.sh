#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -rf packed; tar -xJf .carry/packed.tar.xz || exit 1
t() { local t0=$(date +%s%N); "$@"; echo "TIME $(( ($(date +%s%N) - t0) / 1000000 )) ms : $*"; }
cat > /tmp/ncuprobe.py <<'PY'
import sys, os, time, subprocess
sys.path.insert(0, "scripts")
import ncu_check as n
exe, variants, dtype, size, which = sys.argv[1:6]
metrics = sorted({m for k in n.KINDS for m in n.METRICS[k] if m} | set(n.DRAM) | set(n.L1_WAVEFRONTS.values()))
if which == "sass": metrics = [m for m in metrics if "__sass_" in m]
if which == "hw": metrics = [m for m in metrics if "__sass_" not in m]
cmd = ["ncu", "--clock-control", "none", "--kernel-name", n.NOT_PROFILED, "--metrics", ",".join(metrics)]
cmd += ["--export", f"/tmp/p-{os.getpid()}", "-f", exe, "--variant", variants, "--dtype", dtype, "--no-compare", "--once", "--size", size]
t0 = time.time(); r = subprocess.run(cmd, capture_output=True, text=True)
passes = [l.split(":")[-1] for l in (r.stdout + r.stderr).splitlines() if "passes" in l]
print(f"NCU {os.path.basename(exe)} {variants} {dtype} {size} {which} ({len(metrics)} metrics): rc {r.returncode} {time.time()-t0:.1f} s; {passes}", flush=True)
PY
N=packed/steps/02-naive/02-naive
echo "== 1. ncu alone"; CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py $N write-coalesced float 8192 all
echo "== 2. ncu on GPU 0 beside the GPU tests on GPU 3"
CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py $N write-coalesced float 8192 all &
sleep 3; CUDA_VISIBLE_DEVICES=3 t packed/tests/gpu_tests -d yes > /tmp/g2.log 2>&1; tail -1 /tmp/g2.log; grep " s: " /tmp/g2.log | sort -rn | head -3; wait
echo "== 3. two ncu side by side, GPUs 0 and 1"
CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py $N write-coalesced float 8192 all &
CUDA_VISIBLE_DEVICES=1 python3 /tmp/ncuprobe.py $N write-coalesced float 8192 all; wait
echo "== 4. plain --large on GPU 2 beside the GPU tests on GPU 3"
(CUDA_VISIBLE_DEVICES=2 timeout 75 python3 tests/test_plain.py packed --large > /tmp/pl.log 2>&1) &
sleep 8; CUDA_VISIBLE_DEVICES=3 t packed/tests/gpu_tests -d yes > /tmp/g4.log 2>&1; tail -1 /tmp/g4.log; grep " s: " /tmp/g4.log | sort -rn | head -3; uptime; free -g | head -2; wait
echo "== 5. metric subsets alone"
CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py $N write-coalesced float 8192 sass
CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py $N write-coalesced float 8192 hw
CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py packed/steps/05-multi-element/05-multi-element elements-4 float 8192 sass
CUDA_VISIBLE_DEVICES=0 python3 /tmp/ncuprobe.py packed/steps/05-multi-element/05-multi-element elements-4 float 8192 hw
