#!/usr/bin/env bash
# One GPU: the check's parts that this session's code changed, at its head: the lab grader
# (its parts now in child processes), the GPU tests (emulate's Reach in every step's build),
# and step 18's part.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -rf packed; tar -xJf .carry/packed.tar.xz || exit 1
V=$OUT/x1c; mkdir -p $V
{ date -u +%FT%TZ; nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader; nproc; head -3 packed/build-info.txt; } > $V/host.txt
cat $V/host.txt
PARTS="lab gpu-tests all-to-all" scripts/gpu-check.sh packed /tmp/gc > $V/gpu-check.log 2>&1
echo "gpu-check: exit $?"
cp /tmp/gc/gpu-check.txt /tmp/gc/all-to-all.csv $V/ 2>/dev/null
for p in lab gpu-tests; do grep -E "^(===|ok|FAIL|skip)|passed|failed|result=" /tmp/gc/parts/$p.log | tail -60 > $V/part-$p.txt; done
cat $V/gpu-check.txt
