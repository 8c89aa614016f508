#!/usr/bin/env bash
# One GPU: the check's part all-to-all (step 18 at P = 1), and tall and wide matrices,
# timed with the bench and counted with Nsight Compute.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -rf packed; tar -xJf .carry/packed.tar.xz || exit 1
V=$OUT/x1; mkdir -p $V
{ date -u +%FT%TZ; nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader; nproc; head -3 packed/build-info.txt; } > $V/host.txt
cat $V/host.txt
t0=$SECONDS
PARTS=all-to-all scripts/gpu-check.sh packed /tmp/gc > $V/gpu-check-all-to-all.log 2>&1
echo "all-to-all part: exit $? in $((SECONDS - t0)) s"
cp /tmp/gc/gpu-check.txt $V/gpu-check-all-to-all.txt; cp /tmp/gc/all-to-all.csv $V/ 2>/dev/null
cp /tmp/gc/parts/all-to-all.log $V/part-all-to-all.log
t0=$SECONDS
timeout 120 packed/course/bench --sizes 40009x3001,20011x3001,3001x40009 --dtypes float,double --out $V/bench-tall.csv > $V/bench-tall.log 2>&1
echo "bench: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
timeout 280 python3 scripts/ncu_counters.py packed --sizes 40009x3001,3001x40009 --dtypes float --from-step 08 --markdown $V/counters-tall.md > $V/counters-tall.log 2>&1
echo "counters: exit $? in $((SECONDS - t0)) s"
cat $V/gpu-check-all-to-all.txt
