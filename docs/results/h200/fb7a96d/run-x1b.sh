#!/usr/bin/env bash
# One GPU: tall matrices, every variant timed and the candidates counted; and the
# proof set wrong-c's GPU parts (the grader's children on a GPU: a crashing kernel).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -rf packed proofs-c; tar -xJf .carry/packed.tar.xz || exit 1; tar -xJf .carry/proofs-c.tar.xz || exit 1
V=$OUT/x1b; mkdir -p $V
{ date -u +%FT%TZ; nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader; nproc; head -3 packed/build-info.txt; } > $V/host.txt
cat $V/host.txt
t0=$SECONDS
timeout 150 packed/course/bench --sweep variants --sizes 40009x3001,20011x3001 --dtypes float,double --out $V/variants-tall.csv > $V/variants-tall.log 2>&1
echo "variants: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
timeout 300 python3 scripts/ncu_counters.py packed --sizes 40009x3001,20011x3001 --dtypes float --from-step 10 --also 16-wide/tall:float,16-wide/wide:float,12-reads/wide:float,12-reads/tall:float --markdown $V/counters-tall.md > $V/counters-tall.log 2>&1
echo "counters: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
timeout 200 python3 scripts/lab_proofs.py proofs-c --markdown $V/proofs-c.md > $V/proofs-c.log 2>&1
echo "proofs wrong-c: exit $? in $((SECONDS - t0)) s"
tail -15 $V/proofs-c.log
