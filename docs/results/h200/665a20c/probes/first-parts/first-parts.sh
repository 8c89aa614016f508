#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -rf packed proofs; tar -xJf .carry/packed.tar.xz || exit 1
rm -rf /tmp/check
PARTS="cpu-tests plain model-facts ncu-8192 ncu-4099x8191 counters-8192x16384 sanitizer" DEADLINE=${DEADLINE:-330} scripts/gpu-check.sh packed /tmp/check > /tmp/check-run.log 2>&1
echo "gpu-check exit $?"
cp /tmp/check/gpu-check.txt /tmp/check/host-load.csv $OUT/
grep -h "^profiled\|runs, at most" /tmp/check/parts/ncu-8192.log /tmp/check/parts/plain.log > $OUT/profiles.txt
grep -E "^(part|wall|busy|host|verdict)" /tmp/check/gpu-check.txt
grep -c "^profiled" /tmp/check/parts/ncu-8192.log /tmp/check/parts/ncu-4099x8191.log
grep "runs, at most" /tmp/check/parts/plain.log
