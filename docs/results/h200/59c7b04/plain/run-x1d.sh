#!/usr/bin/env bash
# One GPU: the check's part plain (every plain file exact on awkward shapes and past 2^31
# elements), at this session's head.
rm -rf packed; tar -xJf .carry/packed.tar.xz || exit 1
V=$OUT/x1d; mkdir -p $V
{ date -u +%FT%TZ; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc; free -g | sed -n 2p; head -3 packed/build-info.txt; } > $V/host.txt
cat $V/host.txt
PARTS=plain DEADLINE=540 scripts/gpu-check.sh packed /tmp/gc > $V/gpu-check.log 2>&1
echo "gpu-check: exit $?"
cp /tmp/gc/gpu-check.txt $V/
grep -vE "^ok " /tmp/gc/parts/plain.log | tail -40 > $V/part-plain-tail.txt
grep -cE "^ok " /tmp/gc/parts/plain.log > $V/plain-ok-count.txt
cat $V/gpu-check.txt; tail -5 $V/part-plain-tail.txt
