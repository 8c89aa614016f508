#!/usr/bin/env bash
# This session's new code on one GPU: the plain files (all at the small shapes, 14 to 17 past
# 2^31 elements), step 18 on one GPU, and the lab's proof sets.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -rf packed proofs
tar -xJf .carry/packed.tar.xz || exit 1; tar -xJf .carry/proofs.tar.xz || exit 1
V=$OUT/verify  # OUT: the folder whose files come back; mkdir -p $V
{ date -u +%FT%TZ; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc; free -g | sed -n 2p; head -3 packed/build-info.txt; } > $V/host.txt
cat $V/host.txt
t0=$SECONDS
python3 tests/test_plain.py packed > $V/plain-small.txt 2>&1; echo "plain small: exit $? in $((SECONDS - t0)) s" | tee -a $V/summary.txt
t0=$SECONDS
for s in 14-tma 15-order 16-wide 17-prefetch; do
  for shape in "1 2147483647" "46349 46349"; do
    ( packed/steps/$s/$s-plain $shape > $V/large-$s-${shape// /x}.txt 2>&1; echo "exit $?" >> $V/large-$s-${shape// /x}.txt ) &
    while [ $(jobs -r | wc -l) -ge 4 ]; do sleep 1; done
  done
done
wait
echo "plain large (14-17): $((SECONDS - t0)) s" | tee -a $V/summary.txt
tail -n 2 $V/large-*.txt | tee -a $V/summary.txt
t0=$SECONDS
for args in "--rows 20011 --cols 12345" "--rows 20011 --cols 12345 --dtype double" "--rows 37 --cols 53 --once" "--rows 1 --cols 1 --once"; do
  echo "== 18-all-to-all $args" >> $V/step18.txt
  timeout 120 packed/steps/18-all-to-all/18-all-to-all $args >> $V/step18.txt 2>&1; echo "exit $?" >> $V/step18.txt
done
echo "step 18: $((SECONDS - t0)) s" | tee -a $V/summary.txt
grep -E "^==|exit|exact|WRONG" $V/step18.txt | tee -a $V/summary.txt
t0=$SECONDS
mkdir -p /tmp/pv
PROOFS=proofs scripts/gpu-check.sh --part packed /tmp/pv proofs > $V/proofs.log 2>&1; echo "proofs: exit $? in $((SECONDS - t0)) s" | tee -a $V/summary.txt
cp /tmp/pv/proofs.md $V/ 2>/dev/null; cp /tmp/pv/parts/* $V/ 2>/dev/null
grep -v "^ok " $V/plain-small.txt | tail -5
ls $V
